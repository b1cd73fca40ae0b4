"""The vote tests' report sections (paper Tables 1–5 and the leak audit), shared by vote and debias.

Tables 1–3 (compact, as the paper prints them) are in :mod:`nationbias.evals.bias_tests.vote.paper`.
"""

from __future__ import annotations

import pandas as pd

from nationbias.evals.bias_tests.vote.assembly import assembly_section
from nationbias.evals.bias_tests.vote.breakdowns import breakdowns_section
from nationbias.evals.bias_tests.vote.control import control_section
from nationbias.evals.bias_tests.vote.false_veto import false_veto_section
from nationbias.evals.bias_tests.vote.groups import groups_section
from nationbias.evals.bias_tests.vote.metrics import metrics_section
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
from nationbias.evals.report.context import Context, Run, ci_text
from nationbias.evals.report.leak import leak_section
from nationbias.evals.tables import paper as T
from nationbias.evals.tables.paired import baseline_as_run, paired_mean_f1
from nationbias.evals.tables.published import paper_model_name
from nationbias.stores.domain import DEBIAS, VOTE_TESTS


def _confusion(ctx: Context) -> None:
    """Per persona a compact truth × answer grid, shaded by count; past ``F.MANY`` personas (the
    Assembly) one grid and one heatmap panel per regional group, its members pooled."""
    from nationbias.evals.report.confusion_grid import confusion_grids
    from nationbias.stores.corpora.regions import regional_group

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


def _common_questions(runs: list[Run]) -> tuple[list[pd.DataFrame], int, list[int]]:
    """Each run's samples cut to the (draft, member, repeat) questions every run scored; the shared drafts,
    and per run how many of its drafts were left out."""
    frames = [T.vote_frame(r.samples) for r in runs]
    scored = [v[v["truth"].isin(T.VOTES)] for v in frames]
    keys = pd.MultiIndex.from_frame(scored[0][["item", "persona", "repeat"]].astype(str))
    for votes in scored[1:]:
        keys = keys.intersection(pd.MultiIndex.from_frame(votes[["item", "persona", "repeat"]].astype(str)))
    cut, left = [], []
    shared = 0
    for run, votes in zip(runs, frames, strict=True):
        index = pd.MultiIndex.from_frame(votes[["item", "persona", "repeat"]].astype(str))
        kept = votes[index.isin(keys) & votes["truth"].isin(T.VOTES)]
        cut.append(run.samples.loc[kept.index])
        shared = kept["item"].nunique()
        left.append(int(votes.loc[votes["truth"].isin(T.VOTES), "item"].nunique() - shared))
    return cut, shared, left


def _table4(ctx: Context) -> None:
    runs = [r for r in ctx.of(*VOTE_TESTS) if not r.control]  # the control names no nation: no cell
    if not ctx.of("debias"):
        return
    samples, shared, left = _common_questions(runs)
    paired_bars = ctx.baseline_predictions is not None and not ctx.baseline_predictions.empty
    scope = "on the same drafts" if paired_bars else "as given, on the drafts scored (not paired)"
    table = T.ablation_table([(r.config, s) for r, s in zip(runs, samples, strict=True)], ablated=DEBIAS)
    table["shared_drafts"] = shared
    # each cell's score against the best baseline on the same questions, paired by draft
    predictions = ctx.baseline_predictions
    like = T.vote_frame(samples[0]) if samples and len(samples[0]) else None
    if predictions is not None and like is not None and not predictions.empty:
        bars = {
            str(name): baseline_as_run(predictions, str(name), like=like)
            for name in predictions["baseline"].unique()
        }
        scores = {
            name: paired_mean_f1(frame, like, n_resamples=ctx.n_resamples, seed=ctx.seed).a.point
            for name, frame in bars.items()
        }
        best = max(scores, key=lambda k: scores[k])
        cells = {}
        for run, part in zip(runs, samples, strict=True):
            r = paired_mean_f1(bars[best], T.vote_frame(part), n_resamples=ctx.n_resamples, seed=ctx.seed)
            cells[run.run_id] = (r.b.point, ci_text(r.delta.point, r.delta.low, r.delta.high))
        rows = pd.DataFrame(
            {
                "model": [f"baseline: {b}" for b in scores],
                "mean_weighted_f1": list(scores.values()),
                "shared_drafts": shared,
            }
        )
        paired = pd.DataFrame(
            [
                {"run": run.run_id, "drafts_left_out": n, "pooled_mean_f1": cells[run.run_id][0]}
                | {f"minus_{best}_95ci": cells[run.run_id][1]}
                for run, n in zip(runs, left, strict=True)
            ]
        )
        table = pd.concat(
            [table, rows.assign(k=0, reflexion=False, retriever="none", n_runs=0)], ignore_index=True
        )
        ctx.page.table(
            paired,
            table_id="table4-paired",
            caption=f"Table 4's runs against the best baseline ({best}) on the same questions,"
            " paired by draft",
        )
    elif (baselines := normalise_baselines(ctx.baselines)) is not None:
        # no per-draft predictions (the Assembly, or a report given scores only): each baseline's score as
        # given, on the drafts it was scored on, not paired
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
        caption=f"Table 4 analogue — mean weighted F1 per cell on the {shared} drafts every run asked"
        f" (every question; invalid rate beside), and the non-LLM baselines"
        f" {scope};"
        f" drafts left out per run: {', '.join(f'{r.run_id} {n}' for r, n in zip(runs, left, strict=True))}",
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
    metrics_section,
    control_section,
    _confusion,
    breakdowns_section,
    assembly_section,
    groups_section,
    table3,
    _table4,
    _table5,
    false_veto_section,
    precedents_section,
    assembly_precedents_section,
    leak_section,
)
