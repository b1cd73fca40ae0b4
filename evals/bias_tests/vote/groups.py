"""The groups section of a vote report at scale: bias read as the gap between groups of states.

Past the Council's 15 seats a per-persona bar chart stops being readable and stops being the question:
what a researcher asks of 193 states is whether the model serves one bloc worse than the rest. For
each vote run with more than ``figures.MANY`` personas, the UN regional groups and the P5 against
everyone else, each gap with a paired bootstrap interval over items (``nationbias.evals.stats.groups``); then
the
state × state agreement of the model's votes beside the real one, and agreement per group and issue.
"""

from __future__ import annotations

import pandas as pd

from nationbias.evals.report import state_figures as S
from nationbias.evals.report.context import Context, Run, ci_text
from nationbias.evals.report.figures import MANY
from nationbias.evals.stats.groups import group_gaps, load_groups
from nationbias.evals.tables import paper as T
from nationbias.stores.domain import VOTE_TESTS


def run_gaps(run: Run, *, n_resamples: int, seed: int) -> pd.DataFrame:
    """One row per group (regional groups, then the P5): its accuracy and weighted F1 against the rest's,
    and each gap with its 95% interval; an invalid or errored answer is a miss in both."""
    votes = T.vote_frame(run.samples)
    votes = votes[votes["truth"].isin(T.VOTES)]
    predictions = pd.DataFrame(
        {
            "baseline": run.label,
            "item_id": votes["item"],
            "member": votes["persona"],
            "truth": votes["truth"],
            "predicted": votes["answer"],
        }
    )
    members = predictions["member"].unique()
    frames = [
        group_gaps(predictions, groups, n_resamples=n_resamples, seed=seed)
        for spec in ("regions", "p5")
        if (groups := load_groups(spec, members))
    ]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def _shown(gaps: pd.DataFrame) -> pd.DataFrame:
    """The compact view: scores and each gap with its interval (``-all.csv`` keeps every column)."""
    out = gaps[["group", "members", "votes", "accuracy", "accuracy_rest", "weighted_f1", "weighted_f1_rest"]]
    out = out.round(3)
    for name in ("accuracy", "weighted_f1"):
        out[f"{name}_gap_95ci"] = [
            ci_text(p, lo, hi)
            for p, lo, hi in zip(
                gaps[f"{name}_gap"], gaps[f"{name}_gap_low"], gaps[f"{name}_gap_high"], strict=True
            )
        ]
    return out


def groups_section(ctx: Context) -> None:
    runs = [r for r in ctx.of(*VOTE_TESTS) if r.samples["persona"].nunique() > MANY]
    for run in runs:
        votes = T.vote_frame(run.samples)
        path = S.state_agreement_figure(
            votes, ctx.page.out_dir / f"states-{run.slug}.png", model=run.model, embedded=run.embedded
        )
        ctx.page.figure(
            path, alt=f"State × state agreement, the model's votes beside the real ones, {run.label}"
        )
        if run.config.get("sample", {}).get("body") == "unga":
            issues = S.group_issue_agreement(votes)
            path = S.group_issue_figure(
                votes,
                ctx.page.out_dir / f"group-issue-{run.slug}.png",
                model=run.model,
                embedded=run.embedded,
            )
            ctx.page.figure(path, alt=f"Agreement with the real vote per group and issue, {run.label}")
            ctx.page.table(
                issues,
                table_id=f"group-issue-{run.slug}",
                caption=f"Agreement per group and issue: {run.label}",
            )
        gaps = run_gaps(run, n_resamples=ctx.n_resamples, seed=ctx.seed)
        if gaps.empty:
            continue
        gaps.to_csv(ctx.page.out_dir / f"groups-{run.slug}-all.csv", index=False)
        ctx.page.table(
            _shown(gaps),
            table_id=f"groups-{run.slug}",
            caption=(
                f"Bias as a gap between groups: each group's score minus the rest's on the same items, 95% "
                f"paired bootstrap over items (a miss counts against its group): {run.label}"
            ),
        )
    if runs:
        ctx.page.close("groups", "Groups of states — who the model serves worse")
