"""A preference for recent precedents: any strategy's scores discounted by the precedent's age.

The Assembly has voted since 1946; by words alone, BM25 finds roll calls of the 1950s for a target of
2015, when the same resolution comes back every session. A precedent's score is multiplied by
``0.5 ** (age / halflife)`` (age in years before the target; a negative score, which only the dense
cosine can give, is divided by it), so a precedent ``halflife`` years older needs twice the score.

The answer is exact, not a re-ranking of a short list: a discounted score is never above the raw one,
so once the ``k``-th best discounted score in the inner strategy's top ``depth`` is at least the
lowest raw score there, nothing further down can overtake it; otherwise ``depth`` grows and the inner
strategy is asked again. The leakage rule stays the inner strategy's (and
:mod:`nationbias.retrievers.base`'s).
"""

from __future__ import annotations

from collections.abc import Sequence
from statistics import median

from nationbias.retrievers.base import (
    POOL_NAMES,
    PoolName,
    Precedent,
    Retriever,
    Scored,
    check_k,
    precedents_from,
    select_top,
)
from nationbias.stores.errors import InputError
from nationbias.stores.records import Record

DAYS_PER_YEAR = 365.25
DEFAULT_UNGA_HALFLIFE = 10.0  # years; the Assembly's default (`--recency-halflife`, 0 = off)


def age_years(target: Record, precedent: Record) -> float:
    """How long before the target the precedent was voted, in years."""
    return (target.date - precedent.date).days / DAYS_PER_YEAR


def discounted(score: float, age: float, halflife: float) -> float:
    """``score`` discounted for ``age`` years: never above ``score``, lower the older."""
    weight = 0.5 ** (max(age, 0.0) / halflife)
    return score * weight if score >= 0 else score / weight


class RecencyRetriever:
    """``inner``'s ranking with every score discounted by the precedent's age (see the module)."""

    def __init__(self, inner: Retriever, *, halflife: float, depth: int = 20) -> None:
        if not halflife > 0:
            raise InputError(f"recency half-life must be a positive number of years, got {halflife}")
        self.inner = inner
        self.halflife = float(halflife)
        self.depth = depth
        self.name = getattr(inner, "name", type(inner).__name__)

    def _discounted(self, target: Record, ranked: list[Precedent]) -> list[Scored]:
        out = []
        for p in ranked:
            age = age_years(target, p.record)
            score = round(discounted(p.score, age, self.halflife), 6)
            why = f"{p.reason}; recency: {p.score:.4g} at {age:.1f} years, half-life {self.halflife:g}"
            why += f" -> {score:.4g}"
            out.append(Scored(p.record, score, why))
        return out

    def retrieve(self, target: Record, pool: Sequence[Record], k: int) -> list[Precedent]:
        check_k(k)
        if k == 0:
            return []
        depth = max(k, self.depth)
        while True:
            found = self.inner.retrieve(target, pool, depth)
            best: dict[PoolName, list[Scored]] = {}
            exact = True
            for part in POOL_NAMES:
                ranked = sorted((p for p in found if p.pool == part), key=lambda p: p.rank)
                if not ranked:
                    continue
                best[part] = select_top(self._discounted(target, ranked), k)
                complete = len(ranked) < depth  # the inner strategy had no more to give
                exact &= complete or best[part][-1].score >= min(p.score for p in ranked)
            if exact or depth >= len(pool):
                return precedents_from(best)
            depth = min(depth * 4, len(pool))


def age_summary(ages: Sequence[int]) -> dict[str, float | int | None]:
    """What a run records of its precedents' ages (target year minus precedent year): how many, the
    median, the oldest, and how many are over 20 years old."""
    return {
        "precedents": len(ages),
        "median_years": float(median(ages)) if ages else None,
        "max_years": max(ages) if ages else None,
        "over_20_years": sum(1 for age in ages if age > 20),
    }
