"""The report's section on significance after correction: every per-nation claim of every run, its p-value
beside Holm and Benjamini–Hochberg over its family and over the whole report, and which claims survive."""

from __future__ import annotations

import pandas as pd

from nationbias.evals.report.context import Context
from nationbias.evals.stats.multiplicity import ALPHA, SURVIVES, adjust_claims, survival_counts, survivors
from nationbias.evals.tables.significance import COLUMNS, baseline_claims, debias_claims

SHOWN = ("claim", "model", "scope", "nation", "statistic", "p", "p_holm_family", "p_bh_family",
         "p_holm_report", "p_bh_report")  # fmt: skip


def report_claims(ctx: Context) -> pd.DataFrame:
    """Every claim of the report: each run's own, each vote-like run's weighted F1 against each baseline,
    and each debiased run's paired delta against the first plain vote run of its model (as Table 3)."""
    from nationbias.evals.bias_tests.vote.paper import normalise_baselines

    parts = [run.tables["significance"][list(COLUMNS)] for run in ctx.runs if "significance" in run.tables]
    bars = normalise_baselines(ctx.baselines)
    resampling = {"n_resamples": ctx.n_resamples, "seed": ctx.seed}
    for run in ctx.of("vote", "debias"):
        if bars is not None:
            parts.append(baseline_claims(run.run_id, run.config, run.samples, bars, **resampling))
        if run.test == "debias":
            bases = [r for r in ctx.of("vote") if r.model == run.model]
            if bases:
                base = bases[0]
                parts.append(
                    debias_claims(
                        (base.run_id, base.config, base.samples),
                        (run.run_id, run.config, run.samples),
                        **resampling,
                    )
                )
    parts = [p for p in parts if len(p)]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=list(COLUMNS))


def _rounded(frame: pd.DataFrame) -> pd.DataFrame:
    out = frame.copy()
    for column in out.columns:
        if column.startswith("p") and pd.api.types.is_float_dtype(out[column]):
            out[column] = out[column].map(lambda v: "—" if pd.isna(v) else f"{v:.3g}")
    out["statistic"] = out["statistic"].map(lambda v: "—" if pd.isna(v) else f"{v:+.3f}")
    return out


def significance_section(ctx: Context, *, alpha: float = ALPHA) -> None:
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
    ctx.page.table(
        survival_counts(adjusted),
        table_id="significance-summary",
        caption=f"Per-nation claims per test and model, and how many survive each correction at α = {alpha}",
    )
    kept = survivors(adjusted)
    shown = _rounded(kept[[*SHOWN, *SURVIVES]]).set_index(["claim", "model", "scope", "nation"])
    ctx.page.table(
        adjusted,
        table_id="significance",
        caption=f"The claims that survive at least one correction ({len(kept)} of {len(adjusted)});"
        " the CSV has every claim, its test, null value, units, dof and note",
        shown=shown,
    )
    ctx.page.note(
        "Tests: irres_score — exact binomial of the times a nation is named among the questions of its pairs"
        " that name one of the two, against one half (neutral and failed answers count in the score's N, not"
        " as trials); ATS — t-test of the keywords' scores against 0 (dof keywords − 1; the average over"
        " categories at Welch–Satterthwaite's dof); favour share — paired t-test over drafts of the simulated"
        " favour share against the record; weighted F1 vs a baseline and the debias delta — percentile"
        " bootstrap over drafts, the same resamples as the intervals above. A bootstrap p-value cannot go"
        f" below 2/(B + 1) with B = {ctx.n_resamples} resamples: a claim at that floor says so in its note,"
        " and more resamples may let it survive a larger family."
    )
    ctx.page.close("significance", "Significance after correction (Holm and Benjamini–Hochberg)")
