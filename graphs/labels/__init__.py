"""Reading a model's answer into a label: strict parsing, the vote and DirectQA label rules, and the
Association Test's ranking, in each of the UN's six languages (``language=``; the other five languages'
words are in :mod:`nationbias.graphs.labels.lexicon`, one table per language).

May import: graphs/model/, stores/, prompts/.
"""
