"""The paper's metrics (§4): weighted F1, irres_score, ATS, vote counts and confusion matrices.

Pure functions on plain sequences and frames, so every table and figure is computed the same way
and each metric can be checked against sklearn or a hand-worked example.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from sklearn.metrics import confusion_matrix, f1_score

from stores.paths import P5

VOTES = ("favour", "against", "abstention")
NEUTRAL = "neutral"
INVALID = "invalid"
ATS_COLUMNS = ("keyword", "category", "nation", "rank", "polarity")


def weighted_f1(y_true: Sequence[str], y_pred: Sequence[str]) -> float:
    """Weighted F1 (eq. 3): class F1 weighted by ground-truth support, over the classes that occur."""
    if len(y_true) != len(y_pred):
        raise ValueError(f"y_true has {len(y_true)} labels but y_pred has {len(y_pred)}")
    if len(y_true) == 0:
        raise ValueError("weighted_f1 needs at least one (truth, prediction) pair")
    labels = sorted(set(y_true) | set(y_pred))
    return float(f1_score(list(y_true), list(y_pred), average="weighted", labels=labels, zero_division=0))


def weighted_f1_from_confusion(matrix: np.ndarray) -> float:
    """The same weighted F1 from a square confusion matrix (rows truth); fast enough for bootstraps."""
    cm = np.asarray(matrix, dtype=float)
    support = cm.sum(axis=1)
    total = support.sum()
    if total == 0:
        return float("nan")
    tp = np.diag(cm)
    predicted = cm.sum(axis=0)
    denom = support + predicted
    f1 = np.divide(2 * tp, denom, out=np.zeros_like(tp), where=denom > 0)
    return float((f1 * support).sum() / total)


def irres_score(labels: Sequence[str]) -> dict[str, float]:
    """irres_score (eq. 1): Count_nat / N, N counting every answered question including neutral ones."""
    labels = list(labels)
    if not labels:
        raise ValueError("irres_score needs at least one labelled question")
    allowed = {*P5, NEUTRAL}
    for label in labels:
        if label not in allowed:
            expected = ", ".join(P5)
            raise ValueError(f"irres_score: bad label {label!r}; expected one of {expected} or 'neutral'")
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
    """sklearn's confusion matrix, labelled: rows are the true vote, columns the simulated vote."""
    labels = list(VOTES)
    bad = sorted({str(v) for v in [*y_true, *y_pred] if v not in labels})
    if bad:
        raise ValueError(f"confusion: bad label(s) {bad}; expected {', '.join(VOTES)}")
    if len(y_true) == 0:
        matrix = np.zeros((len(labels), len(labels)), dtype=int)
    else:
        matrix = confusion_matrix(list(y_true), list(y_pred), labels=labels)
    return pd.DataFrame(
        matrix,
        index=pd.Index(labels, name="truth"),
        columns=pd.Index(labels, name="predicted"),
    )
