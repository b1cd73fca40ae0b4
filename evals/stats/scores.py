"""Accuracy, weighted F1 and each vote's F1 per member, with bootstrap intervals over items.

One scorer for the baselines' predictions (``nationbias baselines``) and a model's votes (the per-state
table of a report): the same frame in, the same columns out, so a model and the bar it must clear are
read side by side. A model's invalid or errored answer is a miss: it counts in its true class's
support (and in accuracy's denominator) and as no prediction.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from nationbias.evals.stats.bootstrap import bootstrap_cis, per_item_confusion
from nationbias.evals.stats.metrics import MISSES, weighted_f1_from_confusions
from nationbias.stores.domain import VOTES

METRICS = ("accuracy", "weighted_f1", *(f"f1_{vote}" for vote in VOTES))
ALL_MEMBERS = "all"  # the member column of a pooled row


def metrics_of(confusions: np.ndarray) -> np.ndarray:
    """(…, len(METRICS)) from a stack of K × (K + misses) confusion matrices (truth × predicted)."""
    cm = np.asarray(confusions, dtype=float)
    k = cm.shape[-2]
    total = cm.sum(axis=(-2, -1))
    tp = np.diagonal(cm[..., :k], axis1=-2, axis2=-1)
    denom = cm.sum(axis=-1) + cm[..., :k].sum(axis=-2)
    f1 = np.zeros_like(tp)  # 0 for a vote neither true nor predicted; written only where denom > 0
    np.divide(2 * tp, denom, out=f1, where=denom > 0)
    hits = tp.sum(axis=-1)
    accuracy = np.full_like(hits, np.nan)  # NaN for an empty matrix
    np.divide(hits, total, out=accuracy, where=total > 0)
    return np.concatenate([accuracy[..., None], weighted_f1_from_confusions(cm)[..., None], f1], axis=-1)


def score_table(
    predictions: pd.DataFrame, *, n_resamples: int = 2000, seed: int = 0, pooled: bool = True
) -> pd.DataFrame:
    """One row per baseline × member (then, with ``pooled``, one per baseline over every member, member
    ``all``): n, each metric and its 95% interval (items resampled, every member's vote on an item together).

    ``predictions``: baseline, item_id, member, truth, predicted (a vote, or a miss: invalid, error).
    """
    frames = [predictions, predictions.assign(member=ALL_MEMBERS)] if pooled else [predictions]
    rows = []
    for frame in frames:
        for (baseline, member), group in frame.groupby(["baseline", "member"], sort=False):
            _, per_item = per_item_confusion(
                group,
                item_col="item_id",
                truth_col="truth",
                pred_col="predicted",
                labels=VOTES,
                misses=MISSES,
            )
            row: dict[str, object] = {"baseline": baseline, "member": member, "n": len(group)}
            cis = bootstrap_cis(
                per_item, lambda batch: metrics_of(batch.sum(axis=1)), n_resamples=n_resamples, seed=seed
            )
            for metric, ci in zip(METRICS, cis, strict=True):
                row |= {metric: ci.point, f"{metric}_low": ci.low, f"{metric}_high": ci.high}
            rows.append(row)
    return pd.DataFrame(rows)
