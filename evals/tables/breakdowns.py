"""Per-nation vote scores by the drafts' topic and region, each with a 95% interval (drafts resampled).

The corpus records a topic and a coarse region per draft, as its source sheet spelt them: 19 topic values
(one of them missing), the Palestinian question spelt two ways, most topics with 1–3 drafts. Topics are
normalised first (:func:`normal_topic`); a missing value is shown as ``unrecorded``; a group with fewer than
:data:`MIN_DRAFTS` of the run's drafts is pooled into ``other``, since a score over two drafts says little.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import numpy as np
import pandas as pd

from nationbias.evals.stats.bootstrap import bootstrap_cis, per_item_confusion
from nationbias.evals.stats.metrics import weighted_f1_from_confusions
from nationbias.evals.tables import paper as T

MIN_DRAFTS = 5
UNRECORDED = "unrecorded"
OTHER = "other"
PALESTINIAN = "Middle East, including the Palestinian question"
COLUMNS = [
    "by",
    "group",
    "nation",
    "n_drafts",
    "n_questions",
    "weighted_f1",
    "low",
    "high",
    "accuracy",
    "accuracy_low",
    "accuracy_high",
]


def normal_topic(topic: str | None) -> str:
    """One spelling per topic: whitespace collapsed, "inc."/"incl. the" Palestinian question as one, a
    missing topic ``unrecorded``."""
    if topic is None or not str(topic).strip():
        return UNRECORDED
    text = " ".join(str(topic).split())
    if re.search(r"palestinian question", text, re.I):
        return PALESTINIAN
    return text


def normal_region(region: str | None) -> str:
    """A region as recorded, a missing one ``unrecorded``."""
    return UNRECORDED if region is None or not str(region).strip() else " ".join(str(region).split())


def pooled_groups(groups: Mapping[str, str], *, min_drafts: int = MIN_DRAFTS) -> dict[str, str]:
    """Draft → group, each group with fewer than ``min_drafts`` of these drafts pooled into ``other``."""
    sizes = pd.Series(list(groups.values())).value_counts()
    return {item: g if sizes[g] >= min_drafts else OTHER for item, g in groups.items()}


def _scores(batch: np.ndarray) -> np.ndarray:  # (B, drafts, K, K+m) -> (B, 2): weighted F1, accuracy
    cm = batch.sum(axis=1)
    k = cm.shape[-2]
    total = cm.sum(axis=(-1, -2))
    correct = np.trace(cm[..., :k], axis1=-2, axis2=-1)
    accuracy = np.where(total > 0, correct / np.maximum(total, 1), np.nan)
    return np.stack([weighted_f1_from_confusions(cm), accuracy], axis=-1)


def breakdown_table(
    samples: pd.DataFrame,
    groups: Mapping[str, Mapping[str, str]],
    *,
    min_drafts: int = MIN_DRAFTS,
    n_resamples: int = 1000,
    seed: int = 0,
) -> pd.DataFrame:
    """One row per (breakdown, group, nation): weighted F1 and accuracy over every question of the group's
    drafts (a failed answer is a miss), repeats pooled, each with an interval that resamples those drafts.

    ``groups`` maps a breakdown's name (``topic``, ``region``) to draft → group (already normalised);
    a draft the mapping lacks is ``unrecorded``; groups of fewer than ``min_drafts`` drafts become ``other``.
    """
    votes = T.vote_frame(samples)
    votes = votes[votes["truth"].isin(T.VOTES)]
    items = sorted(votes["item"].unique())
    rows = []
    for by, mapping in groups.items():
        pooled = pooled_groups({i: mapping.get(i, UNRECORDED) for i in items}, min_drafts=min_drafts)
        group_of = votes["item"].map(pooled)
        order = [g for g in pd.Series(list(pooled.values())).value_counts().index if g != OTHER]
        order += [OTHER] if OTHER in set(pooled.values()) else []
        for group in order:
            for nation in T.persona_order(votes["persona"].unique()):
                part = votes[group_of.eq(group) & votes["persona"].eq(nation)]
                if part.empty:
                    continue
                _, conf = per_item_confusion(
                    part,
                    item_col="item",
                    truth_col="truth",
                    pred_col="answer",
                    labels=T.VOTES,
                    misses=T.MISSES,
                )
                f1, acc = bootstrap_cis(conf, _scores, n_resamples=n_resamples, seed=seed)
                rows.append(
                    {
                        "by": by,
                        "group": group,
                        "nation": nation,
                        "n_drafts": int(part["item"].nunique()),
                        "n_questions": len(part),
                        "weighted_f1": f1.point,
                        "low": f1.low,
                        "high": f1.high,
                        "accuracy": acc.point,
                        "accuracy_low": acc.low,
                        "accuracy_high": acc.high,
                    }
                )
    return pd.DataFrame(rows, columns=COLUMNS)
