"""What a run offers a retriever when it builds one, and the retriever built from it.

A run does not know which strategy wants what: it offers a :class:`BuildContext` (the corpus, the
augmented fields of its records and the run's retrieval options, such as ``threshold``) and each
strategy takes what its class declares: a keyword parameter of its constructor named like a field
of the context or like one of those options receives it; the rest is not passed. So the keyword
retriever gets the augmented fields and the threshold, bm25 and dense get neither, and a plugin that
declares ``threshold`` receives ``--threshold`` as the built-in one does.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from nationbias.retrievers.base import PoolName, Retriever
from nationbias.retrievers.recency import RecencyRetriever
from nationbias.retrievers.registry import get_retriever, retriever_factory
from nationbias.stores.corpora.augment import Augmented
from nationbias.stores.corpora.corpus import Corpus
from nationbias.stores.records import Record


@dataclass(frozen=True)
class BuildContext:
    """The inputs a run offers every retriever; ``options`` are the run's retrieval options by name."""

    corpus: Corpus | None = None
    augmented: Mapping[str, Augmented] | None = None
    options: Mapping[str, Any] = field(default_factory=dict)

    def offered(self) -> dict[str, Any]:
        """Every input by the parameter name that receives it (None: not offered)."""
        found = {"corpus": self.corpus, "augmented": self.augmented, **self.options}
        return {name: value for name, value in found.items() if value is not None}


@runtime_checkable
class ExplainsMisses(Protocol):
    """A retriever that can say why a target got no precedent from a pool part (the run's coverage)."""

    def why_none(self, target: Record, earlier: Sequence[Record], part: PoolName) -> str: ...


@dataclass(frozen=True)
class BuiltRetriever:
    """The retriever a run uses (with its recency discount), the strategy inside it, and what it took."""

    retriever: Retriever
    strategy: Retriever
    given: Mapping[str, Any]

    def took(self, name: str) -> bool:
        return name in self.given


def declared(name: str) -> frozenset[str]:
    """The keyword parameters the strategy ``name``'s constructor declares."""
    kinds = (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    parameters = inspect.signature(retriever_factory(name)).parameters.values()
    return frozenset(p.name for p in parameters if p.kind in kinds)


def build_retriever(
    name: str, context: BuildContext, *, recency_halflife: float | None = None
) -> BuiltRetriever:
    """Strategy ``name`` built with the inputs of ``context`` it declares, then discounted by age when
    ``recency_halflife`` (years) is positive (retrievers/recency.py)."""
    wanted = declared(name)
    given = {key: value for key, value in context.offered().items() if key in wanted}
    retriever = get_retriever(name, recency_halflife=recency_halflife, **given)
    strategy = retriever.inner if isinstance(retriever, RecencyRetriever) else retriever
    return BuiltRetriever(retriever, strategy, given)
