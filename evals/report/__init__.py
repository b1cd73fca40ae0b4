"""The self-contained HTML report: its context, sections, tables, figures and the sample browser.

May import: the result tables (evals/tables/ and the registry's lookup beside evals/api.py),
evals/stats/, evals/baselines/, evals/bias_tests/ (the registry, for each test's sections), graphs/,
stores/; never evals/cli/. (first_screen.py still reads
the vote test's paper numbers from evals/bias_tests/vote/: a test owning its headline is step (b).)
"""
