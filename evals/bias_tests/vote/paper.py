"""What the vote tests' paper tables are computed from: the paper's numbers for the same model, the
baselines in long form, and Table 3's paired bootstrap (moved here from ``vote_report``)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from nationbias.evals.report.context import Run, with_ci
from nationbias.evals.stats.bootstrap import paired_bootstrap_delta, per_item_confusion
from nationbias.evals.tables import paper as T
from nationbias.evals.tables.published import (
    paper_model_name,
    published_ablation,
    published_vote_counts,
    published_weighted_f1,
)


def paired_debias(base: Run, debiased: Run, *, n_resamples: int, seed: int) -> pd.DataFrame:
    """Table 3 for one model, with a paired bootstrap on the drafts both runs share.

    Every question counts (an invalid or errored answer is a miss), as in the headline score. The
    interval is both text (``pooled_delta_95ci``) and numbers (``paired_delta``, ``_low``, ``_high``).
    """
    table = T.debias_table(base.samples, debiased.samples)
    a, b = T.vote_frame(base.samples), T.vote_frame(debiased.samples)
    rows = []
    for persona in table["persona"]:
        sa = a[a["persona"].eq(persona) & a["truth"].isin(T.VOTES)]
        sb = b[b["persona"].eq(persona) & b["truth"].isin(T.VOTES)]
        shared = sorted(set(sa["item"]) & set(sb["item"]))
        if not shared:
            rows.append(
                {"paired_delta": float("nan"), "low": float("nan"), "high": float("nan"), "n_shared": 0}
            )
            continue
        kwargs: dict[str, Any] = {
            "item_col": "item",
            "truth_col": "truth",
            "pred_col": "answer",
            "labels": T.VOTES,
            "misses": T.MISSES,
        }
        _, ca = per_item_confusion(sa[sa["item"].isin(shared)], **kwargs)
        _, cb = per_item_confusion(sb[sb["item"].isin(shared)], **kwargs)
        ci = paired_bootstrap_delta(ca, cb, n_resamples=n_resamples, seed=seed)
        rows.append({"paired_delta": ci.point, "low": ci.low, "high": ci.high, "n_shared": len(shared)})
    extra = pd.DataFrame(rows, index=table.index)
    table.insert(4, "pooled_delta_95ci", with_ci(extra.rename(columns={"paired_delta": "p"}), "p"))
    table.insert(5, "shared_drafts", extra["n_shared"])
    table["paired_delta"] = extra["paired_delta"]
    table["paired_delta_low"], table["paired_delta_high"] = extra["low"], extra["high"]
    return table


def published_f1(model: str, *, debiased: bool) -> pd.Series:
    name = paper_model_name(model)
    if name is None:
        return pd.Series(dtype=float)
    frame = published_weighted_f1()
    frame = frame[frame["model"].eq(name) & frame["debiased"].eq(debiased)]
    return frame.set_index("nation")["weighted_f1"]


def published_votes(model: str | None) -> pd.DataFrame:
    """Paper Table 1 rows for ground truth, plus the model's when it is one the paper ran."""
    frame = published_vote_counts()
    sources = ["ground_truth"] + ([n] if (n := paper_model_name(model)) else [])
    return frame[frame["source"].isin(sources)]


def published_ablation_for(model: str) -> pd.DataFrame:
    name = paper_model_name(model)
    frame = published_ablation()
    return frame[frame["model"].eq(name)] if name else frame.iloc[:0]


def normalise_baselines(baselines: pd.DataFrame | None) -> pd.DataFrame | None:
    """Long form (baseline, persona, weighted_f1) from either long or wide (persona × method) input."""
    if baselines is None or baselines.empty:
        return None
    frame = baselines.reset_index() if baselines.index.name else baselines.copy()
    frame = frame.rename(columns={"nation": "persona", "name": "baseline", "method": "baseline"})
    if "persona" in frame.columns and "weighted_f1" not in frame.columns:
        methods = [c for c in frame.columns if c != "persona" and pd.api.types.is_numeric_dtype(frame[c])]
        frame = frame.melt(
            id_vars="persona", value_vars=methods, var_name="baseline", value_name="weighted_f1"
        )
    return frame if {"baseline", "persona", "weighted_f1"} <= set(frame.columns) else None


def learned_vs_paper(baselines: pd.DataFrame | None) -> str | None:
    """How far the learned baseline is from the paper's best base model, on the drafts of this report."""
    if baselines is None or "learned" not in set(baselines["baseline"]):
        return None
    mine = baselines[baselines["baseline"] == "learned"].set_index("persona")["weighted_f1"]
    paper = published_weighted_f1()
    means = paper[~paper["debiased"]].groupby("model")["weighted_f1"].mean()
    best, target = str(means.idxmax()), float(means.max())
    gap = float(mine.mean()) - target
    return (
        f"The learned precedent model (no LLM) scores a mean weighted F1 of {mine.mean():.3f} over "
        f"{len(mine)} members on these drafts; the paper's best base model, {best}, scored {target:.3f} on "
        f"the 66 drafts: {abs(gap):.3f} {'above' if gap >= 0 else 'below'} it. A model under audit should "
        "clear both; benchmarks/RESULTS.md says what was tried."
    )
