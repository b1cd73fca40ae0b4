"""Non-LLM baselines for the vote simulation: the scores an LLM persona must beat.

Each predicts a member's vote (the P5, or any elected seat) on every non-adopted draft from information
dated strictly before the draft's vote: the member's earlier votes, the sponsors, and retrieved earlier
precedents.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Collection, Sequence
from typing import Any, Literal

import pandas as pd
from sklearn.metrics import f1_score

from nationbias.evals.baselines.rules import (
    always_favour,
    council_members,
    label_of,
    majority_vote,
    precedent_vote,
    sponsor_vote,
)
from nationbias.retrievers import Retriever, get_retriever
from nationbias.stores.corpora.augment import augmented_stamp
from nationbias.stores.corpora.corpus import Corpus
from nationbias.stores.domain import P5, P5_NAMES
from nationbias.stores.errors import InputError

Method = Literal["always_favour", "majority", "precedent", "sponsor", "learned"]
# "learned": the precedent model of evals/baselines/precedent_model.py (a logistic regression,
# leave-future-out).
METHODS: tuple[Method, ...] = ("always_favour", "majority", "precedent", "sponsor", "learned")


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
        retrieves = method not in ("majority", "always_favour")
        found = chosen.retrieve(target, corpus.records, 1) if retrieves else []
        for persona in personas:
            truth = label_of(target, persona)
            if truth is None:
                continue
            if method == "always_favour":
                pred = always_favour(corpus, target, persona)
            elif method == "majority":
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
        if retriever is None:
            frame = _default_predictions(corpus, personas=personas, method=method, retriever=chosen)
        else:
            frame = baseline_predictions(corpus, personas=personas, method=method, retriever=chosen)
        if items is not None:
            frame = frame[frame["item"].isin(set(items))]
        for persona, rows in frame.groupby("persona"):
            score = f1_score(rows["truth"], rows["pred"], average="weighted", zero_division=0)
            table.loc[persona, method] = float(score)
    return table


def baseline_prediction_frame(
    corpus: Corpus, *, personas: Sequence[str] = P5, items: Collection[str] | None = None
) -> pd.DataFrame:
    """Every baseline's prediction per (draft, persona), long form (baseline, item, persona, truth, pred),
    with the default retriever: what a report needs to score each baseline on exactly the drafts and
    members a run has, paired by draft, whatever run it stands beside."""
    chosen = get_retriever("keyword", threshold=0)
    frames = []
    for method in METHODS:
        frame = _default_predictions(corpus, personas=personas, method=method, retriever=chosen)
        if items is not None:
            frame = frame[frame["item"].isin(set(items))]
        frames.append(frame.assign(baseline=method))
    columns = ["baseline", "item", "persona", "truth", "pred"]
    return pd.concat(frames, ignore_index=True)[columns] if frames else pd.DataFrame(columns=columns)


# Each baseline's predictions with the default retriever, by the corpus's content (``augmented_stamp``:
# the records and their fields) and the members: every report scores its runs' drafts against them, and
# a process that writes several reports (a study's, a test suite's) would compute them again each time.
_DEFAULT: OrderedDict[tuple[Any, ...], pd.DataFrame] = OrderedDict()
_DEFAULT_SIZE = 16


def _default_predictions(
    corpus: Corpus, *, personas: Sequence[str], method: Method, retriever: Retriever
) -> pd.DataFrame:
    """:func:`baseline_predictions` with the default retriever (``retriever``, made by the caller so
    the rule baselines share its index), once per corpus content; the learned one through
    :func:`model_for`'s default model, whose fits the report's precedents section reuses."""
    key = (augmented_stamp(corpus), tuple(personas), method)
    if key not in _DEFAULT:
        if method == "learned":
            from nationbias.evals.baselines.precedent_model import model_predictions

            _DEFAULT[key] = model_predictions(corpus, personas=personas)
        else:
            frame = baseline_predictions(corpus, personas=personas, method=method, retriever=retriever)
            _DEFAULT[key] = frame
        while len(_DEFAULT) > _DEFAULT_SIZE:
            _DEFAULT.popitem(last=False)
    _DEFAULT.move_to_end(key)
    return _DEFAULT[key].copy()
