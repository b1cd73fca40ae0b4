"""The rule baselines of the vote study: always favour, majority, precedent and sponsor, from the record
before a draft.

The learned precedent model (precedent_model.py) reads the sponsor rule's vote as one of its features; the
registry of baselines (council.py) runs both.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from nationbias.retrievers import Precedent
from nationbias.stores.corpora.corpus import Corpus, p5_vote
from nationbias.stores.domain import P5, P5_BY_NAME, P5_NAMES, VOTE_CODES, VOTES
from nationbias.stores.records import Record

_ALIASES = (
    (r"\bUnited States of America\b", "United States"),
    (r"\bUnited Kingdom of Great Britain and Northern Ireland\b", "United Kingdom"),
    (r"\bFederated States of Micronesia\b|\bMicronesia \(Federated States of\)", "Micronesia"),
    (r"\bKingdom of the Netherlands\b|\bNetherlands \(Kingdom of the\)", "Netherlands"),
)


def sponsor_names(record: Record) -> frozenset[str]:
    """Canonical sponsor names: the corpus lists are messy ("the United States of America and Viet Nam")."""
    text = " | ".join(s.replace("_x000D_", " ") for s in record.sponsors)
    text = re.sub(r"\s*\|\s*(?=States\b)", " ", " ".join(text.split()))  # a name split over two entries
    for pattern, name in _ALIASES:
        text = re.sub(pattern, name, text)
    parts = re.split(r"\s*(?:\||,|;|\band\b)\s*", text)
    return frozenset(re.sub(r"^the\s+", "", part.strip(), flags=re.I) for part in parts if part.strip())


def label_of(record: Record, persona: str) -> str | None:
    """The member's recorded vote as a label: a P5 code, or an elected member by its corpus name."""
    vote = p5_vote(record, persona) if persona in P5_NAMES else record.votes.get(persona)
    return VOTE_CODES[vote] if vote else None


def council_members(corpus: Corpus) -> list[str]:
    """Every member that voted on a non-adopted draft: the P5 codes, then the elected seats by name."""
    elected = {name for draft in corpus.drafts for name in draft.votes if name not in P5_BY_NAME}
    return [*P5, *sorted(elected)]


def _earlier(drafts: Sequence[Record], target: Record) -> list[Record]:
    return [record for record in drafts if record.date < target.date and record.id != target.id]


def always_favour(corpus: Corpus, target: Record, persona: str) -> str:
    """Favour, whatever the draft and member: the floor weighted F1 flatters (favour is the commonest vote),
    and what a model without a nation mostly says."""
    return "favour"


def majority_vote(corpus: Corpus, target: Record, persona: str) -> str:
    """The persona's most frequent vote on earlier non-adopted drafts (favour when none or tied)."""
    counts = Counter(label for r in _earlier(corpus.drafts, target) if (label := label_of(r, persona)))
    if not counts:
        return "favour"
    best = max(counts.values())
    return next(label for label in VOTES if counts[label] == best)  # a tie: the first in VOTES


def precedent_vote(corpus: Corpus, target: Record, persona: str, found: Sequence[Precedent]) -> str:
    """The persona's vote on the best retrieved earlier non-adopted draft, else :func:`majority_vote`."""
    for precedent in sorted(found, key=lambda p: p.rank):
        if precedent.pool == "non-adopted" and precedent.record.date < target.date:
            label = label_of(precedent.record, persona)
            if label:
                return label
    return majority_vote(corpus, target, persona)


def sponsor_vote(corpus: Corpus, target: Record, persona: str, found: Sequence[Precedent]) -> str:
    """Favour one's own draft; else vote as on the latest earlier draft sharing a sponsor; else precedent."""
    sponsors = sponsor_names(target)
    if P5_NAMES.get(persona, persona) in sponsors:
        return "favour"
    for record in sorted(_earlier(corpus.drafts, target), key=lambda r: (r.date, r.id), reverse=True):
        if sponsors & sponsor_names(record) and (label := label_of(record, persona)):
            return label
    return precedent_vote(corpus, target, persona, found)
