"""Metrics and statistics: the paper's metrics, bootstrap intervals over items, agreement statistics,
scores and group gaps.

May import: stores/.
"""
