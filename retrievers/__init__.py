"""Precedent retrieval: earlier UNSC items similar to a target, from the adopted and non-adopted pools.

Strategies: ``keyword`` (the paper's scorer), ``bm25``, ``dense`` (chromadb + offline MiniLM), ``hybrid``.
"""

from nationbias.retrievers.base import PoolName, Precedent, Retriever
from nationbias.retrievers.registry import RETRIEVERS, get_retriever

__all__ = ["RETRIEVERS", "PoolName", "Precedent", "Retriever", "get_retriever"]
