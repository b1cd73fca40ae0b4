"""Every vote-style test's metrics per member: accuracy, F1 per class, macro F1 and weighted F1, each with a
95% interval (drafts resampled), beside the always-favour voter on the very same questions.

Weighted F1 alone flatters a voter that says favour to everything (favour is the commonest vote), so the
table shows what exposes it: the F1 of against and abstention, and macro F1. The always-favour voter is
scored on the run's own questions (each draft once per repeat, as the run), so the comparison is paired
by construction; ``delta_vs_favour`` is the run minus it, with a paired interval.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from nationbias.evals.stats.bootstrap import bootstrap_cis, per_item_confusion
from nationbias.evals.stats.metrics import VOTE_METRICS, vote_metrics_from_confusions
from nationbias.evals.tables import paper as T

ALWAYS_FAVOUR = "always favour"
COLUMNS = [
    "persona",
    "metric",
    "point",
    "low",
    "high",
    "always_favour",
    "delta_vs_favour",
    "delta_low",
    "delta_high",
    "n_drafts",
    "n_questions",
]


def favour_confusions(confusions: np.ndarray) -> np.ndarray:
    """The always-favour voter's per-draft confusions on the same questions: every true row predicted
    favour (the first vote), as many times as the run asked it."""
    out = np.zeros_like(confusions)
    out[..., 0] = confusions.sum(axis=-1)
    return out


def vote_metrics_table(samples: pd.DataFrame, *, n_resamples: int = 1000, seed: int = 0) -> pd.DataFrame:
    """One row per (persona, metric) over every scored question (a failed answer is a miss), repeats pooled;
    intervals resample drafts, the run and the always-favour voter together."""
    votes = T.vote_frame(samples)
    votes = votes[votes["truth"].isin(T.VOTES)]
    rows = []
    k = len(VOTE_METRICS)
    for persona in T.persona_order(votes["persona"].unique()):
        sub = votes[votes["persona"].eq(persona)]
        _, confusions = per_item_confusion(
            sub, item_col="item", truth_col="truth", pred_col="answer", labels=list(T.VOTES), misses=T.MISSES
        )
        stacked = np.stack([confusions, favour_confusions(confusions)], axis=1)

        def stat(batch: np.ndarray) -> np.ndarray:  # (B, drafts, 2, K, K+m) -> (B, 3 * metrics)
            scores = vote_metrics_from_confusions(batch.sum(axis=1))  # (B, 2, metrics)
            return np.concatenate([scores[:, 0], scores[:, 1], scores[:, 0] - scores[:, 1]], axis=-1)

        cis = bootstrap_cis(stacked, stat, n_resamples=n_resamples, seed=seed)
        for j, metric in enumerate(VOTE_METRICS):
            own, favour, delta = cis[j], cis[k + j], cis[2 * k + j]
            rows.append(
                {
                    "persona": persona,
                    "metric": metric,
                    "point": own.point,
                    "low": own.low,
                    "high": own.high,
                    "always_favour": favour.point,
                    "delta_vs_favour": delta.point,
                    "delta_low": delta.low,
                    "delta_high": delta.high,
                    "n_drafts": int(sub["item"].nunique()),
                    "n_questions": len(sub),
                }
            )
    return pd.DataFrame(rows, columns=COLUMNS)
