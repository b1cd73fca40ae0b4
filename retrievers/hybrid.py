"""Hybrid retrieval: reciprocal-rank fusion of BM25+ and dense rankings, per pool part.

RRF needs no score calibration between the two (BM25 is unbounded, cosine is in [-1, 1]): an item's
fused score is the sum over rankings of ``1 / (k_rrf + rank)``. Both rankings already keep only items
dated before the target (each strategy applies the leakage rule on its arrays), so their fusion does too.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from nationbias.retrievers.base import POOL_NAMES, Precedent, Scored, check_k, precedents_from, select_top
from nationbias.retrievers.bm25 import BM25Retriever
from nationbias.retrievers.dense import DenseRetriever
from nationbias.stores.errors import InputError
from nationbias.stores.records import Record

DEFAULT_K_RRF = 60


class HybridRetriever:
    """RRF of :class:`BM25Retriever` and :class:`DenseRetriever` over the top ``depth`` of each."""

    name = "hybrid"

    def __init__(
        self,
        *,
        k_rrf: int = DEFAULT_K_RRF,
        depth: int = 50,
        bm25: BM25Retriever | None = None,
        dense: DenseRetriever | None = None,
        path: str | os.PathLike[str] | None = None,
    ) -> None:
        if k_rrf <= 0:
            raise InputError(f"k_rrf must be positive, got {k_rrf}")
        self.k_rrf = k_rrf
        self.depth = depth
        self.bm25 = bm25 or BM25Retriever()
        self.dense = dense or DenseRetriever(path=path)

    def fuse(self, rankings: dict[str, list[Scored]]) -> list[Scored]:
        """Fuse named rankings (each sorted best first) into one list of RRF-scored items."""
        fused: dict[str, float] = {}
        records: dict[str, Record] = {}
        parts: dict[str, list[str]] = {}
        for source, ranking in rankings.items():
            for position, item in enumerate(ranking, start=1):
                fused[item.record.id] = fused.get(item.record.id, 0.0) + 1.0 / (self.k_rrf + position)
                records[item.record.id] = item.record
                parts.setdefault(item.record.id, []).append(f"{source} rank {position}")
        return [
            Scored(records[rid], round(score, 6), f"RRF {score:.4f} = {' + '.join(parts[rid])}")
            for rid, score in fused.items()
        ]

    def retrieve(self, target: Record, pool: Sequence[Record], k: int) -> list[Precedent]:
        check_k(k)
        if k == 0:
            return []
        depth = max(k, self.depth)
        lexical = self.bm25.best(target, pool, depth)
        semantic = self.dense.best(target, pool, depth)
        best = {
            part: select_top(fused, k)
            for part in POOL_NAMES
            if (fused := self.fuse({"bm25": lexical.get(part, []), "dense": semantic.get(part, [])}))
        }
        return precedents_from(best)
