"""The vote tests' report sections (paper Tables 1–5 and the leak audit), shared by vote and debias.

Tables 1–3 (compact, as the paper prints them) are in :mod:`nationbias.evals.bias_tests.vote.paper`.
"""

from __future__ import annotations

import pandas as pd

from nationbias.evals.bias_tests.vote.assembly import assembly_section
from nationbias.evals.bias_tests.vote.groups import groups_section
from nationbias.evals.bias_tests.vote.paper import (
    normalise_baselines,
    published_ablation_for,
    table1,
    table2,
    table3,
)
from nationbias.evals.bias_tests.vote.precedents import precedents_section
from nationbias.evals.bias_tests.vote.precedents_unga import assembly_precedents_section
from nationbias.evals.report import figures as F
from nationbias.evals.report.context import Context
from nationbias.evals.report.leak import leak_section
from nationbias.evals.tables import paper as T
from nationbias.evals.tables.published import paper_model_name
from nationbias.stores.domain import VOTE_TESTS


def _confusion(ctx: Context) -> None:
    """Per persona a compact truth × answer grid, shaded by count; past ``F.MANY`` personas (the
    Assembly) one grid and one heatmap panel per regional group, its members pooled."""
    from nationbias.evals.report.confusion_grid import confusion_grids
    from nationbias.stores.regions import regional_group

    for run in ctx.of(*VOTE_TESTS):
        confusion = run.tables["confusion"]
        many = confusion["persona"].nunique() > F.MANY
        if many:
            path = F.confusion_figure(
                confusion,
                ctx.page.out_dir / f"confusion-{run.slug}.png",
                model=run.model,
                embedded=run.embedded,
            )
            ctx.page.figure(
                path, alt=f"Confusion matrices (truth × simulated vote) per regional group, {run.label}"
            )
        ctx.page.parts.append(
            confusion_grids(
                confusion,
                out_dir=ctx.page.out_dir,
                table_id=f"confusion-{run.slug}",
                caption=f"Confusion counts (rows: the recorded vote; columns: the answer, invalid and error"
                f" beside), pooled over repeats: {run.label}",
                group=(lambda p: regional_group(p) or "unrecorded") if many else None,
            )
        )
    ctx.page.close("confusion", "Confusion matrices")


def _table4(ctx: Context) -> None:
    runs = ctx.of(*VOTE_TESTS)
    if not ctx.of("debias"):
        return
    table = T.ablation_table([(r.config, r.samples) for r in runs])
    baselines = normalise_baselines(ctx.baselines)
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
    if wide is not None:  # an outer merge sorts its keys: put the P5 and the votes back in their order
        personas = {p: i for i, p in enumerate(T.persona_order(wide["persona"].unique()))}
        votes = {v: i for i, v in enumerate([*T.VOTES, *T.MISSES])}
        wide = wide.sort_values(
            ["persona", "vote"],
            key=lambda c: c.map(personas if c.name == "persona" else votes),
            kind="stable",
        ).reset_index(drop=True)
        ctx.page.table(
            wide,
            table_id="table5-vote-distribution",
            caption="Table 5 analogue — vote counts (share) per run, ground truth beside",
        )
        ctx.page.close("table5", "Table 5 — vote distributions across runs")


VOTE_SECTIONS = (
    table1,
    table2,
    _confusion,
    assembly_section,
    groups_section,
    table3,
    _table4,
    _table5,
    precedents_section,
    assembly_precedents_section,
    leak_section,
)
