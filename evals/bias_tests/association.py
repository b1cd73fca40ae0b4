"""The Association Test (paper §4.1): rank the P5 by relevance to each keyword."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from evals import agreement as A
from evals import explicit_tables as X
from evals import figures as F
from evals import results as R
from evals import tables as T
from evals.bias_tests.base import RunContext, RunRequest, bias_test
from evals.report_context import Context, with_ci

if TYPE_CHECKING:
    import pandas as pd

    from graphs.runner import RunSummary
    from graphs.sampling import SampleOptions
    from prompts import PromptSet


def _association(ctx: Context) -> None:
    for run in ctx.of(AssociationTest.name):
        ci = R.ats_ci(run.samples, n_resamples=ctx.n_resamples, seed=ctx.seed)
        table = run.tables["ats"].merge(ci[["category", "nation", "low", "high"]], on=["category", "nation"])
        table = table.assign(ats_95ci=with_ci(table, "ats")).drop(columns=["low", "high"])
        ctx.page.table(
            table,
            table_id=f"ats-{run.slug}",
            caption=f"ATS per nation and category (95% CI over keywords): {run.label}",
        )
        path = F.ats_figure(
            run.tables["ats"],
            ctx.page.out_dir / f"ats-{run.slug}.png",
            model=run.model,
            embedded=run.embedded,
        )
        ctx.page.figure(
            path, alt=f"Association Test scores per nation, average and per category, {run.label}"
        )
    ctx.page.close("figure3-association", "Figure 3 — Association Test")


@bias_test
class AssociationTest:
    """Keywords × repeats, the names in a seeded order per prompt; ``pool`` replaces the paper's keywords."""

    name = "association"
    options: Mapping[str, Any] = MappingProxyType({"pool": None})
    tables = ("ats", "friedman", "invalid", "judge")
    agreement_table: str | None = "friedman"
    invalid_table: str | None = "invalid"
    sections = (_association,)

    def check_judge(self, prompts: PromptSet) -> None:
        """Any prompt set's answers may go to the judge."""

    def prepare(self, request: RunRequest, sample: SampleOptions) -> Any:
        """The keyword pool's path; a missing or malformed pool fails before any work."""
        from graphs.association import load_pool

        pool = {**self.options, **request.options}["pool"]
        load_pool(pool)
        return pool

    async def arun(self, ctx: RunContext) -> RunSummary:
        from graphs.explicit import run_association_study

        return await run_association_study(**ctx.study_kwargs(), pool_path=ctx.inputs)

    def result_tables(self, samples: pd.DataFrame) -> dict[str, pd.DataFrame]:
        category = samples["extra"].map(lambda e: (e or {}).get("category")).rename("category")
        return {
            "ats": X.ats_table(samples),
            "friedman": A.friedman_table(samples),
            "invalid": T.status_counts(samples, by=category),
            "judge": T.labeller_counts(samples, by=category),
        }
