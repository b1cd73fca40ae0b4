"""The Association Test (paper §4.1): rank the P5 by relevance to each keyword."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from nationbias.evals.bias_tests.base import LanguageEffect, RunContext, RunRequest, StudyPart, bias_test
from nationbias.evals.report import figures as F
from nationbias.evals.report.context import Context, Run
from nationbias.evals.report.headline import NOT_IN_PAPER, Headline, ci_cell
from nationbias.evals.report.html_table import Cell
from nationbias.evals.report.position import association_flag, association_position_parts, flagged
from nationbias.evals.report.scope import association_scope
from nationbias.evals.stats.bootstrap import CI
from nationbias.evals.tables import agreement as A
from nationbias.evals.tables import explicit as X
from nationbias.evals.tables import intervals as R
from nationbias.evals.tables import paper as T
from nationbias.evals.tables import position as P
from nationbias.evals.tables.languages import association_effects
from nationbias.stores.domain import ASSOCIATION

if TYPE_CHECKING:
    import pandas as pd

    from nationbias.graphs.study.runner import RunSummary
    from nationbias.graphs.study.sampling import SampleOptions
    from nationbias.prompts import PromptSet


def _association(ctx: Context) -> None:
    for run in ctx.of(AssociationTest.name):
        ctx.scores_with_ci(
            run,
            table="ats",
            ci=R.ats_ci(run.samples, n_resamples=ctx.n_resamples, seed=ctx.seed),
            keys=["category", "nation"],
            stem="ats",
            caption="ATS per nation and category (95% CI over keywords)",
            figure=F.ats_figure,
            figure_stem="ats",
            alt="Association Test scores per nation, average and per category",
        )
        association_position_parts(ctx, run)
    ctx.page.close("figure3-association", "Figure 3 — Association Test")


def association_headline(ctx: Context, run: Run) -> Headline:
    """The highest and lowest average ATS, each with its interval over keywords (the paper's Figure 3)."""
    scores = R.ats_ci(run.samples, n_resamples=ctx.n_resamples, seed=ctx.seed)
    scores = scores[scores["category"].eq(T.AVERAGE)].dropna(subset=["ats"])
    if scores.empty:
        return Headline("average ATS: no valid answer", Cell("—"), "0 = no association", NOT_IN_PAPER)
    ordered = scores.sort_values("ats", kind="stable")
    top, low = ordered.iloc[-1], ordered.iloc[0]
    figure = ci_cell(CI(top["ats"], top["low"], top["high"]), 2, "+")
    bottom = f"{low['nation']} {low['ats']:+.2f} [{low['low']:+.2f}, {low['high']:+.2f}]"
    flag = association_flag(ctx, run, top=str(top["nation"]))
    return Headline(
        f"highest average ATS: {top['nation']} (lowest: {bottom})",
        figure,
        "0 = no association either way",
        f"{NOT_IN_PAPER}'s tables (Figure 3 only)",
        flag=flagged(flag),
    )


@dataclass(frozen=True)
class AssociationOptions:
    """The Association Test's own option: a keyword pool CSV (category,keyword) in place of the paper's."""

    pool: str | None = None


@bias_test
class AssociationTest:
    """Keywords × repeats, the names in a seeded order per prompt; ``pool`` replaces the paper's keywords."""

    name = ASSOCIATION
    options_type = AssociationOptions
    tables = ("ats", "friedman", "invalid", "judge", "position")
    agreement_table: str | None = "friedman"
    invalid_table: str | None = "invalid"
    sections = (_association,)
    # every keyword in a study, three in the demo (`demo --keywords`)
    study = StudyPart(demo=3, order=0, demo_option="keywords")
    body_note = "ask about the P5 by name, whatever the body"
    # ATS per nation across languages (the mean of the category means): a higher one treats it better
    language_effect = LanguageEffect(rows=association_effects, good=1.0)

    def headline(self, ctx: Context, run: Run) -> Headline:
        return association_headline(ctx, run)

    def claims(self, samples: pd.DataFrame) -> list[dict[str, Any]]:
        """Per category and nation: ATS against 0."""
        from nationbias.evals.tables.significance import association_claims

        return association_claims(samples)

    def scope(self, run: Run) -> str:
        return association_scope(run)

    def check_judge(self, prompts: PromptSet) -> None:
        """Any prompt set's answers may go to the judge."""

    def prepare(self, request: RunRequest, sample: SampleOptions) -> Any:
        """The keyword pool's path; a missing or malformed pool fails before any work."""
        from nationbias.graphs.association import load_pool

        pool = request.options.pool
        load_pool(pool)
        return pool

    async def arun(self, ctx: RunContext) -> RunSummary:
        from nationbias.graphs.study.explicit import run_association_study

        return await run_association_study(ctx.run, pool_path=ctx.inputs)

    def result_tables(self, samples: pd.DataFrame) -> dict[str, pd.DataFrame]:
        category = samples["extra"].map(lambda e: (e or {}).get("category")).rename("category")
        return {
            "ats": X.ats_table(samples),
            "friedman": A.friedman_table(samples),
            "invalid": T.status_counts(samples, by=category),
            "judge": T.labeller_counts(samples, by=category),
            "position": P.association_position(samples),
        }
