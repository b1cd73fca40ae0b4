"""DirectQA (paper §4.1): which of two permanent members is the more irresponsible."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from nationbias.evals.bias_tests.base import RunContext, RunRequest, StudyPart, bias_test
from nationbias.evals.report import figures as F
from nationbias.evals.report.context import Context, Run
from nationbias.evals.report.headline import NOT_IN_PAPER, Headline, ci_cell
from nationbias.evals.stats.bootstrap import CI
from nationbias.evals.tables import agreement as A
from nationbias.evals.tables import explicit as X
from nationbias.evals.tables import intervals as R
from nationbias.evals.tables import paper as T
from nationbias.stores.domain import DIRECTQA

if TYPE_CHECKING:
    import pandas as pd

    from nationbias.graphs.study.runner import RunSummary
    from nationbias.graphs.study.sampling import SampleOptions
    from nationbias.prompts import PromptSet


def _directqa(ctx: Context) -> None:
    for run in ctx.of(DirectQATest.name):
        ctx.scores_with_ci(
            run,
            table="irres_score",
            ci=R.irres_ci(run.samples, n_resamples=ctx.n_resamples, seed=ctx.seed),
            keys=["family", "nation"],
            stem="irres",
            caption="irres_score per nation and family (95% CI over pairs)",
            figure=F.directqa_figure,
            figure_stem="directqa",
            alt="DirectQA irres_score bars per nation and question family",
        )
    ctx.page.close("figure2-directqa", "Figures 2 and 4 — DirectQA irresponsibility scores")


def directqa_headline(ctx: Context, run: Run) -> Headline:
    """The nation most often named the more irresponsible, on the general questions (the paper's Figure 2)."""
    families = T.family_order(run.samples["item"].unique())
    family = T.GENERAL if T.GENERAL in families else families[0]
    scores = R.irres_ci(
        run.samples[run.samples["item"].eq(family)], n_resamples=ctx.n_resamples, seed=ctx.seed
    )
    scores = scores[scores["family"].eq(family) & scores["nation"].ne("neutral")]
    top = scores.sort_values("irres_score", kind="stable").iloc[-1]
    return Headline(
        f"most often named the more irresponsible ({family} questions): {top['nation']}, share of questions",
        ci_cell(CI(top["irres_score"], top["low"], top["high"])),
        "even-handed: 0.200 a nation (no neutral answers)",
        f"{NOT_IN_PAPER}'s tables (Figure 2 only)",
    )


@bias_test
class DirectQATest:
    """Families (general + the UNSC functions) × the 20 ordered P5 pairs × repeats."""

    name = DIRECTQA
    options: Mapping[str, Any] = MappingProxyType({})
    tables = ("irres_score", "agreement", "invalid", "invalid_by_nation", "judge")
    agreement_table: str | None = "agreement"
    invalid_table: str | None = "invalid_by_nation"
    sections = (_directqa,)
    study = StudyPart(demo=1, order=0)  # every family in a study; the general family alone in the demo

    def headline(self, ctx: Context, run: Run) -> Headline:
        return directqa_headline(ctx, run)

    def check_judge(self, prompts: PromptSet) -> None:
        """Any prompt set's answers may go to the judge."""

    def prepare(self, request: RunRequest, sample: SampleOptions) -> Any:
        return None

    async def arun(self, ctx: RunContext) -> RunSummary:
        from nationbias.graphs.study.explicit import run_directqa_study

        return await run_directqa_study(**ctx.study_kwargs())

    def result_tables(self, samples: pd.DataFrame) -> dict[str, pd.DataFrame]:
        by_family = samples.rename(columns={"item": "family"})
        return {
            "irres_score": X.irres_table(samples),
            "agreement": A.directqa_agreement(samples),
            "invalid": T.status_counts(by_family, by="family"),
            "invalid_by_nation": T.status_counts(X.pair_nations(samples), by="nation"),
            "judge": T.labeller_counts(by_family, by="family"),
        }
