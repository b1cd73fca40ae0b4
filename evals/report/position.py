"""Answer order in the report: the position tables of the explicit tests, their scores on the
position-consistent answers beside the paper's, and the flag a headline carries when the order may
have made it (evals/tables/position.py defines every measure)."""

from __future__ import annotations

import pandas as pd

from nationbias.evals.report.context import Context, Run, ci_text
from nationbias.evals.tables import intervals as R
from nationbias.evals.tables import position as P
from nationbias.evals.tables.paper import AVERAGE
from nationbias.stores.domain import P5

DIRECTQA_NOTE = (
    "Answer order. DirectQA asks every pair in both orders. takes position (a) / (b): of the answers that"
    " chose a nation of the pair, the share naming the first-listed / second-listed one (0.5 each for a"
    " model that reads only the nations). pair consistency: of the askings (same family, question, pair"
    " and repeat) answered with a nation in both orders, the share that chose the same nation both times"
    " (1 for a model that reads the nations, 0 for one that always picks the same position). The"
    " position-consistent irres_score counts only the answers of consistent askings (N = those answers)."
    " Intervals: 95% bootstrap over the family's unordered pairs."
)
ASSOCIATION_NOTE = (
    "Answer order. The five names are listed in a seeded order per prompt. keeps the order given: the"
    " share of valid rankings identical to the list as given (1/120 for a ranking that ignores it); ranks"
    " the first-listed first: the share that put the first-listed nation first (1/5 by chance). The"
    " order-free ATS counts only the rankings that do not keep the order given. Intervals: 95% bootstrap"
    " over keywords."
)


def _shown(position: pd.DataFrame) -> pd.DataFrame:
    cells = zip(position["share"], position["low"], position["high"], strict=True)
    return pd.DataFrame(
        {
            "family": position["family"],
            "measure": position["measure"],
            "share_95ci": [ci_text(p, lo, hi) for p, lo, hi in cells],
            "count": [f"{c} of {n}" for c, n in zip(position["count"], position["n"], strict=True)],
        }
    ).set_index("family")


def directqa_position_parts(ctx: Context, run: Run) -> None:
    """A DirectQA run's position table and its irres_score on the position-consistent answers."""
    position = P.directqa_position(run.samples, n_resamples=ctx.n_resamples, seed=ctx.seed)
    if position.empty:
        return
    ctx.page.table(
        position,
        table_id=f"position-{run.slug}",
        caption=f"DirectQA answer order: positions taken and pair consistency (95% CI): {run.label}",
        shown=_shown(position),
    )
    paper = R.irres_ci(run.samples, n_resamples=ctx.n_resamples, seed=ctx.seed)
    consistent = P.position_consistent_directqa(run.samples)
    frame = paper.rename(columns={"low": "paper_low", "high": "paper_high"})
    if len(consistent):
        kept = R.irres_ci(consistent, n_resamples=ctx.n_resamples, seed=ctx.seed).rename(
            columns={"irres_score": "consistent", "low": "consistent_low", "high": "consistent_high"}
        )
        frame = frame.merge(kept, on=["family", "nation"], how="left")
    else:
        frame = frame.assign(
            consistent=float("nan"), consistent_low=float("nan"), consistent_high=float("nan")
        )
    frame = frame[frame["nation"].ne("neutral")]
    shown = pd.DataFrame(
        {
            "family": frame["family"],
            "nation": frame["nation"],
            "irres_score_95ci": [
                ci_text(p, lo, hi)
                for p, lo, hi in zip(
                    frame["irres_score"], frame["paper_low"], frame["paper_high"], strict=True
                )
            ],
            "position_consistent_95ci": [
                ci_text(p, lo, hi)
                for p, lo, hi in zip(
                    frame["consistent"], frame["consistent_low"], frame["consistent_high"], strict=True
                )
            ],
        }
    ).set_index("family")
    ctx.page.table(
        frame,
        table_id=f"irres-consistent-{run.slug}",
        caption="irres_score on every answer (the paper's) and on the position-consistent answers only:"
        f" {run.label}",
        shown=shown,
    )
    ctx.page.note(DIRECTQA_NOTE)


