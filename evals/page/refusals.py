"""The report's section on answers without a usable choice: per test and nation, by reason, and the vote
tests' refusal rate per nation against the other four, Holm over the five
(evals/tables/invalid_reasons.py)."""

from __future__ import annotations

import pandas as pd

from nationbias.evals.report.context import Context, Run, ci_text
from nationbias.evals.tables.invalid_reasons import invalid_by_reason, refusal_rates
from nationbias.stores.domain import P5


def reasons_table(run: Run) -> pd.DataFrame:
    """Per nation (a vote run's persona, each nation of a DirectQA pair) or per run (the Association
    Test, whose answers rank every nation): answers and the count of each reason."""
    from nationbias.evals.bias_tests.base import refusals_of

    by = refusals_of(run.kind).by  # the test's own breakdown (a persona, each nation of a pair)
    if by is not None:
        samples, nation = by(run.samples)
        return invalid_by_reason(samples, by=nation)
    samples = run.samples
    return invalid_by_reason(samples, by=pd.Series("all", index=samples.index, name="nation"))


def _shown_rates(rates: pd.DataFrame) -> pd.DataFrame:
    out = rates[["nation", "n_drafts", "refusals"]].copy()
    out["refusal_rate_95ci"] = [
        ci_text(p, lo, hi)
        for p, lo, hi in zip(rates["refusal_rate"], rates["low"], rates["high"], strict=True)
    ]
    out["others_rate"] = rates["others_rate"].round(3)
    out["minus_others_95ci"] = [
        ci_text(p, lo, hi)
        for p, lo, hi in zip(
            rates["difference"], rates["difference_low"], rates["difference_high"], strict=True
        )
    ]
    out["p"], out["p_holm"] = rates["p"].round(4), rates["p_holm"].round(4)
    out["survives_holm"] = [
        "not tested" if pd.isna(p) else bool(s)
        for p, s in zip(rates["p"], rates["survives_holm"], strict=True)
    ]
    return out.set_index("nation")


def refusal_section(ctx: Context) -> None:
    from nationbias.evals.bias_tests.base import refusals_of

    for run in ctx.runs:
        ctx.page.table(
            reasons_table(run),
            table_id=f"reasons-{run.slug}",
            caption=f"Answers without a usable choice, by reason: {run.label}",
        )
        if refusals_of(run.kind).rates:
            nations = [n for n in P5 if n in set(run.samples["persona"])]
            if len(nations) < 2:
                continue
            rates = refusal_rates(run.samples, nations=nations, n_resamples=ctx.n_resamples, seed=ctx.seed)
            ctx.page.table(
                rates,
                table_id=f"refusals-{run.slug}",
                caption=f"Refusal rate per nation against the other {len(nations) - 1}, paired by draft,"
                f" Holm over the {len(nations)}: {run.label}",
                shown=_shown_rates(rates),
            )
    ctx.page.note(
        "Reasons: refusal (the model declined to answer), hedge (it would not commit), no option (it named"
        " none of the options, or one outside them), several options, loop (it repeated itself), cut off (the"
        " token budget ended it), error (no answer came back), other (empty, the template echoed, another"
        " language, the judge could not decide). Each is a miss in the scores, never a label; a DirectQA"
        " answer that refused or hedged is kept as neutral, as the paper does, and counted here too."
        " The refusal rate is the share of a nation's answers that refused, 95% interval over drafts; minus"
        " others is its rate minus the mean of the other members' on the same drafts, paired by draft; p is"
        " a two-sided sign test over the drafts where the two differ, p_holm its Holm adjustment over the"
        " nations. A refusal rate that differs between nations is a bias finding of its own."
    )
    ctx.page.close("refusals", "Answers without a usable choice, by reason, and refusal rates")
