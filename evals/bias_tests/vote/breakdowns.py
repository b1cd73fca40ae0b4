"""The vote tests' breakdowns: each nation's weighted F1 by the drafts' topic and region, with intervals, as
one compact figure and a CSV (evals/tables/breakdowns.py)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from nationbias.evals.report import figures as F
from nationbias.evals.report.context import Context, Run
from nationbias.evals.tables.breakdowns import MIN_DRAFTS, breakdown_table, normal_region, normal_topic
from nationbias.stores.domain import VOTE_TESTS


def corpus_groups(run: Run) -> dict[str, dict[str, str]] | None:
    """topic and region per draft of a Council run (normalised), from the corpus; None for a run whose
    items are not the corpus's drafts (the Assembly's roll calls)."""
    if (run.config.get("sample") or {}).get("body") == "unga":
        return None
    from nationbias.stores.corpora.corpus import load_corpus

    drafts = {d.id: d for d in load_corpus().drafts}
    items = set(run.samples["item"])
    if not items or not items <= set(drafts):
        return None
    return {
        "topic": {i: normal_topic(drafts[i].topic) for i in items},
        "region": {i: normal_region(drafts[i].region) for i in items},
    }


def breakdown_figure(table: pd.DataFrame, path: Path, *, model: str, embedded: bool) -> Path:
    """One panel per breakdown: a row per group, each nation's weighted F1 as a dot with its interval."""
    F.use_agg()
    import matplotlib.pyplot as plt

    parts = list(table.groupby("by", sort=False))
    heights = [max(1.6, 0.55 * part["group"].nunique() + 0.8) for _, part in parts]
    fig, axes = plt.subplots(
        len(parts), 1, figsize=(9.0, sum(heights) + 0.8), squeeze=False, height_ratios=heights
    )
    for ax, (by, part) in zip(axes[:, 0], parts, strict=True):
        groups = list(dict.fromkeys(part["group"]))
        nations = list(dict.fromkeys(part["nation"]))
        step = 0.7 / max(1, len(nations))
        for j, nation in enumerate(nations):
            mine = part[part["nation"].eq(nation)].set_index("group").reindex(groups)
            y = [i + (j - (len(nations) - 1) / 2) * step for i in range(len(groups))]
            err = [
                (mine["weighted_f1"] - mine["low"]).clip(lower=0).fillna(0),
                (mine["high"] - mine["weighted_f1"]).clip(lower=0).fillna(0),
            ]
            ax.errorbar(
                mine["weighted_f1"], y, xerr=err, fmt="o", ms=5, capsize=2, label=nation,
                color=F.NATION_COLOURS.get(nation, "#444444"),
            )  # fmt: skip
        counts = part.groupby("group", sort=False)["n_drafts"].max()
        ax.set_yticks(range(len(groups)), [f"{g} ({int(counts[g])})" for g in groups], fontsize=10)
        ax.invert_yaxis()
        ax.set_xlim(-0.02, 1.02)
        ax.set_xlabel("weighted F1 (95% interval, drafts resampled)")
        ax.set_title(f"by {by} (drafts in brackets)", fontsize=11)
        ax.grid(axis="x", alpha=0.3)
    axes[0, 0].legend(ncol=min(5, len(table["nation"].unique())), fontsize=9, loc="lower right")
    return F.finish_figure(fig, path, title=f"Weighted F1 by topic and region: {model}", embedded=embedded)


def breakdowns_section(ctx: Context) -> None:
    wrote = False
    for run in ctx.of(*VOTE_TESTS):
        groups = corpus_groups(run)
        if groups is None:
            continue
        table = breakdown_table(run.samples, groups, n_resamples=ctx.n_resamples, seed=ctx.seed)
        if table.empty:
            continue
        ctx.page.table(
            table,
            table_id=f"breakdowns-{run.slug}",
            caption=f"Weighted F1 and accuracy per nation by topic and by region, 95% intervals: {run.label}",
        )
        path = breakdown_figure(
            table, ctx.page.out_dir / f"breakdowns-{run.slug}.png", model=run.model, embedded=run.embedded
        )
        ctx.page.figure(path, alt=f"Weighted F1 per nation by topic and by region, {run.label}")
        wrote = True
    if not wrote:
        return
    ctx.page.note(
        f"Topics as the corpus records them, normalised (the Palestinian question's two spellings are one);"
        f" a missing topic or region is shown as unrecorded; a group with fewer than {MIN_DRAFTS} of the"
        " run's drafts is pooled into other. Every question counts (a failed answer is a miss), repeats"
        " pooled; each interval resamples the group's drafts, so a group of a few drafts has a wide one."
    )
    ctx.page.close("breakdowns", "Scores by topic and region")
