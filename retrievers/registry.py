"""Retrievers by name, so a config file or CLI flag can choose the strategy.

:data:`RETRIEVERS` is the one list of them: ``get_retriever``, the vote tests' check of
``--retriever``, the study grid and the CLI's help all read it. A new retriever is one module plus one
:func:`register_retriever` line below (or, from outside the package, one call of it, or one
``nationbias.retrievers`` entry point, which the CLI sees too). A strategy is
named by its import path and imported only when it is asked for, so chromadb and onnxruntime load
only for ``dense`` and ``hybrid``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from nationbias.retrievers.base import Retriever
from nationbias.stores.config.entry_points import installed
from nationbias.stores.errors import InputError

Factory = Callable[..., Retriever]

RETRIEVERS: dict[str, str | Factory] = {}
"""Strategy name -> its class or factory, or ``"module:attribute"`` naming one (imported when asked for)."""


def register_retriever(name: str, factory: str | Factory) -> None:
    """Add a strategy under ``name``; ``factory`` takes the strategy's keyword-only options."""
    key = name.strip().lower()
    if not key or key != name or ":" in key:
        raise InputError(f"a retriever's name is lower case, without spaces or ':', got {name!r}")
    if isinstance(factory, str) and factory.count(":") != 1:
        raise InputError(f"retriever {name!r}: {factory!r} is not 'module:attribute'")
    RETRIEVERS[key] = factory


register_retriever("keyword", "nationbias.retrievers.keyword:KeywordRetriever")
register_retriever("bm25", "nationbias.retrievers.bm25:BM25Retriever")
register_retriever("dense", "nationbias.retrievers.dense:DenseRetriever")
register_retriever("hybrid", "nationbias.retrievers.hybrid:HybridRetriever")

ENTRY_POINTS = "nationbias.retrievers"
"""An installed package's retrievers: ``name = "module:Class"`` lines, registered when this module is
imported, before the CLI builds its help, so ``--retriever`` lists them and takes them."""


def register_installed() -> None:
    """Register every retriever an installed package names under :data:`ENTRY_POINTS` (not imported
    until asked for, as the built-in ones)."""
    for entry in installed(ENTRY_POINTS):
        if entry.name not in RETRIEVERS:
            register_retriever(entry.name, entry.value)


register_installed()


def check_retriever(name: str) -> str:
    """``name`` as the registry spells it, or an :class:`InputError` listing the valid names."""
    key = name.strip().lower()
    if key not in RETRIEVERS:
        raise InputError(f"unknown retriever {name!r}; valid names: {', '.join(RETRIEVERS)}")
    return key


def retriever_factory(name: str) -> Factory:
    """The class or factory registered under ``name`` (imported now if it was named by its path)."""
    target = RETRIEVERS[check_retriever(name)]
    if not isinstance(target, str):
        return target
    module, _, attribute = target.partition(":")
    factory: Factory = getattr(importlib.import_module(module), attribute)
    return factory


def get_retriever(name: str, *, recency_halflife: float | None = None, **options: Any) -> Retriever:
    """A new retriever of strategy ``name``; ``options`` are its keyword-only settings. A positive
    ``recency_halflife`` (years) discounts its scores by the precedent's age (retrievers/recency.py)."""
    key = check_retriever(name)
    if recency_halflife is not None and recency_halflife < 0:
        raise InputError(f"--recency-halflife must be >= 0 years (0: no preference), got {recency_halflife}")
    try:
        inner = retriever_factory(key)(**options)
    except TypeError as exc:
        raise InputError(f"bad options for retriever {name!r}: {exc}") from exc
    if not isinstance(inner, Retriever):
        raise InputError(f"retriever {name!r} built a {type(inner).__name__}, which has no retrieve()")
    if not recency_halflife:
        return inner
    from nationbias.retrievers.recency import RecencyRetriever

    return RecencyRetriever(inner, halflife=recency_halflife)
