"""What the user sets: the environment (settings.py), where state lives (paths.py), the price table
(prices.py) and installed plugins (entry_points.py).

May import: stores/errors.py; nothing else of stores/.
"""
