"""Metrics and statistics: the paper's metrics, bootstrap intervals over items, agreement statistics,
scores and group gaps, the tests behind per-nation claims (significance.py) and their correction for
multiplicity (multiplicity.py).

May import: stores/.
"""
