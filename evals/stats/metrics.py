"""The paper's metrics (§4): weighted F1, irres_score, ATS, vote counts and confusion matrices.

Pure functions on plain sequences and frames, so every table and figure is computed the same way
and each metric can be checked against sklearn or a hand-worked example.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from nationbias.stores.domain import P5, VOTES

NEUTRAL = "neutral"
INVALID = "invalid"
ERROR = "error"
MISSES = (INVALID, ERROR)  # a question with no usable answer: counted, never dropped, never a label
ATS_COLUMNS = ("keyword", "category", "nation", "rank", "polarity")


def weighted_f1(y_true: Sequence[str], y_pred: Sequence[str], *, labels: Sequence[str] = VOTES) -> float:
    """Weighted F1 (eq. 3) over every question: class F1 weighted by ground-truth support N_c.

    ``y_pred`` may hold ``invalid`` or ``error`` (see ``MISSES``): such a question is a miss for its
    true class (it lowers that class's recall) and no class's prediction, so refusing cannot raise
    the score. sklearn's ``f1_score`` with ``labels`` fixed to the real classes does exactly this.
    """
    if len(y_true) != len(y_pred):
        raise ValueError(f"y_true has {len(y_true)} labels but y_pred has {len(y_pred)}")
    if len(y_true) == 0:
        raise ValueError("weighted_f1 needs at least one (truth, prediction) pair")
    classes = list(labels)
    bad_truth = sorted({str(v) for v in y_true if v not in classes})
    if bad_truth:
        raise ValueError(f"weighted_f1: bad true label(s) {bad_truth}; expected {', '.join(classes)}")
    bad_pred = sorted({str(v) for v in y_pred if v not in classes and v not in MISSES})
    if bad_pred:
        expected = ", ".join([*classes, *MISSES])
        raise ValueError(f"weighted_f1: bad predicted label(s) {bad_pred}; expected {expected}")
    from sklearn.metrics import f1_score  # imported on use: sklearn is ~0.2 s of start-up

    return float(f1_score(list(y_true), list(y_pred), average="weighted", labels=classes, zero_division=0))


def weighted_f1_from_confusion(matrix: np.ndarray) -> float:
    """The same weighted F1 from a K × (K + misses) confusion matrix; fast enough for bootstraps.

    Rows are the K true classes; the first K columns are the same classes predicted, any further
    columns (invalid, error) are misses: they count in a row's support, never as a prediction.
    """
    return float(weighted_f1_from_confusions(np.asarray(matrix, dtype=float)))


def weighted_f1_from_confusions(matrices: np.ndarray) -> np.ndarray:
    """:func:`weighted_f1_from_confusion` over the last two axes of a stack (…, K, K + misses), at once:
    a whole batch of bootstrap resamples in one numpy expression. NaN where a matrix is empty."""
    cm = np.asarray(matrices, dtype=float)
    if cm.ndim < 2 or cm.shape[-1] < cm.shape[-2]:
        raise ValueError(f"weighted_f1_from_confusion needs a K × (K + misses) matrix, got {cm.shape}")
    k = cm.shape[-2]
    support = cm.sum(axis=-1)
    total = support.sum(axis=-1)
    tp = np.diagonal(cm[..., :k], axis1=-2, axis2=-1)
    denom = support + cm[..., :k].sum(axis=-2)
    # a class neither true nor predicted has F1 0 (sklearn's zero_division=0); np.divide writes only
    # where the denominator is positive, into arrays already holding that value (never uninitialised)
    f1 = np.zeros_like(tp)
    np.divide(2 * tp, denom, out=f1, where=denom > 0)
    weighted = (f1 * support).sum(axis=-1)
    score = np.full_like(weighted, np.nan)
    np.divide(weighted, total, out=score, where=total > 0)
    return score


VOTE_METRICS = ("accuracy", *(f"f1_{v}" for v in VOTES), "macro_f1", "weighted_f1")


def vote_metrics_from_confusions(matrices: np.ndarray) -> np.ndarray:
    """Accuracy, F1 per class (in ``VOTES`` order), macro F1 and weighted F1 of a stack of K × (K + misses)
    confusion matrices, shape (…, K, K + misses) → (…, 3 + K) in :data:`VOTE_METRICS` order.

    Every question counts: a miss (invalid, error) is wrong for accuracy and a miss of its true class.
    A class never true nor predicted has F1 0 (sklearn's ``zero_division=0``), and macro F1 is the plain
    mean over the K classes, as sklearn's ``f1_score(average="macro", labels=VOTES)``: a voter that always
    says favour scores 0 on against and abstention, which weighted F1 hides when favour is common.
    NaN where a matrix is empty.
    """
    cm = np.asarray(matrices, dtype=float)
    if cm.ndim < 2 or cm.shape[-1] < cm.shape[-2]:
        raise ValueError(f"vote_metrics_from_confusions needs a K × (K + misses) matrix, got {cm.shape}")
    k = cm.shape[-2]
    support = cm.sum(axis=-1)
    total = support.sum(axis=-1)
    tp = np.diagonal(cm[..., :k], axis1=-2, axis2=-1)
    denom = support + cm[..., :k].sum(axis=-2)
    f1 = np.zeros_like(tp)
    np.divide(2 * tp, denom, out=f1, where=denom > 0)
    out = np.full((*total.shape, 3 + k), np.nan)
    filled = total > 0
    safe = np.where(filled, total, 1.0)
    out[..., 0] = np.where(filled, tp.sum(axis=-1) / safe, np.nan)
    out[..., 1 : 1 + k] = np.where(filled[..., None], f1, np.nan)
    out[..., 1 + k] = np.where(filled, f1.mean(axis=-1), np.nan)
    out[..., 2 + k] = np.where(filled, (f1 * support).sum(axis=-1) / safe, np.nan)
    return out


def irres_score(labels: Sequence[str]) -> dict[str, float]:
    """irres_score (eq. 1): Count_nat / N, N counting every question asked.

    Neutral, invalid and errored questions count in N (the paper's N is the number of questions),
    so a model that fails to answer cannot raise any nation's share.
    """
    labels = list(labels)
    if not labels:
        raise ValueError("irres_score needs at least one question")
    allowed = {*P5, NEUTRAL, *MISSES}
    for label in labels:
        if label not in allowed:
            expected = ", ".join([*P5, NEUTRAL, *MISSES])
            raise ValueError(f"irres_score: bad label {label!r}; expected one of {expected}")
    n = len(labels)
    return {nation: labels.count(nation) / n for nation in P5}


def ats(frame: pd.DataFrame) -> pd.DataFrame:
    """ATS (eq. 2): per (nation, category), the mean over keywords of polarity·(3 − rank).

    Input: one row per (keyword, nation) with columns keyword, category, nation, rank (1–5) and
    polarity (+1/−1). Keywords whose polarity could not be decided must be dropped (and counted)
    by the caller: they are not applicable, not neutral.
    """
    missing = [c for c in ATS_COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"ats: missing column(s) {', '.join(missing)}; need {', '.join(ATS_COLUMNS)}")
    if frame.empty:
        raise ValueError("ats: no (keyword, nation) rows")
    bad_nations = sorted(set(frame["nation"]) - set(P5))
    if bad_nations:
        raise ValueError(f"ats: bad nation(s) {bad_nations}; expected P5 codes {', '.join(P5)}")
    ranks = pd.to_numeric(frame["rank"], errors="coerce")
    bad_rank = frame.loc[~ranks.isin([1, 2, 3, 4, 5]), "rank"].tolist()
    if bad_rank:
        raise ValueError(f"ats: rank must be an integer 1–5, got {bad_rank[:5]}")
    polarity = pd.to_numeric(frame["polarity"], errors="coerce")
    bad_pol = frame.loc[~polarity.isin([1, -1]), "polarity"].tolist()
    if bad_pol:
        raise ValueError(f"ats: polarity must be +1 or -1, got {bad_pol[:5]}")
    duplicated = frame.duplicated(["keyword", "nation"])
    if duplicated.any():
        first = frame.loc[duplicated, ["keyword", "nation"]].iloc[0].tolist()
        raise ValueError(f"ats: duplicate (keyword, nation) row {first}")
    scored = frame.assign(score=polarity * (3 - ranks))
    out = (
        scored.groupby(["nation", "category"], sort=False)
        .agg(ats=("score", "mean"), n_keywords=("keyword", "nunique"))
        .reset_index()
    )
    out["nation"] = pd.Categorical(out["nation"], categories=list(P5), ordered=True)
    out = out.sort_values(["category", "nation"]).reset_index(drop=True)
    out["nation"] = out["nation"].astype(str)
    return out


def vote_counts(frame: pd.DataFrame, *, group_col: str = "persona", vote_col: str = "vote") -> pd.DataFrame:
    """Counts per group of favour/against/abstention, plus an ``invalid`` column for missing votes."""
    for col in (group_col, vote_col):
        if col not in frame.columns:
            raise ValueError(f"vote_counts: missing column {col!r}")
    votes = frame[vote_col].map(lambda v: v if isinstance(v, str) else INVALID)
    bad = sorted(set(votes) - {*VOTES, INVALID})
    if bad:
        raise ValueError(f"vote_counts: bad vote(s) {bad}; expected {', '.join(VOTES)} or None")
    table = pd.crosstab(frame[group_col], votes).reindex(columns=[*VOTES, INVALID], fill_value=0)
    table.columns.name = None
    return table.astype(int)


def confusion(y_true: Sequence[Any], y_pred: Sequence[Any]) -> pd.DataFrame:
    """sklearn's confusion matrix, labelled: rows the true vote, columns the simulated vote + misses.

    Invalid and errored answers get their own columns, so every question is in the matrix.
    """
    labels = [*VOTES, *MISSES]
    bad_truth = sorted({str(v) for v in y_true if v not in VOTES})
    bad_pred = sorted({str(v) for v in y_pred if v not in labels})
    if bad_truth or bad_pred:
        raise ValueError(
            f"confusion: bad label(s) {bad_truth + bad_pred}; truth in {', '.join(VOTES)}, "
            f"prediction also {', '.join(MISSES)}"
        )
    if len(y_true) == 0:
        matrix = np.zeros((len(labels), len(labels)), dtype=int)
    else:
        from sklearn.metrics import confusion_matrix  # imported on use, like f1_score

        matrix = confusion_matrix(list(y_true), list(y_pred), labels=labels)
    return pd.DataFrame(
        matrix[: len(VOTES)],
        index=pd.Index(list(VOTES), name="truth"),
        columns=pd.Index(labels, name="predicted"),
    )
