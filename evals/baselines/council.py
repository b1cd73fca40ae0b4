"""Non-LLM baselines for the vote simulation: the scores an LLM persona must beat.

Each predicts a member's vote (the P5, or any elected seat) on every non-adopted draft from information
dated strictly before the draft's vote: the member's earlier votes, the sponsors, and retrieved earlier
precedents.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Sequence
from typing import Literal

import pandas as pd
from sklearn.metrics import f1_score

from nationbias.retrievers import Precedent, Retriever, get_retriever
from nationbias.stores.corpus import Corpus, p5_vote
from nationbias.stores.domain import P5, P5_BY_NAME, P5_NAMES, VOTE_CODES, VOTES
from nationbias.stores.errors import InputError
from nationbias.stores.records import Record

Method = Literal["majority", "precedent", "sponsor", "learned"]
# "learned": the precedent model of evals/baselines/precedent_model.py (a logistic regression,
# leave-future-out).
METHODS: tuple[Method, ...] = ("majority", "precedent", "sponsor", "learned")

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


def _label(record: Record, persona: str) -> str | None:
    """The member's recorded vote as a label: a P5 code, or an elected member by its corpus name."""
    vote = p5_vote(record, persona) if persona in P5_NAMES else record.votes.get(persona)
    return VOTE_CODES[vote] if vote else None


def council_members(corpus: Corpus) -> list[str]:
    """Every member that voted on a non-adopted draft: the P5 codes, then the elected seats by name."""
    elected = {name for draft in corpus.drafts for name in draft.votes if name not in P5_BY_NAME}
    return [*P5, *sorted(elected)]


def _earlier(drafts: Sequence[Record], target: Record) -> list[Record]:
    return [record for record in drafts if record.date < target.date and record.id != target.id]


def majority_vote(corpus: Corpus, target: Record, persona: str) -> str:
    """The persona's most frequent vote on earlier non-adopted drafts (favour when none or tied)."""
    counts = Counter(label for r in _earlier(corpus.drafts, target) if (label := _label(r, persona)))
    if not counts:
        return "favour"
    best = max(counts.values())
    return next(label for label in VOTES if counts[label] == best)  # a tie: the first in VOTES


def precedent_vote(corpus: Corpus, target: Record, persona: str, found: Sequence[Precedent]) -> str:
    """The persona's vote on the best retrieved earlier non-adopted draft, else :func:`majority_vote`."""
    for precedent in sorted(found, key=lambda p: p.rank):
        if precedent.pool == "non-adopted" and precedent.record.date < target.date:
            label = _label(precedent.record, persona)
            if label:
                return label
    return majority_vote(corpus, target, persona)


def sponsor_vote(corpus: Corpus, target: Record, persona: str, found: Sequence[Precedent]) -> str:
    """Favour one's own draft; else vote as on the latest earlier draft sharing a sponsor; else precedent."""
    sponsors = sponsor_names(target)
    if P5_NAMES.get(persona, persona) in sponsors:
        return "favour"
    for record in sorted(_earlier(corpus.drafts, target), key=lambda r: (r.date, r.id), reverse=True):
        if sponsors & sponsor_names(record) and (label := _label(record, persona)):
            return label
    return precedent_vote(corpus, target, persona, found)


def baseline_predictions(
    corpus: Corpus, *, personas: Sequence[str] = P5, method: Method, retriever: Retriever | None = None
) -> pd.DataFrame:
    """One row per (non-adopted draft, persona that voted): columns item, persona, truth, pred."""
    if method not in METHODS:
        raise InputError(f"unknown baseline {method!r}; valid: {', '.join(METHODS)}")
    unknown = [p for p in personas if p not in P5_NAMES and p not in council_members(corpus)]
    if unknown:
        raise InputError(
            f"unknown persona(s) {unknown}: P5 codes ({', '.join(P5)}) or the names of elected members"
        )
    chosen = retriever or get_retriever("keyword", threshold=0)
    if method == "learned":
        from nationbias.evals.baselines.precedent_model import (
            model_predictions,  # it builds on the rules of this module
        )

        return model_predictions(corpus, personas=personas, retriever=chosen)
    rows = []
    for target in corpus.drafts:
        # Retrieved once per draft (k = 1 per pool part), shared by the personas.
        found = chosen.retrieve(target, corpus.records, 1) if method != "majority" else []
        for persona in personas:
            truth = _label(target, persona)
            if truth is None:
                continue
            if method == "majority":
                pred = majority_vote(corpus, target, persona)
            elif method == "precedent":
                pred = precedent_vote(corpus, target, persona, found)
            else:
                pred = sponsor_vote(corpus, target, persona, found)
            rows.append({"item": target.id, "persona": persona, "truth": truth, "pred": pred})
    return pd.DataFrame(rows, columns=["item", "persona", "truth", "pred"])


def baseline_f1(
    corpus: Corpus,
    *,
    personas: Sequence[str] = P5,
    retriever: Retriever | None = None,
    items: Collection[str] | None = None,
) -> pd.DataFrame:
    """Weighted F1 (sklearn) per persona (rows) and baseline (columns majority, precedent, sponsor, learned).

    ``items`` restricts the score to the drafts a run actually covered, so the comparison is fair.
    """
    chosen = retriever or get_retriever("keyword", threshold=0)
    table = pd.DataFrame(index=pd.Index(list(personas), name="persona"), columns=list(METHODS), dtype=float)
    for method in METHODS:
        frame = baseline_predictions(corpus, personas=personas, method=method, retriever=chosen)
        if items is not None:
            frame = frame[frame["item"].isin(set(items))]
        for persona, rows in frame.groupby("persona"):
            score = f1_score(rows["truth"], rows["pred"], average="weighted", zero_division=0)
            table.loc[persona, method] = float(score)
    return table
