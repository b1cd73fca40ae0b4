"""The vote tests' report sections (paper Tables 1–5 and the leak audit), shared by vote and debias."""

from __future__ import annotations

from typing import Any

import pandas as pd

from evals import figures as F
from evals import results as R
from evals import tables as T
from evals.bias_tests.vote_assembly import assembly_section
from evals.bias_tests.vote_groups import groups_section
from evals.bias_tests.vote_precedents import precedents_section
from evals.bias_tests.vote_precedents_unga import assembly_precedents_section
from evals.bootstrap import paired_bootstrap_delta, per_item_confusion
from evals.paper import paper_model_name, published_ablation, published_vote_counts, published_weighted_f1
from evals.report_context import Context, Run, with_ci
from evals.report_leak import leak_section

VOTE_TESTS = ("vote", "debias")


def paired_debias(base: Run, debiased: Run, *, n_resamples: int, seed: int) -> pd.DataFrame:
    """Table 3 for one model, with a paired bootstrap on the drafts both runs share.

    Every question counts (an invalid or errored answer is a miss), as in the headline score.
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


def _table1(ctx: Context) -> None:
    for run in ctx.of(*VOTE_TESTS):
        counts = run.tables["vote_counts"]
        ci = R.vote_share_ci(run.samples, n_resamples=ctx.n_resamples, seed=ctx.seed)
        table = counts.merge(ci[["persona", "vote", "low", "high"]], on=["persona", "vote"], how="left")
        table["share_95ci"] = with_ci(table, "share")
        paper = published_votes(run.model).pivot_table(
            index=["nation", "vote"], columns="source", values="mean_count", aggfunc="first"
        )
        paper.columns = [f"paper_{c}" for c in paper.columns]
        table = table.merge(paper, left_on=["persona", "vote"], right_index=True, how="left")
        table = table.drop(columns=["low", "high"])
        ctx.page.table(
            table,
            table_id=f"table1-{run.slug}",
            caption=f"Table 1 analogue — vote counts (mean of repeats) vs ground truth: {run.label}",
        )
        path = F.vote_distribution_figure(
            counts, ctx.page.out_dir / f"votes-{run.slug}.png", model=run.model, embedded=run.embedded
        )
        ctx.page.figure(path, alt=f"Stacked vote shares per persona, ground truth vs simulation, {run.label}")
    ctx.page.note(
        "Shares are of all samples, with 95% bootstrap CIs resampling drafts. Invalid answers are counted."
    )
    ctx.page.close("table1", "Table 1 — simulated votes vs ground truth")


def _f1_rows(ctx: Context, run: Run) -> pd.DataFrame:
    table = run.tables["weighted_f1"]
    ci = R.weighted_f1_ci_table(run.samples, n_resamples=ctx.n_resamples, seed=ctx.seed)
    return table.merge(ci, on="persona", how="left")


def _normalise_baselines(baselines: pd.DataFrame | None) -> pd.DataFrame | None:
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


def _table2(ctx: Context) -> None:
    series = []
    for run in ctx.of(*VOTE_TESTS):
        rows = _f1_rows(ctx, run)
        series.append(rows.assign(series=run.label)[["series", "persona", "point", "low", "high"]])
        table = rows.assign(pooled_95ci=with_ci(rows.rename(columns={"point": "p"}), "p"))
        table = table.drop(columns=["point", "low", "high"])
        paper = published_f1(run.model, debiased=run.test == "debias")
        if len(paper):
            table["paper_weighted_f1"] = table["persona"].map(paper)
        ctx.page.table(
            table,
            table_id=f"table2-{run.slug}",
            caption=f"Table 2 analogue — weighted F1 per persona (pooled with 95% CI): {run.label}",
        )
    ctx.page.note(
        "Weighted F1 counts every question: an invalid or errored answer is a miss for its true class"
        " (its own column in the confusion matrix), with invalid_rate and error_rate beside the score;"
        " weighted_f1_valid_only leaves failed answers out, for reference only."
    )
    baselines = _normalise_baselines(ctx.baselines)
    if ctx.baselines is not None and not ctx.baselines.empty:
        shown = ctx.baselines.reset_index() if ctx.baselines.index.name else ctx.baselines
        ctx.page.table(shown, table_id="table2-baselines", caption="Non-LLM baselines (weighted F1)")
        if (bar := learned_vs_paper(baselines)) is not None:
            ctx.page.note(bar)
    path = F.weighted_f1_figure(
        pd.concat(series, ignore_index=True),
        ctx.page.out_dir / "weighted-f1.png",
        title="Weighted F1 per persona (95% bootstrap CI over drafts)",
        embedded=any(r.embedded for r in ctx.of(*VOTE_TESTS)),
        baselines=baselines,
    )
    ctx.page.figure(path, alt="Weighted F1 per persona with 95% confidence intervals and baselines")
    ctx.page.close("table2", "Table 2 — weighted F1 per persona")


def _confusion(ctx: Context) -> None:
    for run in ctx.of(*VOTE_TESTS):
        path = F.confusion_figure(
            run.tables["confusion"],
            ctx.page.out_dir / f"confusion-{run.slug}.png",
            model=run.model,
            embedded=run.embedded,
        )
        ctx.page.figure(path, alt=f"Confusion matrices (truth × simulated vote) per persona, {run.label}")
        ctx.page.table(
            run.tables["confusion"],
            table_id=f"confusion-{run.slug}",
            caption=f"Confusion counts pooled over repeats, invalid and error as columns: {run.label}",
        )
    ctx.page.close("confusion", "Confusion matrices")


def _table3(ctx: Context) -> None:
    for debiased in ctx.of("debias"):
        bases = [r for r in ctx.of("vote") if r.model == debiased.model]
        if not bases:
            ctx.page.note(f"No plain vote run of {debiased.model} in this report: no Table 3 row for it.")
            continue
        base = bases[0]
        table = paired_debias(base, debiased, n_resamples=ctx.n_resamples, seed=ctx.seed)
        for flag, column in ((False, "paper_base"), (True, "paper_debiased")):
            paper = published_f1(debiased.model, debiased=flag)
            if len(paper):
                table[column] = table["persona"].map(paper)
        ctx.page.table(
            table,
            table_id=f"table3-{debiased.slug}",
            caption=f"Table 3 analogue — {base.run_id} (base) vs {debiased.run_id} (debiased), same drafts",
        )
    ctx.page.note(
        "Deltas: debiased − base, every question counted (invalid or errored = miss); the CI is a paired"
        " bootstrap over the drafts both runs share. delta_valid_only leaves failed answers out."
    )
    ctx.page.close("table3", "Table 3 — debiased vs base")


def _table4(ctx: Context) -> None:
    runs = ctx.of(*VOTE_TESTS)
    if not ctx.of("debias"):
        return
    table = T.ablation_table([(r.config, r.samples) for r in runs])
    baselines = _normalise_baselines(ctx.baselines)
    if baselines is not None:  # the bar beside the cells: each baseline's mean over the same personas
        means = baselines.groupby("baseline", sort=False)["weighted_f1"].mean()
        rows = pd.DataFrame(
            {"model": [f"baseline: {b}" for b in means.index], "mean_weighted_f1": means.values}
        )
        table = pd.concat(
            [table, rows.assign(k=0, reflexion=False, retriever="none", n_runs=0)], ignore_index=True
        )
    ctx.page.table(
        table,
        table_id="table4-ablation",
        caption="Table 4 analogue — mean weighted F1 per cell (every question; invalid rate beside), and the"
        " non-LLM baselines on the same drafts",
    )
    for model in sorted({r.model for r in runs}):
        paper = published_ablation_for(model)
        if len(paper):
            ctx.page.table(
                paper,
                table_id=f"table4-paper-{paper_model_name(model)}",
                caption=f"Published Table 4 for {paper_model_name(model)}",
            )
    ctx.page.close("table4", "Table 4 — ablation (k × reflexion × retriever)")


def _table5(ctx: Context) -> None:
    runs = ctx.of(*VOTE_TESTS)
    wide: pd.DataFrame | None = None
    for run in runs:
        counts = run.tables["vote_counts"]
        cell = [f"{m:.1f} ({s:.2f})" for m, s in zip(counts["mean_count"], counts["share"], strict=True)]
        part = counts[["persona", "vote"]].assign(**{run.label: cell})
        if wide is None:
            truth = [
                "—" if pd.isna(g) else f"{g:.0f} ({s:.2f})"
                for g, s in zip(counts["ground_truth"], counts["ground_truth_share"], strict=True)
            ]
            wide = part[["persona", "vote"]].assign(ground_truth=truth)
        wide = wide.merge(part, on=["persona", "vote"], how="outer")
    if wide is not None:
        ctx.page.table(
            wide,
            table_id="table5-vote-distribution",
            caption="Table 5 analogue — vote counts (share) per run, ground truth beside",
        )
        ctx.page.close("table5", "Table 5 — vote distributions across runs")


VOTE_SECTIONS = (
    _table1,
    _table2,
    _confusion,
    assembly_section,
    groups_section,
    _table3,
    _table4,
    _table5,
    precedents_section,
    assembly_precedents_section,
    leak_section,
)