def association_position_parts(ctx: Context, run: Run) -> None:
    """An Association run's position table and its average ATS on the rankings that do not keep the
    order given."""
    position = P.association_position(run.samples, n_resamples=ctx.n_resamples, seed=ctx.seed)
    if position.empty:
        return
    ctx.page.table(
        position,
        table_id=f"position-{run.slug}",
        caption=f"Association Test answer order (95% CI): {run.label}",
        shown=_shown(position),
    )
    paper = R.ats_ci(run.samples, n_resamples=ctx.n_resamples, seed=ctx.seed)
    free = R.ats_ci(P.order_free_association(run.samples), n_resamples=ctx.n_resamples, seed=ctx.seed)
    paper = paper[paper["category"].eq(AVERAGE)].set_index("nation")
    free = free[free["category"].eq(AVERAGE)].set_index("nation") if len(free) else free
    rows = []
    for nation in P5:
        mine = paper.loc[nation] if nation in paper.index else None
        other = free.loc[nation] if len(free) and nation in free.index else None
        rows.append(
            {
                "nation": nation,
                "ats": mine["ats"] if mine is not None else float("nan"),
                "ats_low": mine["low"] if mine is not None else float("nan"),
                "ats_high": mine["high"] if mine is not None else float("nan"),
                "order_free": other["ats"] if other is not None else float("nan"),
                "order_free_low": other["low"] if other is not None else float("nan"),
                "order_free_high": other["high"] if other is not None else float("nan"),
            }
        )
    frame = pd.DataFrame(rows)
    shown = pd.DataFrame(
        {
            "nation": frame["nation"],
            "average_ats_95ci": [
                ci_text(p, lo, hi)
                for p, lo, hi in zip(frame["ats"], frame["ats_low"], frame["ats_high"], strict=True)
            ],
            "order_free_95ci": [
                ci_text(p, lo, hi)
                for p, lo, hi in zip(
                    frame["order_free"], frame["order_free_low"], frame["order_free_high"], strict=True
                )
            ],
        }
    ).set_index("nation")
    ctx.page.table(
        frame,
        table_id=f"ats-order-free-{run.slug}",
        caption="Average ATS on every ranking (the paper's) and on the rankings that do not keep the order"
        f" given: {run.label}",
        shown=shown,
    )
    ctx.page.note(ASSOCIATION_NOTE)


def _top(scores: pd.DataFrame, value: str) -> str | None:
    scores = scores.dropna(subset=[value])
    if scores.empty:
        return None
    return str(scores.sort_values(value, kind="stable").iloc[-1]["nation"])


def directqa_flag(ctx: Context, samples: pd.DataFrame, *, family: str, top: str) -> str:
    """Why a DirectQA headline (``top``, on ``family``'s questions in ``samples``) may be the order's
    doing, or ""."""
    position = P.directqa_position(samples, n_resamples=ctx.n_resamples, seed=ctx.seed)
    consistent = P.position_consistent_directqa(samples)
    top_consistent = None
    if len(consistent):
        scores = R.irres_ci(consistent, n_resamples=ctx.n_resamples, seed=ctx.seed)
        scores = scores[scores["family"].eq(family) & scores["nation"].isin(P5)]
        top_consistent = _top(scores[scores["irres_score"].gt(0)], "irres_score")
    return P.position_flag(
        position, family=family, measures=(P.TAKES_A, P.TAKES_B), top=top, top_consistent=top_consistent
    )


def association_flag(ctx: Context, run: Run, *, top: str) -> str:
    """Why an Association headline (``top``, the highest average ATS) may be the order's doing, or ""."""
    position = P.association_position(run.samples, n_resamples=ctx.n_resamples, seed=ctx.seed)
    if position.empty:
        return ""
    free = R.ats_ci(P.order_free_association(run.samples), n_resamples=ctx.n_resamples, seed=ctx.seed)
    top_free = _top(free[free["category"].eq(AVERAGE)], "ats") if len(free) else None
    return P.position_flag(
        position,
        family="all keywords",
        measures=(P.KEEPS_ORDER, P.FIRST_FIRST),
        top=top,
        top_consistent=top_free,
    )


def flagged(flag: str) -> str:
    """A headline's flag for the answer order, or "" when it has none."""
    return f"answer order: {flag}" if flag else ""


__all__ = [
    "ASSOCIATION_NOTE",
    "DIRECTQA_NOTE",
    "association_flag",
    "association_position_parts",
    "directqa_flag",
    "directqa_position_parts",
    "flagged",
]
