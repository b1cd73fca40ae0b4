"""The paper's keyword retriever (Appendix A.4) over the augmented fields.

Score = +2 if the regions match, +1 per shared target nation (not "Member States" / "United Nations"),
+0.1 per shared domain keyword; an item is kept only if its score is strictly above the threshold (3).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from retrievers.base import PoolName, Precedent, Scored, retrieve_per_part
from stores.augment import Augmented, augmented_for
from stores.corpus import Corpus
from stores.records import Record

REGION_POINTS = 2.0
NATION_POINTS = 1.0
KEYWORD_POINTS = 0.1
DEFAULT_THRESHOLD = 3.0
EXCLUDED_TARGET_NATIONS = frozenset({"member states", "united nations"})


def _field(item: object, name: str) -> Any:
    """Read ``name`` from a mapping or an object (Augmented, dict, SimpleNamespace...)."""
    if isinstance(item, Mapping):
        return item.get(name)
    return getattr(item, name, None)


def _normalised(values: Iterable[str] | None, *, excluded: frozenset[str] = frozenset()) -> dict[str, str]:
    """Case- and space-insensitive keys mapped to the first spelling seen (used in reasons)."""
    found: dict[str, str] = {}
    for value in values or ():
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


class KeywordRetriever:
    """Keyword-match retrieval with the paper's threshold; augmented fields are computed once per pool."""

    name = "keyword"

    def __init__(
        self, *, augmented: Mapping[str, Augmented] | None = None, threshold: float = DEFAULT_THRESHOLD
    ) -> None:
        self.threshold = float(threshold)
        self._given = dict(augmented or {})
        self._computed: dict[tuple[str, ...], dict[str, Augmented]] = {}

    def _augmented(self, records: Sequence[Record]) -> dict[str, Augmented]:
        missing = [record for record in records if record.id not in self._given]
        if not missing:
            return self._given
        key = tuple(record.id for record in missing)
        if key not in self._computed:
            self._computed[key] = augmented_for(Corpus(records=list(missing)))
        return {**self._computed[key], **self._given}

    def retrieve(self, target: Record, pool: Sequence[Record], k: int) -> list[Precedent]:
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
