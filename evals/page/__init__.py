"""The report's page: which sections it shows and in what order, its first screen, and the files it writes.

It reads the registry of tests (each test's sections, headline, claims and language effect), so it sits
above evals/bias_tests/, whose sections are made of evals/report/'s parts. May import: evals/results.py,
evals/bias_tests/, evals/report/, evals/tables/, evals/stats/, evals/baselines/, graphs/, stores/; never
evals/cli/.
"""
