"""Non-LLM baselines: what the record alone predicts of each vote (Council and Assembly), and why.

May import: evals/stats/, retrievers/, stores/.
"""
