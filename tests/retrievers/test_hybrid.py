"""Reciprocal-rank fusion of BM25+ and dense rankings."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from nationbias.retrievers.base import Scored, is_earlier, split_pool
from nationbias.retrievers.hybrid import HybridRetriever
from nationbias.stores.records import Record

MakeRecord = Callable[..., Record]  # the make_record fixture (conftest.py)


def fixed(order: list[str], candidates) -> list[Scored]:  # type: ignore[no-untyped-def]
    by_id = {record.id: record for record in candidates}
    return [Scored(by_id[i], float(len(order) - n), "fixed") for n, i in enumerate(order) if i in by_id]


class FixedLexical:
    """Stands in for BM25: a fixed best-first order of ids."""

    def __init__(self, order: list[str]) -> None:
        self.order = order

    def best(self, target, pool, k):  # type: ignore[no-untyped-def]
        parts = split_pool(pool).items()
        return {part: fixed(self.order, [r for r in rs if is_earlier(r, target)])[:k] for part, rs in parts}


class FixedSemantic(FixedLexical):
    """Stands in for the dense retriever (the same per-part interface as BM25's)."""


def test_rrf_scores_are_the_sum_of_reciprocal_ranks(make_record: MakeRecord) -> None:
    a, b, c = (make_record(i, "2019-01-01") for i in "abc")
    fused = HybridRetriever(dense=object(), k_rrf=60).fuse(  # type: ignore[arg-type]
        {"bm25": [Scored(a, 9, ""), Scored(b, 5, "")], "dense": [Scored(b, 0.9, ""), Scored(c, 0.5, "")]}
    )
    scores = {item.record.id: item.score for item in fused}
    assert scores == {
        "a": round(1 / 61, 6),
        "b": round(1 / 62 + 1 / 61, 6),
        "c": round(1 / 62, 6),
    }
    assert "bm25 rank 2 + dense rank 1" in next(i.reason for i in fused if i.record.id == "b")


def test_two_extreme_ranks_beat_two_middle_ones(make_record: MakeRecord) -> None:
    target = make_record("T", "2022-01-01")
    pool = [target, *(make_record(i, "2020-01-01") for i in ("x", "y", "z"))]
    hybrid = HybridRetriever(
        bm25=FixedLexical(["x", "y", "z"]),  # type: ignore[arg-type]
        dense=FixedSemantic(["z", "y", "x"]),  # type: ignore[arg-type]
    )
    # x and z have ranks (1, 3), y has (2, 2): 1/61 + 1/63 > 2/62, so x or z wins, by recency then id: x.
    assert [p.record.id for p in hybrid.retrieve(target, pool, 1)] == ["x"]


def test_rejects_a_non_positive_k_rrf() -> None:
    with pytest.raises(ValueError, match="k_rrf"):
        HybridRetriever(k_rrf=0, dense=object())  # type: ignore[arg-type]


def test_real_fusion_returns_the_best_of_either_ranking(corpus, strategies) -> None:
    target = corpus.drafts[-1]
    hybrid = strategies["hybrid"]
    found = hybrid.retrieve(target, corpus.records, 2)
    assert found and all(p.record.date < target.date and p.reason.startswith("RRF") for p in found)
    assert sum(p.pool == "non-adopted" for p in found) == 2
    lexical = {p.record.id for p in strategies["bm25"].retrieve(target, corpus.records, 50)}
    semantic = {p.record.id for p in strategies["dense"].retrieve(target, corpus.records, 50)}
    assert {p.record.id for p in found} <= lexical | semantic
