"""The persona vote simulation (paper §4.2) and its debiased version (§7), as two registered tests."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from nationbias.evals.bias_tests.base import RunContext, RunRequest, StudyPart, bias_test
from nationbias.evals.bias_tests.vote.declared import (
    VOTE_LANGUAGE_EFFECT,
    VOTE_REFUSALS,
    baseline_report_claims,
    debias_report_claims,
    vote_control,
)
from nationbias.evals.bias_tests.vote.headline import vote_headline
from nationbias.evals.bias_tests.vote.report import VOTE_SECTIONS
from nationbias.evals.errors import UsageError
from nationbias.evals.tables import agreement as A
from nationbias.evals.tables import paper as T
from nationbias.evals.tables.targets import false_veto_table
from nationbias.graphs.debias_options import DebiasOptions
from nationbias.stores.domain import DEBIAS, VOTE

if TYPE_CHECKING:
    import pandas as pd

    from nationbias.evals.report.context import Context, Run
    from nationbias.evals.report.headline import Headline
    from nationbias.graphs.study.runner import RunSummary
    from nationbias.graphs.study.sampling import SampleOptions
    from nationbias.prompts import PromptSet

VOTE_TABLES = (
    "vote_counts", "weighted_f1", "confusion", "agreement", "invalid", "missing_contexts", "false_veto",
)  # fmt: skip


def vote_tables(samples: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The tables every vote-like run has (plain or debiased)."""
    return {
        "vote_counts": T.vote_count_table(samples),
        "weighted_f1": T.weighted_f1_table(samples),
        "confusion": T.confusion_table(samples),
        "agreement": A.vote_agreement(samples),
        "invalid": T.status_counts(samples[T.paper_rows(samples)], by="persona"),
        "missing_contexts": T.missing_contexts(samples),
        # the adopted resolutions among the targets (--targets adopted|all): evals/tables/targets.py
        "false_veto": false_veto_table(samples),
    }


class _VoteLike:
    """What the plain and debiased vote share: drafts × personas × repeats, the same tables and sections."""

    name = VOTE
    bodies = ("unsc", "unga")
    tables = VOTE_TABLES
    agreement_table: str | None = "agreement"
    invalid_table: str | None = "invalid"
    sections = VOTE_SECTIONS
    translates = True  # --translate-with: the drafts' texts are shown in the prompts' language
    explained = True  # the precedent model's explanations (per draft and member) are of its samples
    default_targets = "failed"  # what a run stored before --targets asked about: the non-adopted drafts
    # every draft in a study, three in the demo (`--drafts`), and the control (no nation named) beside it
    study: StudyPart | None = StudyPart(demo=3, order=1, control=True, demo_option="drafts")

    language_effect = VOTE_LANGUAGE_EFFECT  # weighted F1 per persona
    refusals = VOTE_REFUSALS  # per persona, and each persona's refusal rate against the other four

    def headline(self, ctx: Context, run: Run) -> Headline:
        return vote_headline(ctx, run)

    def claims(self, samples: pd.DataFrame) -> list[dict[str, Any]]:
        """Per persona: the favour share against the record, and the false-veto gap."""
        from nationbias.evals.tables.significance import vote_claims

        return vote_claims(samples)

    def report_claims(self, ctx: Context, run: Run) -> list[pd.DataFrame]:
        """Its weighted F1 against each baseline of the report."""
        return baseline_report_claims(ctx, run)

    def control(self, config: Mapping[str, Any]) -> bool:
        return vote_control(config)

    def check_judge(self, prompts: PromptSet) -> None:
        if not prompts.free_text:
            raise UsageError("--judge reads free-text votes: use it with --prompts paper")

    def prepare(self, request: RunRequest, sample: SampleOptions) -> Any:
        """The body's corpus; an unknown persona or an empty window fails here, before any store is opened."""
        from nationbias.graphs.study.sampling import load_items, select_drafts, vote_tasks

        corpus = load_items(sample)
        vote_tasks(self.name, select_drafts(corpus, sample), sample)
        return corpus

    def result_tables(self, samples: pd.DataFrame) -> dict[str, pd.DataFrame]:
        return vote_tables(samples)


@bias_test
class VoteTest(_VoteLike):
    """Each P5 member, as a persona, votes on the non-adopted drafts."""

    def demo_table(self, run_id: str, samples: pd.DataFrame) -> Any:
        from nationbias.evals.bias_tests.vote.demo import vote_demo_table

        return vote_demo_table(run_id, samples)

    async def arun(self, ctx: RunContext) -> RunSummary:
        from nationbias.graphs.study.simulate import run_vote_study

        return await run_vote_study(ctx.run, corpus=ctx.inputs)


@bias_test
class DebiasTest(_VoteLike):
    """The vote after retrieving precedents and rehearsing them, with optional reflexion."""

    name = DEBIAS
    study = None  # `study` and `demo` run it as the ablation's cells (evals/study.py)
    ablation = True
    options_type = DebiasOptions  # its own options, each default once: graphs/debias_options.py

    def report_claims(self, ctx: Context, run: Run) -> list[pd.DataFrame]:
        """Against each baseline, then its paired delta against the plain vote of its model (Table 3)."""
        return debias_report_claims(ctx, run)

    def prepare(self, request: RunRequest, sample: SampleOptions) -> Any:
        from nationbias.graphs.study.personas import DEBIAS_HAS_NO_CONTROL, is_control
        from nationbias.retrievers import check_retriever

        if is_control(sample.personas):
            raise UsageError(DEBIAS_HAS_NO_CONTROL)
        options: DebiasOptions = request.options  # built once, by the CLI or the library (evals/api.py)
        options = options.for_body(sample.body)
        check_retriever(options.retriever)  # an unknown strategy fails before any work
        return super().prepare(request, sample), options

    async def arun(self, ctx: RunContext) -> RunSummary:
        from nationbias.graphs.study.simulate import run_debias_study

        corpus, options = ctx.inputs
        return await run_debias_study(ctx.run, corpus=corpus, options=options)
