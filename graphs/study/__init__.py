"""Running the graphs over many samples: sampling, personas, the concurrent runner, what a run records
about itself, and stopping on purpose.

May import: the graphs beside it, graphs/model/, graphs/labels/,
retrievers/, stores/, prompts/; never evals/.
"""
