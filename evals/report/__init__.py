"""The self-contained HTML report: its context, sections, tables, figures and the sample browser.

May import: the result tables (evals/tables/ and the registry's lookup beside evals/api.py),
evals/stats/, evals/baselines/, evals/bias_tests/ (the registry, for each test's sections), graphs/,
stores/; never evals/cli/. A test owns its headline (its ``headline``, made with headline.py).
"""
