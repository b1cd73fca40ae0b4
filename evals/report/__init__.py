"""The report's parts: its context, figures, tables, headline rows and the sample browser.

A test's sections are made of them; the page that lays the sections out is evals/page/. May import:
evals/tables/, evals/stats/, evals/baselines/, graphs/, stores/; never evals/bias_tests/, evals/page/ or
evals/cli/. A test owns its headline (its ``headline``, made with headline.py).
"""
