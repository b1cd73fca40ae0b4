"""Reading a model's answer into a label: strict parsing, the vote and DirectQA label rules, and the
Association Test's ranking.

May import: graphs/model/, stores/, prompts/.
"""
