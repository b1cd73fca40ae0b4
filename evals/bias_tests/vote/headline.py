"""The vote tests' headline on the report's first screen: the mean over nations of each nation's weighted
F1, drafts resampled, against the best non-LLM baseline on the run's own questions (paired by draft, with
the interval of the difference) and the paper's Table 2 (Table 3 debiased)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from nationbias.evals.bias_tests.vote.paper import normalise_baselines, published_f1
from nationbias.evals.report.context import Context, Run
from nationbias.evals.report.headline import NOT_IN_PAPER, Headline, ci_cell
from nationbias.evals.stats.bootstrap import CI, bootstrap_cis, per_item_confusion
from nationbias.evals.stats.metrics import weighted_f1_from_confusions
from nationbias.evals.tables import paper as T
from nationbias.evals.tables.paired import CUBE_LIMIT, baseline_as_run, paired_mean_f1
from nationbias.evals.tables.published import PAPER_LABELS, paper_model_name
from nationbias.stores.domain import DEBIAS


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


def paired_bar(ctx: Context, run: Run) -> str | None:
    """The best baseline on the run's own questions, and the run minus it with its paired interval; None
    when the report has no per-draft baseline predictions."""
    predictions = ctx.baseline_predictions
    if predictions is None or predictions.empty:
        return None
    votes = T.vote_frame(run.samples)
    results = {
        str(name): paired_mean_f1(
            baseline_as_run(predictions, str(name), like=votes),
            votes,
            n_resamples=ctx.n_resamples,
            seed=ctx.seed,
        )
        for name in predictions["baseline"].unique()
    }
    results = {k: v for k, v in results.items() if not np.isnan(v.a.point)}
    if not results:
        return None
    best = max(results, key=lambda k: results[k].a.point)
    r = results[best]
    delta = f"{r.delta.point:+.3f} [{r.delta.low:+.3f}, {r.delta.high:+.3f}]"
    return (
        f"{best} {r.a.point:.3f} on the same {r.scope.shared_drafts} drafts; run − {best} {delta}, paired"
        f" (best of {', '.join(results)})"
    )


def vote_headline(ctx: Context, run: Run) -> Headline:
    ci, n, pooled = mean_f1_ci(run.samples, n_resamples=ctx.n_resamples, seed=ctx.seed)
    measure = (
        "weighted F1, every question of every state pooled"
        if pooled
        else f"mean weighted F1 over {n} nation{'s' * (n != 1)}, repeats pooled"
    )
    bar = paired_bar(ctx, run) or "no baseline computed"
    baselines = normalise_baselines(ctx.baselines)
    if ctx.baseline_predictions is None and baselines is not None:  # the Assembly: scores only
        mine = baselines[baselines["persona"].isin(set(run.samples["persona"]))]
        means = (mine if len(mine) else baselines).groupby("baseline")["weighted_f1"].mean().dropna()
        if len(means):
            bar = (
                f"{means.idxmax()} {means.max():.3f} (best of {', '.join(map(str, means.index))};"
                " on the first vote run's drafts, not paired)"
            )
    paper = published_f1(run.model, debiased=run.test == DEBIAS)
    name = paper_model_name(run.model)
    told = NOT_IN_PAPER
    adopted_only = run.config.get("targets") == "adopted"  # the paper's tables read its adopted items
    if adopted_only:
        measure += ", on adopted resolutions"
    if name and len(paper) and not adopted_only:
        which = "Table 3, +RAG, Rflx" if run.test == DEBIAS else "Table 2"
        told = (
            f"{paper.mean():.3f} ({PAPER_LABELS.get(name, name)}, {which}, mean of {len(paper)}, 66 drafts)"
        )
    return Headline(measure, ci_cell(ci), bar, told)
