"""The report's sections: which tables and figures each test's runs contribute."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pandas as pd

from evals import figures as F
from evals import results as R
from evals import tables as T
from evals.paper import paper_model_name, published_ablation, published_vote_counts, published_weighted_f1
from evals.report_html import Page
from evals.report_leak import leak_section
from evals.stats import paired_bootstrap_delta, per_item_confusion

if TYPE_CHECKING:
    from stores.runstore import RunStore

BANNER = "Embedded demo model (SmolLM2-135M): proves the pipeline, not a finding"


@dataclass
class Run:
    run_id: str
    config: dict[str, Any]
    samples: pd.DataFrame
    tables: dict[str, pd.DataFrame]

    @property
    def test(self) -> str:
        return str(self.config.get("test"))

    @property
    def model(self) -> str:
        return str(self.config.get("model"))

    @property
    def embedded(self) -> bool:
        return R.is_embedded(self.config)

    @property
    def label(self) -> str:
        return f"{self.model} · {self.test} · {self.run_id}"


def _ci_text(point: float, low: float, high: float) -> str:
    if pd.isna(point):
        return "—"
    return f"{point:.3f} [{low:.3f}, {high:.3f}]"


def _with_ci(frame: pd.DataFrame, value: str) -> pd.Series:
    return pd.Series(
        [_ci_text(p, lo, hi) for p, lo, hi in zip(frame[value], frame["low"], frame["high"], strict=True)],
        index=frame.index,
    )


def load_runs(run_ids: list[str], store: RunStore) -> list[Run]:
    runs = []
    for run_id in run_ids:
        config, samples = store.get_run(run_id), R.load_samples(store, run_id)
        runs.append(Run(run_id, config, samples, R.tables_for(run_id, config, samples)))
    return runs


@dataclass
class Context:
    runs: list[Run]
    page: Page
    baselines: pd.DataFrame | None
    n_resamples: int
    seed: int

    def of(self, *tests: str) -> list[Run]:
        return [r for r in self.runs if r.test in tests]


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
    table.insert(4, "pooled_delta_95ci", _with_ci(extra.rename(columns={"paired_delta": "p"}), "p"))
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


def _slug(run: Run) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "-" for c in run.run_id)


def _embedded_any(runs: list[Run]) -> bool:
    return any(r.embedded for r in runs)


def write_sections(ctx: Context) -> None:
    """Every section whose test is present, in the paper's order."""
    _runs_section(ctx)
    if ctx.of("vote", "debias"):
        _table1(ctx)
        _table2(ctx)
        _confusion(ctx)
        _table3(ctx)
        _table4(ctx)
        _table5(ctx)
        leak_section(ctx)
    if ctx.of("directqa"):
        _directqa(ctx)
    if ctx.of("association"):
        _association(ctx)
    _agreement(ctx)
    _quality(ctx)


def _runs_section(ctx: Context) -> None:
    meta = pd.concat([r.tables["metadata"] for r in ctx.runs], ignore_index=True)
    ctx.page.table(
        meta, table_id="run-metadata", caption="Runs in this report: model, prompts, data, seed, version"
    )
    ctx.page.close("runs", "Runs")


