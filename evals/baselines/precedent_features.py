"""What the learned precedent model sees: a member's features on an item, from the record before it only.

Every feature of ``(item, member)`` is computed from the item itself (its sponsors, region, target
nations) and from items dated strictly before it (the member's votes on retrieved precedents, on
drafts sharing a sponsor or a target nation, on the latest drafts; who co-sponsored with the member).
So a training row is what was known when that earlier item was voted on, and nothing dated on or
after a target can reach its features.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from nationbias.evals.baselines.rules import sponsor_names, sponsor_vote
from nationbias.retrievers import Precedent
from nationbias.stores.corpora.corpus import Corpus
from nationbias.stores.corpora.countries import nations_in_text, to_iso3
from nationbias.stores.domain import P5_NAMES, VOTE_CODES, VOTES
from nationbias.stores.guard.leak import context_for_prompt
from nationbias.stores.records import Record

REGIONS = ("Middle East", "Europe", "Africa", "Asia", "Americas")
RECENT = 5  # the member's latest earlier drafts
WEST, EAST = ("USA", "GBR", "FRA"), ("RUS", "CHN")


def _shares(prefix: str) -> tuple[str, ...]:
    return tuple(f"{prefix}_{vote}" for vote in VOTES)


FEATURES: tuple[str, ...] = (
    *_shares("precedent"),  # the member's votes on the top-k retrieved non-adopted precedents
    "precedent_adopted_abstention",  # ... and its abstentions on the top-k adopted ones
    *_shares("same_sponsor"),  # on earlier drafts sharing a sponsor with this one
    *_shares("same_nation"),  # on earlier drafts about one of this one's target nations
    *_shares("recent"),  # on its latest earlier drafts
    "own_draft",  # the member sponsors it
    "ally_sponsors",  # share of sponsors that co-sponsored an earlier item with the member
    "rival_sponsors",  # share of sponsors of an earlier draft the member voted against
    "west_sponsor",  # a P5 sponsor of either camp (empty for most drafts)
    "east_sponsor",
    "no_sponsors",
    "named",  # the item's own (prompt-safe) text names the member
    *_shares(
        "sponsor_rule"
    ),  # the sponsor rule's vote (nationbias.evals.baselines.rules.sponsor_vote), one-hot
    *(f"region_{name}" for name in REGIONS),
)


@dataclass(frozen=True)
class ItemInfo:
    """An item's own fields, as the features use them."""

    record: Record
    sponsors: frozenset[str]
    nations: frozenset[str]
    named: frozenset[str]  # ISO3 codes of the states its prompt-safe text names

    @classmethod
    def of(cls, record: Record, nations: Sequence[str] = ()) -> ItemInfo:
        text = " ".join(filter(None, [context_for_prompt(record).text, record.title]))
        return cls(record, sponsor_names(record), frozenset(nations), frozenset(nations_in_text(text)))


def member_vote(record: Record, member: str) -> str | None:
    """``member``'s vote (favour/against/abstention) by its name in ``record.votes``, else None."""
    code = record.votes.get(member)
    return VOTE_CODES[code] if code else None


def member_name(member: str) -> str:
    """The name the corpus votes under: P5 codes map to their names, any other seat is its name."""
    return P5_NAMES.get(member, member)


def _vote_shares(votes: Sequence[str | None], weights: Sequence[float] | None = None) -> list[float]:
    pairs = [(v, w) for v, w in zip(votes, weights or [1.0] * len(votes), strict=True) if v]
    total = sum(w for _, w in pairs)
    if not total:
        return [0.0] * len(VOTES)
    return [sum(w for v, w in pairs if v == label) / total for label in VOTES]


class FeatureBuilder:
    """Features of (item, member), each from the item and the items dated strictly before it."""

    def __init__(
        self,
        corpus: Corpus,
        *,
        nations: Mapping[str, Sequence[str]],
        precedents: Callable[[Record], Sequence[Precedent]],
    ) -> None:
        self.corpus = corpus
        self.infos = {r.id: ItemInfo.of(r, nations.get(r.id, ())) for r in corpus.records}
        # Earlier non-adopted drafts, by date, for the histories.
        self.drafts = sorted(
            (i for i in self.infos.values() if i.record.is_non_adopted_draft),
            key=lambda i: (i.record.date, i.record.id),
        )
        self.sponsored = sorted(
            (i for i in self.infos.values() if i.sponsors), key=lambda i: (i.record.date, i.record.id)
        )
        self.precedents = precedents

    def _earlier(self, items: Sequence[ItemInfo], target: Record) -> list[ItemInfo]:
        return [i for i in items if i.record.date < target.date and i.record.id != target.id]

    def row(self, target: Record, member: str) -> np.ndarray:
        """The feature vector (in :data:`FEATURES` order) of ``member`` on ``target``."""
        name = member_name(member)
        info = self.infos.get(target.id) or ItemInfo.of(target)
        found = [p for p in self.precedents(target) if p.record.date < target.date]
        draft_found = sorted((p for p in found if p.pool == "non-adopted"), key=lambda p: p.rank)
        adopted_found = [p for p in found if p.pool == "adopted"]
        earlier = self._earlier(self.drafts, target)
        values: list[float] = []
        values += _vote_shares(
            [member_vote(p.record, name) for p in draft_found], [1.0 / p.rank for p in draft_found]
        )
        values.append(_vote_shares([member_vote(p.record, name) for p in adopted_found])[2])
        same_sponsor = [i for i in earlier if i.sponsors & info.sponsors]
        values += _vote_shares([member_vote(i.record, name) for i in same_sponsor[-RECENT:]])
        same_nation = [i for i in earlier if i.nations & info.nations]
        values += _vote_shares([member_vote(i.record, name) for i in same_nation[-RECENT:]])
        values += _vote_shares([member_vote(i.record, name) for i in earlier[-RECENT:]])
        values += self._sponsor_features(info, name, target)
        values += self._rule(target, member, found)
        values += [float(info.record.region == region) for region in REGIONS]
        return np.asarray(values, dtype=float)

    def _sponsor_features(self, info: ItemInfo, name: str, target: Record) -> list[float]:
        sponsors = info.sponsors
        allies: set[str] = set()
        rivals: set[str] = set()
        for item in self._earlier(self.sponsored, target):
            if name in item.sponsors:
                allies |= item.sponsors - {name}
            if item.record.is_non_adopted_draft and member_vote(item.record, name) == "against":
                rivals |= item.sponsors
        n = len(sponsors) or 1
        return [
            float(name in sponsors),
            len(sponsors & allies) / n,
            len(sponsors & rivals) / n,
            float(any(P5_NAMES[c] in sponsors for c in WEST)),
            float(any(P5_NAMES[c] in sponsors for c in EAST)),
            float(not sponsors),
            float(to_iso3(name) in info.named),
        ]

    def _rule(self, target: Record, member: str, found: Sequence[Precedent]) -> list[float]:
        """The sponsor rule's prediction for a P5 member (zeros for another seat)."""
        if member not in P5_NAMES:
            return [0.0] * len(VOTES)
        vote = sponsor_vote(self.corpus, target, member, [p for p in found if p.rank == 1])
        return [float(vote == label) for label in VOTES]
