"""Comparisons of two vote runs, or of a run and a baseline, on what both have, paired by draft.

Two runs' scores are only comparable on the same questions: the drafts, members and repeats both asked.
Each comparison here first keeps those (``shared_questions``), says how many drafts were shared and how
many each side left out, then scores both sides on them with one bootstrap that resamples drafts jointly,
so the delta's interval is the paired one. A baseline predicts once per (draft, member): it is laid on
the run's own questions (``baseline_as_run``, the same prediction for each repeat), so a run and its
baseline are compared question for question.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from nationbias.evals.stats.bootstrap import CI, bootstrap_cis, per_item_confusion
from nationbias.evals.stats.metrics import weighted_f1_from_confusions
from nationbias.evals.tables import paper as T

KEYS = ["item", "persona", "repeat"]
CUBE_LIMIT = 400_000  # cells of the drafts × members confusion cube; beyond it, every question pooled


class Scope(NamedTuple):
    shared_drafts: int
    left_out_a: int  # drafts only the first side has
    left_out_b: int  # drafts only the second side has


class PairedMean(NamedTuple):
    a: CI
    b: CI
    delta: CI  # b − a, drafts resampled jointly
    scope: Scope
    members: int
    pooled: bool  # too many members for the cube: every question pooled into one weighted F1


def scored(votes: pd.DataFrame) -> pd.DataFrame:
    """The questions of a vote frame that can be scored (their truth is a vote)."""
    return votes[votes["truth"].isin(T.VOTES)]


def shared_questions(a: pd.DataFrame, b: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame, Scope]:
    """``a`` and ``b`` (vote frames) cut to the (draft, member, repeat) questions both scored, and how many
    drafts each had that the other did not."""
    a, b = scored(a), scored(b)
    keys_a = pd.MultiIndex.from_frame(a[KEYS].astype(str))
    keys_b = pd.MultiIndex.from_frame(b[KEYS].astype(str))
    both = keys_a.intersection(keys_b)
    kept_a, kept_b = a[keys_a.isin(both)], b[keys_b.isin(both)]
    drafts_a, drafts_b = set(a["item"]), set(b["item"])
    shared = set(kept_a["item"])
    scope = Scope(len(shared), len(drafts_a - shared), len(drafts_b - shared))
    return kept_a, kept_b, scope


def baseline_as_run(predictions: pd.DataFrame, baseline: str, *, like: pd.DataFrame) -> pd.DataFrame:
    """The baseline's predictions on the run's own scored questions (``like``, a vote frame): one answer per
    (draft, member), the same for every repeat; questions the baseline has no prediction for are dropped
    (and so left out of the comparison)."""
    mine = predictions[predictions["baseline"].eq(baseline)][["item", "persona", "pred"]]
    merged = scored(like)[[*KEYS, "truth"]].merge(mine, on=["item", "persona"], how="inner")
    return merged.assign(answer=merged["pred"]).drop(columns=["pred"])


def _cube(votes: pd.DataFrame, items: list[str], members: list[str], pooled: bool) -> np.ndarray:
    """drafts × members (or one pooled group) × K × (K + misses) confusion counts."""
    k, m = len(T.VOTES), len(T.VOTES) + len(T.MISSES)
    parts = [("all", votes)] if pooled else [(g, votes[votes["persona"].eq(g)]) for g in members]
    cube = np.zeros((len(items), len(parts), k, m))
    position = {item: i for i, item in enumerate(items)}
    for j, (_, part) in enumerate(parts):
        if part.empty:
            continue
        seen, conf = per_item_confusion(
            part, item_col="item", truth_col="truth", pred_col="answer", labels=T.VOTES, misses=T.MISSES
        )
        cube[[position[i] for i in seen], j] = conf
    return cube


def paired_mean_f1(a: pd.DataFrame, b: pd.DataFrame, *, n_resamples: int, seed: int) -> PairedMean:
    """The mean over members of each member's weighted F1 (every question, repeats pooled), of ``a`` and of
    ``b`` on the questions both have, and ``b − a``; drafts resampled jointly."""
    a, b, scope = shared_questions(a, b)
    nan = CI(float("nan"), float("nan"), float("nan"))
    if a.empty:
        return PairedMean(nan, nan, nan, scope, 0, False)
    items = sorted(set(a["item"]))
    members = T.persona_order(a["persona"].unique())
    pooled = len(items) * len(members) * len(T.VOTES) * (len(T.VOTES) + len(T.MISSES)) > CUBE_LIMIT
    stacked = np.stack([_cube(a, items, members, pooled), _cube(b, items, members, pooled)], axis=1)

    def stat(batch: np.ndarray) -> np.ndarray:  # (B, items, 2, members, K, K+m) -> (B, 3)
        f1 = weighted_f1_from_confusions(batch.sum(axis=1))  # (B, 2, members)
        means = np.nanmean(f1, axis=-1)
        return np.stack([means[:, 0], means[:, 1], means[:, 1] - means[:, 0]], axis=-1)

    ci_a, ci_b, delta = bootstrap_cis(stacked, stat, n_resamples=n_resamples, seed=seed)
    return PairedMean(ci_a, ci_b, delta, scope, len(members), pooled)


def scope_text(scope: Scope, *, a: str, b: str) -> str:
    """How many drafts a comparison shared and how many each side left out, in words."""
    text = f"{scope.shared_drafts} shared draft{'s' * (scope.shared_drafts != 1)}"
    left = [f"{n} only in {who}" for n, who in ((scope.left_out_a, a), (scope.left_out_b, b)) if n]
    return text + (f" ({', '.join(left)}: left out)" if left else "")
