"""Lexical retrieval: BM25+ over the prompt-safe text.

BM25+ rather than BM25Okapi: Okapi's IDF turns negative for a term in over half the documents, which
on a small pool (66 drafts) makes common topical words count *against* a match.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rank_bm25 import BM25Plus

from retrievers.base import PoolName, Precedent, Scored, retrieve_per_part, split_pool
from retrievers.text import record_text, tokenize
from stores.records import Record

_REASON_TERMS = 6


@dataclass
class BM25Index:
    ids: list[str]
    position: dict[str, int]
    tokens: list[list[str]]
    bm25: BM25Plus


class BM25Retriever:
    """BM25+ with one index per pool (cached by the pool's ids), queried with the target's text."""

    name = "bm25"

    def __init__(self, *, k1: float = 1.5, b: float = 0.75, delta: float = 1.0) -> None:
        self.k1, self.b, self.delta = k1, b, delta
        self._indexes: dict[tuple[str, ...], BM25Index] = {}
        self.builds = 0

    def index(self, pool: Sequence[Record]) -> BM25Index:
        """Build (once) the index of the pool's adopted items and non-adopted drafts."""
        records = [record for part in split_pool(pool).values() for record in part]
        key = tuple(record.id for record in records)
        if key not in self._indexes:
            tokens = [tokenize(record_text(record)) or ["<empty>"] for record in records]
            bm25 = BM25Plus(tokens, k1=self.k1, b=self.b, delta=self.delta)
            self._indexes[key] = BM25Index(list(key), {rid: i for i, rid in enumerate(key)}, tokens, bm25)
            self.builds += 1
        return self._indexes[key]

    def rank(self, target: Record, pool: Sequence[Record], candidates: Sequence[Record]) -> list[Scored]:
        """Score candidates (members of ``pool``) sharing at least one query term; higher is closer."""
        index = self.index(pool)
        query = tokenize(record_text(target))
        if not query:
            return []
        scores = index.bm25.get_scores(query)
        query_terms = set(query)
        idf = index.bm25.idf
        scored = []
        for record in candidates:
            position = index.position.get(record.id)
            if position is None:
                continue
            # The rarest shared words first: they are what makes the match.
            shared = sorted(
                query_terms.intersection(index.tokens[position]), key=lambda t: (-idf.get(t, 0), t)
            )
            if not shared:  # BM25+ gives every document a floor score; no shared word means no match.
                continue
            score = round(float(scores[position]), 6)
            shown = ", ".join(shared[:_REASON_TERMS]) + (", ..." if len(shared) > _REASON_TERMS else "")
            scored.append(Scored(record, score, f"bm25 {score:.2f}; {len(shared)} shared terms: {shown}"))
        return scored

    def retrieve(self, target: Record, pool: Sequence[Record], k: int) -> list[Precedent]:
        def rank(part: PoolName, candidates: list[Record]) -> list[Scored]:
            return self.rank(target, pool, candidates)

        return retrieve_per_part(target, pool, k, rank)
