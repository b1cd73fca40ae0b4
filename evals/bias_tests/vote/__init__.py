"""The persona vote and its debiased version as registered bias tests, with their report sections and
paper tables.

May import: evals/bias_tests/base.py, evals/report/, evals/tables/, evals/stats/,
evals/baselines/, graphs/, stores/.
"""