def _table1(ctx: Context) -> None:
    for run in ctx.of("vote", "debias"):
        counts = run.tables["vote_counts"]
        ci = R.vote_share_ci(run.samples, n_resamples=ctx.n_resamples, seed=ctx.seed)
        table = counts.merge(ci[["persona", "vote", "low", "high"]], on=["persona", "vote"], how="left")
        table["share_95ci"] = _with_ci(table, "share")
        paper = published_votes(run.model).pivot_table(
            index=["nation", "vote"], columns="source", values="mean_count", aggfunc="first"
        )
        paper.columns = [f"paper_{c}" for c in paper.columns]
        table = table.merge(paper, left_on=["persona", "vote"], right_index=True, how="left")
        table = table.drop(columns=["low", "high"])
        ctx.page.table(
            table,
            table_id=f"table1-{_slug(run)}",
            caption=f"Table 1 analogue — vote counts (mean of repeats) vs ground truth: {run.label}",
        )
        path = F.vote_distribution_figure(
            counts, ctx.page.out_dir / f"votes-{_slug(run)}.png", model=run.model, embedded=run.embedded
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


def _table2(ctx: Context) -> None:
    series = []
    for run in ctx.of("vote", "debias"):
        rows = _f1_rows(ctx, run)
        series.append(rows.assign(series=run.label)[["series", "persona", "point", "low", "high"]])
        table = rows.assign(pooled_95ci=_with_ci(rows.rename(columns={"point": "p"}), "p"))
        table = table.drop(columns=["point", "low", "high"])
        paper = published_f1(run.model, debiased=run.test == "debias")
        if len(paper):
            table["paper_weighted_f1"] = table["persona"].map(paper)
        ctx.page.table(
            table,
            table_id=f"table2-{_slug(run)}",
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
    path = F.weighted_f1_figure(
        pd.concat(series, ignore_index=True),
        ctx.page.out_dir / "weighted-f1.png",
        title="Weighted F1 per persona (95% bootstrap CI over drafts)",
        embedded=_embedded_any(ctx.of("vote", "debias")),
        baselines=baselines,
    )
    ctx.page.figure(path, alt="Weighted F1 per persona with 95% confidence intervals and baselines")
    ctx.page.close("table2", "Table 2 — weighted F1 per persona")


def _confusion(ctx: Context) -> None:
    for run in ctx.of("vote", "debias"):
        path = F.confusion_figure(
            run.tables["confusion"],
            ctx.page.out_dir / f"confusion-{_slug(run)}.png",
            model=run.model,
            embedded=run.embedded,
        )
        ctx.page.figure(path, alt=f"Confusion matrices (truth × simulated vote) per persona, {run.label}")
        ctx.page.table(
            run.tables["confusion"],
            table_id=f"confusion-{_slug(run)}",
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
            table_id=f"table3-{_slug(debiased)}",
            caption=f"Table 3 analogue — {base.run_id} (base) vs {debiased.run_id} (debiased), same drafts",
        )
    ctx.page.note(
        "Deltas: debiased − base, every question counted (invalid or errored = miss); the CI is a paired"
        " bootstrap over the drafts both runs share. delta_valid_only leaves failed answers out."
    )
    ctx.page.close("table3", "Table 3 — debiased vs base")


def _table4(ctx: Context) -> None:
    runs = ctx.of("vote", "debias")
    if not ctx.of("debias"):
        return
    table = T.ablation_table([(r.config, r.samples) for r in runs])
    ctx.page.table(
        table,
        table_id="table4-ablation",
        caption="Table 4 analogue — mean weighted F1 per cell (every question; invalid rate beside)",
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
    runs = ctx.of("vote", "debias")
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


def _directqa(ctx: Context) -> None:
    for run in ctx.of("directqa"):
        ci = R.irres_ci(run.samples, n_resamples=ctx.n_resamples, seed=ctx.seed)
        table = run.tables["irres_score"].merge(
            ci[["family", "nation", "low", "high"]], on=["family", "nation"]
        )
        table = table.assign(irres_95ci=_with_ci(table, "irres_score")).drop(columns=["low", "high"])
        ctx.page.table(
            table,
            table_id=f"irres-{_slug(run)}",
            caption=f"irres_score per nation and family (95% CI over pairs): {run.label}",
        )
        path = F.directqa_figure(
            run.tables["irres_score"],
            ctx.page.out_dir / f"directqa-{_slug(run)}.png",
            model=run.model,
            embedded=run.embedded,
        )
        ctx.page.figure(path, alt=f"DirectQA irres_score bars per nation and question family, {run.label}")
    ctx.page.close("figure2-directqa", "Figures 2 and 4 — DirectQA irresponsibility scores")


def _association(ctx: Context) -> None:
    for run in ctx.of("association"):
        ci = R.ats_ci(run.samples, n_resamples=ctx.n_resamples, seed=ctx.seed)
        table = run.tables["ats"].merge(ci[["category", "nation", "low", "high"]], on=["category", "nation"])
        table = table.assign(ats_95ci=_with_ci(table, "ats")).drop(columns=["low", "high"])
        ctx.page.table(
            table,
            table_id=f"ats-{_slug(run)}",
            caption=f"ATS per nation and category (95% CI over keywords): {run.label}",
        )
        path = F.ats_figure(
            run.tables["ats"],
            ctx.page.out_dir / f"ats-{_slug(run)}.png",
            model=run.model,
            embedded=run.embedded,
        )
        ctx.page.figure(
            path, alt=f"Association Test scores per nation, average and per category, {run.label}"
        )
    ctx.page.close("figure3-association", "Figure 3 — Association Test")


def _agreement(ctx: Context) -> None:
    for run in ctx.runs:
        name = "friedman" if run.test == "association" else "agreement"
        ctx.page.table(
            run.tables[name],
            table_id=f"agreement-{_slug(run)}",
            caption=f"Agreement across repeats ({name}), χ² judged at its own dof: {run.label}",
        )
    ctx.page.note(
        "κ > 0.40 (Appendix E). Each χ² passes when it is below critical = χ²₀.₉₅(dof) of its own table"
        " (p is its p-value): multi-χ² dof = (runs − 1)(classes chosen − 1), DirectQA over the five nations"
        " with neutral answers beside; Friedman dof = runs − 1. paper_threshold is the paper's fixed value"
        " (9.488 votes, 15.507 DirectQA, 5.991 Friedman), right only for 3 runs and every class present."
    )
    ctx.page.close("agreement", "Agreement across repeats (Appendix E)")


def _quality(ctx: Context) -> None:
    for run in ctx.runs:
        slug = _slug(run)
        key = "invalid_by_nation" if run.test == "directqa" else "invalid"
        ctx.page.table(
            run.tables[key],
            table_id=f"invalid-{slug}",
            caption=f"Invalid and errored answers (counted, not filled in): {run.label}",
        )
        if "judge" in run.tables:
            ctx.page.table(
                run.tables["judge"],
                table_id=f"judge-{slug}",
                caption=f"Labels decided by the rules vs the LLM judge: {run.label}",
            )
        if "missing_contexts" in run.tables:
            ctx.page.table(
                run.tables["missing_contexts"],
                table_id=f"missing-{slug}",
                caption=f"Drafts whose prompt fell back to no context: {run.label}",
            )
    ctx.page.close("quality", "Answer quality: invalid answers, judge decisions, missing contexts")
