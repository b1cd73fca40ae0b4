"""Batch mode: an uncached call joins its round's batch (OpenAI Files + Batches), and the answers are
ingested into the response cache like online ones (the rounds that replay the graphs are
graphs/study/batch_rounds.py).

May import: graphs/model/, stores/.
"""
