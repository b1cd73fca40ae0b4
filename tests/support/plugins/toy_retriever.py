"""A retriever from outside the package: the newest earlier items of each pool part, whatever they say.

It is one module; registering it is one line (``register_retriever("newest",
"toy_retriever:NewestFirst")`` with this folder on ``sys.path``) or its entry point
(toy_retriever-0.1.dist-info), after which ``--retriever newest`` runs the debias graph with it. It
declares a ``threshold``, so a run hands it ``--threshold`` as it does the keyword retriever
(retrievers/context.py); its reasons say which it got. The leakage rule still holds:
retrievers/base.py applies it to every strategy's candidates.
"""

from __future__ import annotations

from collections.abc import Sequence

from nationbias.retrievers.base import Precedent, Scored, retrieve_per_part
from nationbias.stores.records import Record

REASON = "toy: the newest earlier item"


class NewestFirst:
    """Ranks a pool part's earlier items by date alone, the newest first."""

    def __init__(self, *, reason: str = REASON, threshold: float | None = None) -> None:
        self.threshold = threshold
        self.reason = reason if threshold is None else f"{reason} (threshold {threshold:g})"

    def retrieve(self, target: Record, pool: Sequence[Record], k: int) -> list[Precedent]:
        def rank(part: str, records: list[Record]) -> list[Scored]:
            return [Scored(r, float(r.date.toordinal()), self.reason) for r in records]

        return retrieve_per_part(target, pool, k, rank)
