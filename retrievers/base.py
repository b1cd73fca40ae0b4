"""The retriever seam and the rules every strategy shares.

Every strategy ranks the adopted and the non-adopted parts of a pool separately (paper, Appendix A.1),
keeps the top ``k`` of each, and returns them merged by date. The leakage rule (only items dated strictly
before the target, never the target) is enforced here, once, so no strategy can break it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

from nationbias.stores.errors import InputError
from nationbias.stores.records import Record

PoolName = Literal["adopted", "non-adopted"]
POOL_NAMES: tuple[PoolName, ...] = ("adopted", "non-adopted")


@dataclass(frozen=True)
class Precedent:
    """One retrieved earlier item; ``rank`` is its 1-based rank by score within its pool part."""

    record: Record
    score: float
    reason: str
    pool: PoolName
    rank: int


@dataclass(frozen=True)
class Scored:
    """A candidate with its strategy score and a human-readable reason, before selection."""

    record: Record
    score: float
    reason: str


@runtime_checkable
class Retriever(Protocol):
    """Finds earlier precedents of ``target`` in ``pool``: top ``k`` adopted plus top ``k`` non-adopted."""

    def retrieve(self, target: Record, pool: Sequence[Record], k: int) -> list[Precedent]: ...


# Ranks the (already leakage-filtered) candidates of one pool part; may return fewer or unsorted.
PartRanker = Callable[[PoolName, list[Record]], list[Scored]]


def check_k(k: int) -> None:
    if k < 0:
        raise InputError(f"k must be >= 0 (the number of precedents per pool part), got {k}")


def pool_part(record: Record) -> PoolName | None:
    """Which part of the pool a record belongs to; amendments belong to neither."""
    if record.adopted:
        return "adopted"
    if record.kind == "draft":
        return "non-adopted"
    return None


def split_pool(pool: Sequence[Record]) -> dict[PoolName, list[Record]]:
    """The adopted items and the non-adopted drafts; amendments dropped, a repeated id kept once."""
    parts: dict[PoolName, list[Record]] = {name: [] for name in POOL_NAMES}
    seen: set[str] = set()
    for record in pool:
        part = pool_part(record)
        if part is None or record.id in seen:
            continue
        seen.add(record.id)
        parts[part].append(record)
    return parts


def pool_shape(pool: Sequence[Record]) -> tuple[int, str, str]:
    """A cheap check that a pool seen before by identity still holds the same items."""
    return (len(pool), pool[0].id, pool[-1].id) if pool else (0, "", "")


def is_earlier(candidate: Record, target: Record) -> bool:
    """The leakage rule: dated strictly before the target and not the target itself."""
    return candidate.date < target.date and candidate.id != target.id


def tie_break_key(item: Scored) -> tuple[float, int, str]:
    """Score descending, then the more recent first, then id: deterministic whatever the input order."""
    return (-item.score, -item.record.date.toordinal(), item.record.id)


def select_top(scored: Sequence[Scored], k: int) -> list[Scored]:
    return sorted(scored, key=tie_break_key)[:k]


def precedents_from(best: dict[PoolName, list[Scored]]) -> list[Precedent]:
    """Each part's ranking (best first, already leakage-filtered) as precedents merged by date."""
    precedents = [
        Precedent(item.record, item.score, item.reason, part, rank)
        for part, ranking in best.items()
        for rank, item in enumerate(ranking, start=1)
    ]
    return sorted(precedents, key=lambda p: (p.record.date, p.record.id))


def retrieve_per_part(target: Record, pool: Sequence[Record], k: int, rank: PartRanker) -> list[Precedent]:
    """Apply ``rank`` to each pool part's earlier items; keep top ``k`` of each; merge by date ascending."""
    check_k(k)
    if k == 0:
        return []
    best: dict[PoolName, list[Scored]] = {}
    for part, records in split_pool(pool).items():
        candidates = [record for record in records if is_earlier(record, target)]
        if not candidates:
            continue
        allowed = {record.id: record for record in candidates}
        # Re-check what the strategy returned: a buggy ranker still cannot leak or duplicate.
        unique = {
            item.record.id: Scored(allowed[item.record.id], item.score, item.reason)
            for item in rank(part, candidates)
            if item.record.id in allowed
        }
        best[part] = select_top(list(unique.values()), k)
    return precedents_from(best)
