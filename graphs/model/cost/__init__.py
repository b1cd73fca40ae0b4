"""What a run spends: token counting, the price meter behind --max-cost, and the dry run.

May import: graphs/model/, stores/.
"""
