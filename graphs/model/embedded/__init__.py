"""The embedded offline chat model: llama.cpp in a worker process, and the probe that says it works here.

May import: graphs/model/, stores/.
"""
