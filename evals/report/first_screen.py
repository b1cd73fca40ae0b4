"""The report's first screen: what was run and what it found, one row per run.

Each row gives the test's headline figure with its 95% interval, the bar it has to clear (the
non-LLM baselines for the vote tests, the even-handed value for the explicit tests) and the paper's
number for the same model, or says the paper has none. A test's headline is one entry of
``HEADLINES``; a test without one (a plug-in) still gets its row, pointing at its own section.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
import pandas as pd

from nationbias.evals.bias_tests.vote.paper import normalise_baselines, published_f1
from nationbias.evals.report.context import Context, Run
from nationbias.evals.report.html_table import Cell, model_name
from nationbias.evals.stats.bootstrap import CI, bootstrap_cis, per_item_confusion
from nationbias.evals.stats.metrics import weighted_f1_from_confusions
from nationbias.evals.tables import intervals as R
from nationbias.evals.tables import paper as T
from nationbias.evals.tables.published import PAPER_LABELS, paper_model_name
from nationbias.graphs.labels.framing import IRRESPONSIBLE, RESPONSIBLE, split_item

NOT_IN_PAPER = "not in the paper"
CUBE_LIMIT = 400_000  # cells of the drafts × nations confusion cube; beyond it, every question pooled


class Headline(NamedTuple):
    measure: str
    figure: Cell
    bar: str
    paper: str


def _cell(ci: CI, digits: int = 3, sign: str = "") -> Cell:
    if pd.isna(ci.point):
        return Cell("—")
    under = None if pd.isna(ci.low) else f"[{ci.low:{sign}.{digits}f}, {ci.high:{sign}.{digits}f}]"
    return Cell(f"{ci.point:{sign}.{digits}f}", under=under)


def mean_f1_ci(samples: pd.DataFrame, *, n_resamples: int, seed: int) -> tuple[CI, int, bool]:
    """The mean over nations of each nation's weighted F1 (every question, repeats pooled), drafts
    resampled; (CI, nations, pooled) where ``pooled`` says the cube was too big and every question
    was pooled into one weighted F1 instead."""
    votes = T.vote_frame(samples)
    votes = votes[votes["truth"].isin(T.VOTES)]
    nations = T.persona_order(votes["persona"].unique())
    if votes.empty:
        return CI(float("nan"), float("nan"), float("nan")), 0, False
    items = sorted(votes["item"].unique())
    k, m = len(T.VOTES), len(T.VOTES) + len(T.MISSES)
    pooled = len(items) * len(nations) * k * m > CUBE_LIMIT
    groups = [("all", votes)] if pooled else list(votes.groupby("persona", sort=False))
    cube = np.zeros((len(items), len(groups), k, m))
    position = {item: i for i, item in enumerate(items)}
    for j, (_, part) in enumerate(groups):
        seen, conf = per_item_confusion(
            part, item_col="item", truth_col="truth", pred_col="answer", labels=T.VOTES, misses=T.MISSES
        )
        cube[[position[i] for i in seen], j] = conf

    def stat(batch: np.ndarray) -> np.ndarray:  # (B, items, nations, K, K+m) -> (B, 1)
        f1 = weighted_f1_from_confusions(batch.sum(axis=1))
        return np.nanmean(f1, axis=-1)[:, None]

    (ci,) = bootstrap_cis(cube, stat, n_resamples=n_resamples, seed=seed)
    return ci, len(nations), pooled


def _vote(ctx: Context, run: Run) -> Headline:
    ci, n, pooled = mean_f1_ci(run.samples, n_resamples=ctx.n_resamples, seed=ctx.seed)
    measure = (
        "weighted F1, every question of every state pooled"
        if pooled
        else f"mean weighted F1 over {n} nation{'s' * (n != 1)}, repeats pooled"
    )
    bar = "no baseline computed"
    baselines = normalise_baselines(ctx.baselines)
    if baselines is not None:
        mine = baselines[baselines["persona"].isin(set(run.samples["persona"]))]
        means = (mine if len(mine) else baselines).groupby("baseline")["weighted_f1"].mean()
        if len(means):
            bar = f"{means.idxmax()} {means.max():.3f} (best of {', '.join(map(str, means.index))})"
    paper = published_f1(run.model, debiased=run.test == "debias")
    name = paper_model_name(run.model)
    told = NOT_IN_PAPER
    if name and len(paper):
        which = "Table 3, +RAG, Rflx" if run.test == "debias" else "Table 2"
        told = (
            f"{paper.mean():.3f} ({PAPER_LABELS.get(name, name)}, {which}, mean of {len(paper)}, 66 drafts)"
        )
    return Headline(measure, _cell(ci), bar, told)


def _directqa(ctx: Context, run: Run) -> Headline:
    # the paper's question; a run that asked only its mirror (--framing responsible) shows that instead
    framings = run.samples["item"].map(lambda item: split_item(item)[0])
    quality = IRRESPONSIBLE if framings.eq(IRRESPONSIBLE).any() else RESPONSIBLE
    samples = run.samples[framings.eq(quality)]
    samples = samples.assign(item=samples["item"].map(lambda item: split_item(item)[1]))
    families = T.family_order(samples["item"].unique())
    family = T.GENERAL if T.GENERAL in families else families[0]
    scores = R.irres_ci(samples[samples["item"].eq(family)], n_resamples=ctx.n_resamples, seed=ctx.seed)
    scores = scores[scores["family"].eq(family) & scores["nation"].ne("neutral")]
    top = scores.sort_values("irres_score", kind="stable").iloc[-1]
    return Headline(
        f"most often named the more {quality} ({family} questions): {top['nation']}, share of questions",
        _cell(CI(top["irres_score"], top["low"], top["high"])),
        "even-handed: 0.200 a nation (no neutral answers)",
        f"{NOT_IN_PAPER}'s tables (Figure 2 only)",
    )


def _association(ctx: Context, run: Run) -> Headline:
    scores = R.ats_ci(run.samples, n_resamples=ctx.n_resamples, seed=ctx.seed)
    scores = scores[scores["category"].eq(T.AVERAGE)].dropna(subset=["ats"])
    if scores.empty:
        return Headline("average ATS: no valid answer", Cell("—"), "0 = no association", NOT_IN_PAPER)
    ordered = scores.sort_values("ats", kind="stable")
    top, low = ordered.iloc[-1], ordered.iloc[0]
    figure = _cell(CI(top["ats"], top["low"], top["high"]), 2, "+")
    bottom = f"{low['nation']} {low['ats']:+.2f} [{low['low']:+.2f}, {low['high']:+.2f}]"
    return Headline(
        f"highest average ATS: {top['nation']} (lowest: {bottom})",
        figure,
        "0 = no association either way",
        f"{NOT_IN_PAPER}'s tables (Figure 3 only)",
    )


HEADLINES: dict[str, Callable[[Context, Run], Headline]] = {
    "vote": _vote,
    "debias": _vote,
    "directqa": _directqa,
    "association": _association,
}


def headline_frame(ctx: Context) -> pd.DataFrame:
    rows = []
    for run in ctx.runs:
        make = HEADLINES.get(run.test)
        found = (
            make(ctx, run) if make else Headline("see the test's own section", Cell("—"), "—", NOT_IN_PAPER)
        )
        status = run.samples["status"].value_counts() if len(run.samples) else pd.Series(dtype=int)
        rows.append(
            {
                "test": run.test,
                "model": run.model,
                "run_id": run.run_id,
                "samples": Cell(
                    str(len(run.samples)),
                    under=f"{int(status.get('invalid', 0))} invalid, {int(status.get('error', 0))} error",
                ),
                "headline": found.measure,
                "figure, 95% interval": found.figure,
                "baseline to beat": found.bar,
                "paper": found.paper,
            }
        )
    return pd.DataFrame(rows)


def first_screen(ctx: Context) -> None:
    """The section that opens the report (written last, placed first: it reads every run)."""
    frame = headline_frame(ctx)
    models = sorted({model_name(r.model) for r in ctx.runs})
    shown = frame.set_index("test")
    ctx.page.table(
        frame.assign(**{c: frame[c].map(_text) for c in ("samples", "figure, 95% interval")}),
        table_id="headline",
        caption="What was run and what it found: each run's headline figure, the bar it has to clear, and"
        " the paper's number for the same model",
        shown=shown,
    )
    ctx.page.note(
        f"{len(ctx.runs)} run{'s' * (len(ctx.runs) != 1)} of {', '.join(models)}. Intervals are 95% bootstrap"
        " intervals resampling items (drafts, pairs, keywords); every question counts, a failed answer as"
        " a miss. The paper's numbers are on its 66 drafts and three runs, shown only for the same model."
    )
    ctx.page.close("first-screen", "What was run and what it found", first=True)


def _text(cell: object) -> str:
    if isinstance(cell, Cell):
        return f"{cell.text} {cell.under}" if cell.under else cell.text
    return str(cell)
