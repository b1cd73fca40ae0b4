"""The paper's keyword retriever (Appendix A.4) over the augmented fields.

Score = +2 if the regions match, +1 per shared target nation (not "Member States" / "United Nations"),
+0.1 per shared domain keyword; an item is kept only if its score is strictly above the threshold (3).

Scoring every earlier item of the pool for every query cost ~0.1 s on the 6k UNGA roll calls and
~0.5 s at 100k (benchmarks/RESULTS.md). So each pool gets an index, built once: per pool part, the
items sorted by date (the leakage rule becomes one bisect) and inverted lists from each region,
target nation and keyword to the items carrying it. A query then only touches the items that share
something with the target; the score and reason of those are computed by :func:`keyword_match`, so
results are exactly those of scoring every earlier item (tests/support/keyword_reference.py holds them
equal). A negative threshold keeps items that share nothing, which no index can find: every earlier
item is scored then.
"""

from __future__ import annotations

import functools
import heapq
from bisect import bisect_left
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from nationbias.retrievers.base import (
    POOL_NAMES,
    PoolName,
    Precedent,
    Scored,
    check_k,
    pool_shape,
    retrieve_per_part,
    select_top,
    split_pool,
)
from nationbias.stores.corpora.augment import Augmented, augmented_for
from nationbias.stores.corpora.corpus import Corpus
from nationbias.stores.domain import EXCLUDED_NATIONS
from nationbias.stores.records import Record

KEYWORD_THRESHOLD = 3.0  # the paper's: a precedent is kept when its score is above it
REGION_POINTS = 2.0
NATION_POINTS = 1.0
KEYWORD_POINTS = 0.1
EXCLUDED_TARGET_NATIONS = frozenset(name.lower() for name in EXCLUDED_NATIONS)  # matched lower-case


def _field(item: object, name: str) -> Any:
    """Read ``name`` from a mapping or an object (Augmented, dict, SimpleNamespace...)."""
    if _is_mapping(type(item)):
        return item.get(name)  # type: ignore[attr-defined]
    return getattr(item, name, None)


_MAPPING_TYPES: dict[type, bool] = {}


def _is_mapping(kind: type) -> bool:
    """``isinstance(item, Mapping)`` decided once per type (the scorer asks for every pair of items)."""
    found = _MAPPING_TYPES.get(kind)
    if found is None:
        found = _MAPPING_TYPES[kind] = issubclass(kind, Mapping)
    return found


def _normalised(values: Iterable[str] | None, *, excluded: frozenset[str] = frozenset()) -> Mapping[str, str]:
    """Case- and space-insensitive keys mapped to the first spelling seen (used in reasons).

    The same item's fields are compared with every other item's (the naive scorer, the audit): each
    distinct list is normalised once (read-only mappings, shared)."""
    try:
        return _normalised_once(tuple(values or ()), excluded)
    except TypeError:  # an unhashable value: normalised as it is
        return _normalise(values or (), excluded)


@functools.lru_cache(maxsize=1 << 16)
def _normalised_once(values: tuple[str, ...], excluded: frozenset[str]) -> Mapping[str, str]:
    return MappingProxyType(_normalise(values, excluded))


