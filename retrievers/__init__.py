"""Precedent retrieval: earlier UNSC items similar to a target, from the adopted and non-adopted pools.

Strategies by name in :data:`~nationbias.retrievers.registry.RETRIEVERS`: ``keyword`` (the paper's
scorer), ``bm25``, ``dense`` (chromadb + offline MiniLM), ``hybrid``; a new one is one module plus one
``register_retriever`` line (retrievers/registry.py).

May import: stores/.
"""

from nationbias.retrievers.base import PoolName, Precedent, Retriever
from nationbias.retrievers.registry import RETRIEVERS, check_retriever, get_retriever, register_retriever

__all__ = [
    "RETRIEVERS",
    "PoolName",
    "Precedent",
    "Retriever",
    "check_retriever",
    "get_retriever",
    "register_retriever",
]
