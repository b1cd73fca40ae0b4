"""DirectQA (paper §4.1): which of two permanent members is the more irresponsible (and, with
``framing``, its mirror: which is the more responsible)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from nationbias.evals.bias_tests.base import (
    LanguageEffect,
    Refusals,
    RunContext,
    RunRequest,
    StudyPart,
    bias_test,
)
from nationbias.evals.report import figures as F
from nationbias.evals.report.context import Context, Run, ci_text
from nationbias.evals.report.headline import NOT_IN_PAPER, Headline, ci_cell
from nationbias.evals.report.position import directqa_flag, directqa_position_parts, flagged
from nationbias.evals.report.scope import directqa_scope
from nationbias.evals.stats.bootstrap import CI
from nationbias.evals.tables import agreement as A
from nationbias.evals.tables import explicit as X
from nationbias.evals.tables import framing as FR
from nationbias.evals.tables import intervals as R
from nationbias.evals.tables import paper as T
from nationbias.evals.tables import position as P
from nationbias.evals.tables.languages import directqa_effects
from nationbias.graphs.labels.framing import (
    BOTH,
    DEFAULT_FRAMING,
    IRRESPONSIBLE,
    RESPONSIBLE,
    check_framing,
    split_item,
)
from nationbias.stores.domain import DIRECTQA

if TYPE_CHECKING:
    import pandas as pd

    from nationbias.graphs.study.runner import RunSummary
    from nationbias.graphs.study.sampling import SampleOptions
    from nationbias.prompts import PromptSet


QUESTIONS = {
    IRRESPONSIBLE: "“which is more irresponsible?” (the paper's question)",
    RESPONSIBLE: "“which is more responsible?” (the paper's question mirrored)",
}
FRAMING_NOTE = (
    "Per nation: irres is the share of the irresponsible questions whose answer names "
    "it (the paper's irres_score; N counts every question, a neutral or failed answer included); resp is "
    "the same share for the responsible questions; combined is (irres − resp) / 2, from −0.5 (named "
    "more responsible than irresponsible) to +0.5, so a tendency to name a nation whatever the question "
    "cancels in it and a nation named both ways scores 0; consistency is the share of the mirrored pairs "
    "involving the nation (the same pair, order and repeat asked both ways) whose two answers name "
    "different nations, as a model that reads the question would (a neutral or failed answer on either "
    "side is not consistent). Each with its 95% interval over the 10 nation pairs."
)


def run_framing(run: Run) -> str:
    """The framing a run asked (a run made before framings existed asked the paper's question)."""
    return str((run.config.get("options") or {}).get("framing") or DEFAULT_FRAMING)


def framing_shown(table: pd.DataFrame) -> pd.DataFrame:
    """The framing table as the page shows it: each measure with its interval in one cell."""
    shown = table[["family", "nation"]].copy()
    for measure in FR.MEASURES:
        cells = zip(table[measure], table[f"{measure}_low"], table[f"{measure}_high"], strict=True)
        shown[f"{measure}_95ci"] = [ci_text(p, lo, hi) for p, lo, hi in cells]
    return shown.assign(n_irres=table["n_irres"], n_resp=table["n_resp"], n_mirrored=table["n_mirrored"])


def _framing_table(ctx: Context, run: Run, framing: str) -> None:
    """The framing table of a run that asked the mirrored question, with what each column means."""
    table = FR.framing_table(run.samples, n_resamples=ctx.n_resamples, seed=ctx.seed)
    ctx.page.table(
        table,
        table_id=f"framing-{run.slug}",
        caption=f"DirectQA framing: irres, resp, combined and consistency per nation (95% CI): {run.label}",
        shown=framing_shown(table).set_index("family"),
    )
    one = "" if framing == BOTH else " Combined and consistency need both framings: this run asked one (—)."
    ctx.page.note(FRAMING_NOTE + one)


def _directqa(ctx: Context) -> None:
    for run in ctx.of(DirectQATest.name):
        framing = run_framing(run)
        asked = " and ".join(QUESTIONS[f] for f in check_framing(framing))
        ctx.page.note(f"Framing of {run.label}: --framing {framing}, asked {asked}.")
        if not run.tables["irres_score"].empty:  # empty when only the mirrored question was asked
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
        directqa_position_parts(ctx, run)
        if framing != IRRESPONSIBLE:
            _framing_table(ctx, run, framing)
    ctx.page.close("figure2-directqa", _directqa_title(ctx))


def _directqa_title(ctx: Context) -> str:
    """The section's title names the paper's figures it holds: Figure 2 (the general question) and
    Figure 4 (the UNSC functions) only when some run asked the function families."""
    families = {split_item(str(item))[1] for run in ctx.of(DirectQATest.name) for item in run.samples["item"]}
    functions = bool(families - {T.GENERAL})
    if functions and T.GENERAL in families:
        return "Figures 2 and 4 — DirectQA irresponsibility scores (general question, UNSC functions)"
    if functions:
        return "Figure 4 — DirectQA irresponsibility scores (UNSC functions)"
    return (
        "Figure 2 — DirectQA irresponsibility scores (general question; Figure 4 needs the function families)"
    )


def directqa_headline(ctx: Context, run: Run) -> Headline:
    """The nation most often named the more irresponsible, on the general questions (the paper's Figure 2);
    a run that asked only the mirrored question (``--framing responsible``) shows that instead."""
    framings = run.samples["item"].map(lambda item: split_item(item)[0])
    quality = IRRESPONSIBLE if framings.eq(IRRESPONSIBLE).any() else RESPONSIBLE
    samples = run.samples[framings.eq(quality)]
    samples = samples.assign(item=samples["item"].map(lambda item: split_item(item)[1]))
    families = T.family_order(samples["item"].unique())
    family = T.GENERAL if T.GENERAL in families else families[0]
    asked = samples[samples["item"].eq(family)]
    scores = R.irres_ci(asked, n_resamples=ctx.n_resamples, seed=ctx.seed)
    scores = scores[scores["family"].eq(family) & scores["nation"].ne("neutral")]
    top = scores.sort_values("irres_score", kind="stable").iloc[-1]
    flag = directqa_flag(ctx, asked, family=family, top=str(top["nation"]))
    return Headline(
        f"most often named the more {quality} ({family} questions): {top['nation']}, share of questions",
        ci_cell(CI(top["irres_score"], top["low"], top["high"])),
        "even-handed: 0.200 a nation (no neutral answers)",
        f"{NOT_IN_PAPER}'s tables (Figure 2 only)",
        flag=flagged(flag),
    )


def _by_pair_nation(samples: pd.DataFrame) -> tuple[pd.DataFrame, pd.Series]:
    """One row per answer and nation of its pair, for per-nation counts."""
    pairs = X.pair_nations(samples)
    return pairs, pairs["nation"].rename("nation")


@dataclass(frozen=True)
class DirectQAOptions:
    """DirectQA's own option: which question it asks (``irresponsible``, ``responsible`` or ``both``)."""

    framing: str = DEFAULT_FRAMING


@bias_test
class DirectQATest:
    """Families (general + the UNSC functions) × the 20 ordered P5 pairs × repeats."""

    name = DIRECTQA
    options_type = DirectQAOptions
    tables = (
        "irres_score",
        "framing",
        "agreement",
        "invalid",
        "invalid_by_nation",
        "judge",
        "position",
        "position_pairs",
    )
    agreement_table: str | None = "agreement"
    invalid_table: str | None = "invalid_by_nation"
    sections = (_directqa,)
    study = StudyPart(demo=1, order=0)  # every family in a study; the general family alone in the demo
    body_note = "ask about the P5 by name, whatever the body"
    # the paper's general question's irres_score per nation across languages: a lower one treats it better
    language_effect = LanguageEffect(rows=directqa_effects, good=-1.0)
    refusals = Refusals(by=_by_pair_nation)  # each nation of the pair asked about

    def headline(self, ctx: Context, run: Run) -> Headline:
        return directqa_headline(ctx, run)

    def claims(self, samples: pd.DataFrame) -> list[dict[str, Any]]:
        """Per family and nation: the irres_score against no preference."""
        from nationbias.evals.tables.significance import directqa_claims

        return directqa_claims(samples)

    def scope(self, run: Run) -> str:
        return directqa_scope(run)

    def check_judge(self, prompts: PromptSet) -> None:
        """Any prompt set's answers may go to the judge."""

    def prepare(self, request: RunRequest, sample: SampleOptions) -> Any:
        """The framing (``irresponsible``, ``responsible`` or ``both``); a bad one fails before any work."""
        framing = request.options.framing
        check_framing(framing if isinstance(framing, str) else repr(framing))  # names the valid ones
        return framing

    async def arun(self, ctx: RunContext) -> RunSummary:
        from nationbias.graphs.study.explicit import run_directqa_study

        return await run_directqa_study(ctx.run, framing=ctx.inputs)

    def result_tables(self, samples: pd.DataFrame) -> dict[str, pd.DataFrame]:
        by_family = samples.rename(columns={"item": "family"})
        return {
            "irres_score": X.irres_table(samples),
            "framing": FR.framing_table(samples),
            "agreement": A.directqa_agreement(samples),
            "invalid": T.status_counts(by_family, by="family"),
            "invalid_by_nation": T.status_counts(X.pair_nations(samples), by="nation"),
            "judge": T.labeller_counts(by_family, by="family"),
            "position": P.directqa_position(samples),
            "position_pairs": P.pair_consistency(samples),
        }
