"""The vote tests' metrics section: accuracy, F1 per class, macro F1 and weighted F1 per member, each with
its interval, the always-favour voter on the same questions beside (evals/tables/vote_metrics.py)."""

from __future__ import annotations

import pandas as pd

from nationbias.evals.report.context import Context
from nationbias.evals.report.html_table import Cell
from nationbias.evals.stats.metrics import VOTE_METRICS
from nationbias.evals.tables.vote_metrics import ALWAYS_FAVOUR, vote_metrics_table
from nationbias.stores.domain import VOTE_TESTS

HEADINGS = {
    "accuracy": "accuracy",
    "f1_favour": "F1 favour",
    "f1_against": "F1 against",
    "f1_abstention": "F1 abstention",
    "macro_f1": "macro F1",
    "weighted_f1": "weighted F1",
}


def _span(low: float, high: float, sign: str = "") -> str | None:
    return None if pd.isna(low) or pd.isna(high) else f"[{low:{sign}.2f}, {high:{sign}.2f}]"


def metrics_compact(table: pd.DataFrame) -> pd.DataFrame:
    """Per member two rows: the run (each metric with its interval under it) and the always-favour voter on
    the same questions (the run minus it, with its paired interval, under it)."""
    rows: dict[str, dict[str, Cell]] = {}
    for persona, part in table.groupby("persona", sort=False):
        by = part.set_index("metric").to_dict("index")
        own: dict[str, Cell] = {}
        favour: dict[str, Cell] = {}
        for metric in VOTE_METRICS:
            r = by[metric]
            span = _span(float(r["low"]), float(r["high"]))
            own[HEADINGS[metric]] = Cell("—" if pd.isna(r["point"]) else f"{r['point']:.2f}", under=span)
            delta = _span(float(r["delta_low"]), float(r["delta_high"]), "+")
            favour[HEADINGS[metric]] = Cell(
                "—" if pd.isna(r["always_favour"]) else f"{r['always_favour']:.2f}",
                under=f"Δ {r['delta_vs_favour']:+.2f} {delta}" if delta else None,
            )
        rows[str(persona)] = own
        rows[f"{persona} · {ALWAYS_FAVOUR}"] = favour
    frame = pd.DataFrame.from_dict(rows, orient="index", columns=list(HEADINGS.values()))
    frame.index.name = "member"
    return frame


def metrics_section(ctx: Context) -> None:
    runs = ctx.of(*VOTE_TESTS)
    if not runs:
        return
    for run in runs:
        table = vote_metrics_table(run.samples, n_resamples=ctx.n_resamples, seed=ctx.seed)
        if table.empty:
            continue
        ctx.page.table(
            table,
            table_id=f"metrics-{run.slug}",
            caption=f"Accuracy, F1 per class, macro F1 and weighted F1 per member, 95% interval under each;"
            f" the always-favour voter on the same questions below each member: {run.label}",
            shown=metrics_compact(table),
        )
    ctx.page.note(
        "Every question counts (an invalid or errored answer is wrong and a miss of its true class);"
        " repeats pooled; intervals resample drafts. F1 per class is that vote's own F1; macro F1 is their"
        " plain mean, so a voter that never says against or abstention scores 0 on those and at most 1/3"
        " overall; weighted F1 (the paper's) weights each class by how often it is the true vote and so"
        " flatters favour, the commonest. The always-favour row says favour to every question the run"
        " asked; Δ is the run minus it, its interval paired by draft: a model that is not above it has"
        " learned nothing a constant could not."
    )
    ctx.page.close("metrics", "Vote metrics — accuracy, F1 per class, macro and weighted F1")
