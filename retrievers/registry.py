"""Retrievers by name, so a config file or CLI flag can choose the strategy."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from nationbias.retrievers.base import Retriever
from nationbias.stores.errors import InputError

RETRIEVERS: tuple[str, ...] = ("keyword", "bm25", "dense", "hybrid")


def _keyword(**options: Any) -> Retriever:
    from nationbias.retrievers.keyword import KeywordRetriever

    return KeywordRetriever(**options)


def _bm25(**options: Any) -> Retriever:
    from nationbias.retrievers.bm25 import BM25Retriever

    return BM25Retriever(**options)


# chromadb and onnxruntime are imported only when a dense strategy is asked for.
def _dense(**options: Any) -> Retriever:
    from nationbias.retrievers.dense import DenseRetriever

    return DenseRetriever(**options)


def _hybrid(**options: Any) -> Retriever:
    from nationbias.retrievers.hybrid import HybridRetriever

    return HybridRetriever(**options)


_FACTORIES: dict[str, Callable[..., Retriever]] = {
    "keyword": _keyword,
    "bm25": _bm25,
    "dense": _dense,
    "hybrid": _hybrid,
}


def get_retriever(name: str, *, recency_halflife: float | None = None, **options: Any) -> Retriever:
    """A new retriever of strategy ``name``; ``options`` are its keyword-only settings. A positive
    ``recency_halflife`` (years) discounts its scores by the precedent's age (retrievers/recency.py)."""
    factory = _FACTORIES.get(name.strip().lower())
    if factory is None:
        raise InputError(f"unknown retriever {name!r}; valid names: {', '.join(RETRIEVERS)}")
    if recency_halflife is not None and recency_halflife < 0:
        raise InputError(f"--recency-halflife must be >= 0 years (0: no preference), got {recency_halflife}")
    try:
        inner = factory(**options)
    except TypeError as exc:
        raise InputError(f"bad options for retriever {name!r}: {exc}") from exc
    if not recency_halflife:
        return inner
    from nationbias.retrievers.recency import RecencyRetriever

    return RecencyRetriever(inner, halflife=recency_halflife)
