"""The ``nationbias`` command line (typer). Nothing outside this folder imports it: the CLI reaches the
library through evals/api.py and its hooks.

May import: everything in evals/, graphs/, retrievers/,
stores/, prompts/.
"""