def _normalise(values: Iterable[str], excluded: frozenset[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for value in values:
        key = " ".join(str(value).split()).casefold()
        if key and key not in excluded:
            found.setdefault(key, " ".join(str(value).split()))
    return found


def _shared(
    target: object, candidate: object, name: str, excluded: frozenset[str] = frozenset()
) -> list[str]:
    mine = _normalised(_field(target, name), excluded=excluded)
    theirs = _normalised(_field(candidate, name), excluded=excluded)
    return sorted(mine[key] for key in mine.keys() & theirs.keys())


def _region_match(target: object, candidate: object) -> str | None:
    region, other = _field(target, "region"), _field(candidate, "region")
    if region and other and str(region).strip().casefold() == str(other).strip().casefold():
        return str(region).strip()
    return None


def keyword_match(target: object, candidate: object) -> tuple[float, str]:
    """The paper's score and a reason such as ``region Middle East +2; target nations Syria +1``."""
    region = _region_match(target, candidate)
    nations = _shared(target, candidate, "target_nations", EXCLUDED_TARGET_NATIONS)
    keywords = _shared(target, candidate, "keywords")
    # Count in tenths, then scale: 2 + 1 + 0.1 is exactly 3.1 and so robustly above a threshold of 3.
    tenths = 20 * bool(region) + 10 * len(nations) + len(keywords)
    score = round(tenths / 10, 6)
    reasons = []
    if region:
        reasons.append(f"region {region} +{REGION_POINTS:g}")
    if nations:
        reasons.append(f"target nations {', '.join(nations)} +{NATION_POINTS * len(nations):g}")
    if keywords:
        reasons.append(f"keywords {', '.join(keywords)} +{round(KEYWORD_POINTS * len(keywords), 6):g}")
    return score, "; ".join(reasons) or "no shared region, target nation or keyword"


def keyword_score(target: object, candidate: object) -> float:
    """The paper's keyword score between two items carrying region, target_nations and keywords."""
    return keyword_match(target, candidate)[0]


@dataclass(frozen=True)
class _Keys:
    """An item's normalised region, target nations and keywords: what the score compares."""

    region: str | None
    nations: frozenset[str]
    keywords: frozenset[str]

    @classmethod
    def of(cls, item: object) -> _Keys:
        region = _field(item, "region")
        return cls(
            # as _region_match: both present (truthy) and equal once stripped and casefolded
            str(region).strip().casefold() if region else None,
            frozenset(_normalised(_field(item, "target_nations"), excluded=EXCLUDED_TARGET_NATIONS)),
            frozenset(_normalised(_field(item, "keywords"))),
        )


@dataclass
class _PartIndex:
    """One pool part, sorted by date, with inverted lists (positions ascending, so by date too)."""

    records: list[Record] = field(default_factory=list)
    ordinals: list[int] = field(default_factory=list)
    by_region: dict[str, list[int]] = field(default_factory=dict)
    by_nation: dict[str, list[int]] = field(default_factory=dict)
    by_keyword: dict[str, list[int]] = field(default_factory=dict)

    def add(self, position: int, keys: _Keys) -> None:
        if keys.region is not None:
            self.by_region.setdefault(keys.region, []).append(position)
        for nation in keys.nations:
            self.by_nation.setdefault(nation, []).append(position)
        for keyword in keys.keywords:
            self.by_keyword.setdefault(keyword, []).append(position)

    def top(self, wanted: _Keys, cutoff: int, threshold: float, k: int, exclude: str) -> list[int]:
        """Positions of the best ``k`` items dated before ``cutoff`` scoring above ``threshold`` (>= 0).

        Ranked as :func:`retrieve_per_part` ranks (score, then the more recent, then id), on the
        same tenths the score is made of, so only the ``k`` kept need :func:`keyword_match`.
        """
        ranked = []
        for position, total in self.scores(wanted, cutoff).items():
            score = round(total / 10, 6)
            record = self.records[position]
            if score > threshold and record.id != exclude:
                ranked.append((-score, -self.ordinals[position], record.id, position))
        return [entry[3] for entry in heapq.nsmallest(k, ranked)]

    def scores(self, wanted: _Keys, cutoff: int) -> dict[int, int]:
        """Tenths-scores of the positions dated before ``cutoff`` sharing anything with ``wanted``."""
        end = bisect_left(self.ordinals, cutoff)
        if end == 0:
            return {}
        tenths: dict[int, int] = {}
        lists: list[tuple[list[int], int]] = []
        if wanted.region is not None and wanted.region in self.by_region:
            lists.append((self.by_region[wanted.region], 20))
        lists += [(self.by_nation[n], 10) for n in wanted.nations if n in self.by_nation]
        lists += [(self.by_keyword[w], 1) for w in wanted.keywords if w in self.by_keyword]
        for positions, points in lists:
            for position in positions[: bisect_left(positions, end)]:
                tenths[position] = tenths.get(position, 0) + points
        return tenths


@dataclass
class KeywordIndex:
    """A pool's augmented fields and, per part, its date-sorted items and inverted lists."""

    fields: Mapping[str, Augmented]
    parts: dict[PoolName, _PartIndex]

    @classmethod
    def build(cls, pool: Sequence[Record], fields: Mapping[str, Augmented]) -> KeywordIndex:
        parts: dict[PoolName, _PartIndex] = {name: _PartIndex() for name in POOL_NAMES}
        for name, records in split_pool(pool).items():
            part = parts[name]
            part.records = sorted(records, key=lambda r: r.date)
            part.ordinals = [record.date.toordinal() for record in part.records]
            for position, record in enumerate(part.records):
                part.add(position, _Keys.of(fields[record.id]))
        return cls(fields=fields, parts=parts)


class KeywordRetriever:
    """Keyword-match retrieval with the paper's threshold; augmented fields are computed once per pool."""

    name = "keyword"

    def __init__(
        self, *, augmented: Mapping[str, Augmented] | None = None, threshold: float = KEYWORD_THRESHOLD
    ) -> None:
        self.threshold = float(threshold)
        self._given = dict(augmented or {})
        self._computed: dict[tuple[str, ...], dict[str, Augmented]] = {}
        self._indexes: dict[tuple[str, ...], KeywordIndex] = {}
        self._last: tuple[Sequence[Record], tuple[int, str, str], KeywordIndex] | None = None
        self.builds = 0

    def _augmented(self, records: Sequence[Record]) -> dict[str, Augmented]:
        missing = [record for record in records if record.id not in self._given]
        if not missing:
            return self._given
        key = tuple(record.id for record in missing)
        if key not in self._computed:
            self._computed[key] = augmented_for(Corpus(records=list(missing)))
        return {**self._computed[key], **self._given}

    def index(self, pool: Sequence[Record]) -> KeywordIndex:
        """The pool's index (built on first use, then reused for the same ids in the same order)."""
        last = self._last
        if last is not None and last[0] is pool and last[1] == pool_shape(pool):  # the same list again
            return last[2]
        key = tuple(record.id for record in pool)
        found = self._indexes.get(key)
        if found is None:
            found = self._indexes[key] = KeywordIndex.build(pool, self._augmented(pool))
            self.builds += 1
        self._last = (pool, pool_shape(pool), found)
        return found

    def why_none(self, target: Record, earlier: Sequence[Record], part: PoolName) -> str:
        """Why no item of ``earlier`` (one pool part) passed the threshold: the best score and its parts."""
        augmented = self._given
        if target.id not in augmented:
            return f"the retriever kept none of {len(earlier)} earlier {part} items"
        fields = augmented[target.id]
        best = max(
            ((keyword_match(fields, augmented[r.id]), r.id) for r in earlier if r.id in augmented),
            key=lambda found: found[0][0],
            default=None,
        )
        if best is None:
            return f"no augmented fields for the {len(earlier)} earlier {part} items"
        (score, reason), best_id = best
        return f"best of {len(earlier)} earlier {part} items: {best_id} at {score:g} ({reason})"

    def retrieve(self, target: Record, pool: Sequence[Record], k: int) -> list[Precedent]:
        check_k(k)
        if k == 0:
            return []
        if self.threshold < 0:  # every earlier item qualifies, sharing something or not
            return self._score_every_earlier(target, pool, k)
        index = self.index(pool)
        fields = index.fields
        target_fields = fields.get(target.id) or self._augmented([target])[target.id]
        wanted = _Keys.of(target_fields)
        cutoff = target.date.toordinal()
        precedents: list[Precedent] = []
        for part, part_index in index.parts.items():
            scored = []
            for position in part_index.top(wanted, cutoff, self.threshold, k, target.id):
                record = part_index.records[position]
                score, reason = keyword_match(target_fields, fields[record.id])
                scored.append(Scored(record, score, reason))
            for rank, item in enumerate(select_top(scored, k), start=1):
                precedents.append(Precedent(item.record, item.score, item.reason, part, rank))
        return sorted(precedents, key=lambda p: (p.record.date, p.record.id))

    def _score_every_earlier(self, target: Record, pool: Sequence[Record], k: int) -> list[Precedent]:
        """Score every earlier item of each pool part (a threshold below 0 keeps items sharing nothing)."""
        fields = self._augmented(pool)
        target_fields = fields.get(target.id) or self._augmented([target])[target.id]

        def rank(part: PoolName, candidates: list[Record]) -> list[Scored]:
            scored = []
            for record in candidates:
                score, reason = keyword_match(target_fields, fields[record.id])
                if score > self.threshold:
                    scored.append(Scored(record, score, reason))
            return scored

        return retrieve_per_part(target, pool, k, rank)
