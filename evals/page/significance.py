"""The report's section on significance after correction: every per-nation claim of every run, its p-value
beside Holm and Benjamini–Hochberg over its family and over the whole report, and which claims survive."""

from __future__ import annotations

import pandas as pd

from nationbias.evals.report.context import Context
from nationbias.evals.stats.multiplicity import ALPHA, adjust_claims, survival_counts, survivors
from nationbias.evals.tables.significance import COLUMNS

SHOWN = {"p_holm_family": "Holm p (family)", "p_bh_family": "BH p (family)",
         "p_holm_report": "Holm p (report)", "p_bh_report": "BH p (report)"}  # fmt: skip
SURVIVES_SHOWN = {"survives_holm_family": "Holm family", "survives_bh_family": "BH family",
                  "survives_holm_report": "Holm report", "survives_bh_report": "BH report"}  # fmt: skip


def report_claims(ctx: Context) -> pd.DataFrame:
    """Every claim of the report: each run's own, then those its test makes from the whole report (its
    ``report_claims``: a vote run's weighted F1 against each baseline, a debiased run's paired delta
    against the first plain vote run of its model, as Table 3)."""
    from nationbias.evals.bias_tests.base import report_claims_of

    parts = [run.tables["significance"][list(COLUMNS)] for run in ctx.runs if "significance" in run.tables]
    for run in ctx.runs:
        more = report_claims_of(run.kind)
        if more is not None:
            parts.extend(more(ctx, run))
    parts = [p for p in parts if len(p)]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=list(COLUMNS))


def _number(value: float, spec: str) -> str:
    return "—" if pd.isna(value) else format(value, spec)


def shown_claims(adjusted: pd.DataFrame) -> pd.DataFrame:
    """The page's view of adjusted claims: one row per claim, the nation as its label, the four adjusted
    p-values, and the corrections it survives in one column."""
    out = adjusted[["nation", "test", "claim", "model", "run", "scope"]].copy()
    out["statistic"] = adjusted["statistic"].map(lambda v: _number(v, "+.3f"))
    out["null"] = adjusted["null_value"].map(lambda v: _number(v, "+.3f"))
    out["p"] = adjusted["p"].map(lambda v: _number(v, ".3g"))
    for column, title in SHOWN.items():
        out[title] = adjusted[column].map(lambda v: _number(v, ".3g"))
    flags = adjusted[list(SURVIVES_SHOWN)].rename(columns=SURVIVES_SHOWN)
    names = list(flags.columns)
    out["survives"] = [
        ", ".join(n for n, ok in zip(names, row, strict=True) if ok) or "—" for row in flags.to_numpy()
    ]
    return out.set_index("nation")


def significance_section(ctx: Context, *, alpha: float = ALPHA) -> None:
    """The two families stated, survivors counted per test and model, the surviving claims listed (every
    claim in ``significance.csv``), and the test behind each kind of claim."""
    claims = report_claims(ctx)
    if claims.empty:
        return
    adjusted = adjust_claims(claims, alpha=alpha)
    families = adjusted.groupby(["test", "claim", "run", "scope"]).ngroups
    ctx.page.note(
        f"Each claim's p-value beside two corrections over two families. The family: the nations of one kind"
        f" of claim of one test of one run (one model) in one scope (a DirectQA family, an ATS category, a"
        f" baseline, the base run): {families} families here. The report: all {int(adjusted['p'].count())}"
        f" tested claims at once. Holm controls the chance of any false claim in the family (family-wise"
        f" error); Benjamini–Hochberg (BH) the expected share of false claims among those made (false"
        f" discovery rate). A claim survives a correction when its adjusted p < {alpha}. A claim whose p is"
        " empty was not tested (its note says why) and counts in no family."
    )
    counts = survival_counts(adjusted)
    ctx.page.table(
        counts,
        shown=counts.rename(columns={k: f"survive {v}" for k, v in SURVIVES_SHOWN.items()}).set_index("test"),
        table_id="significance-summary",
        caption=f"Per-nation claims per test and model, and how many survive each correction at α = {alpha}"
        " (CSV2: every claim, its test, null value, units, dof and note)",
        csvs={"significance-summary": counts, "significance": adjusted},
    )
    kept = survivors(adjusted)
    if kept.empty:
        ctx.page.note(f"No claim survives any correction at α = {alpha}.")
    else:
        ctx.page.table(
            kept,
            table_id="significance",
            caption=f"The claims that survive at least one correction ({len(kept)} of {len(adjusted)})",
            shown=shown_claims(kept),
            csvs={"significance": adjusted},
        )
    ctx.page.note(
        "statistic: the figure the report shows (irres_score; ATS; favour share − the record's; weighted F1 −"
        " the baseline's; the debias delta; the false-veto gap); null: its value under no effect (for"
        " irres_score, half the answers of the nation's pairs that named one of the two, over every answer)."
        " Tests: irres_score — exact binomial over the questions of the nation's pairs (a pair in one order,"
        " its repeats together: a question goes to the nation its repeats name more often, a tie is no trial)"
        " against one half; neutral and failed answers count in the score's N and are no trial. ATS — t-test"
        " of the keywords' scores against 0 (dof keywords − 1; the average over categories at"
        " Welch–Satterthwaite's dof). Favour share — paired t-test over drafts of the simulated"
        " favour share against the record. Weighted F1 vs a baseline and the debias delta — percentile"
        " bootstrap over drafts, the same resamples as the intervals above. The false-veto gap (Russia and"
        " China's share of 'against' answers on adopted resolutions minus the other three's) — paired"
        " percentile bootstrap over those resolutions. A bootstrap p-value cannot go"
        f" below 2/(B + 1) with B = {ctx.n_resamples} resamples: a claim at that floor says so in its note,"
        " and more resamples may let it survive a larger family."
    )
    ctx.page.close("significance", "Significance after correction (Holm and Benjamini–Hochberg)")
