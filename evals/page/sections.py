"""The report's sections: the runs, each registered test's own sections, significance after correction,
agreement and answer quality.

Above the registry of tests (evals/bias_tests/), which gives each test's sections and tables; no test
imports it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from nationbias.evals.bias_tests import bias_tests, get_test
from nationbias.evals.report.context import Context, Run
from nationbias.evals.report.cost import cost_table
from nationbias.evals.results import tables_for
from nationbias.prompts.registry import QUOTED_TEXT, UNREVIEWED_NOTE
from nationbias.stores.domain import EMBEDDED_NOTICE

if TYPE_CHECKING:
    from nationbias.stores.state.runstore import RunStore

BANNER = EMBEDDED_NOTICE[0].upper() + EMBEDDED_NOTICE[1:]  # the page's banner: one wording, capitalised

__all__ = ["BANNER", "Context", "Run", "load_runs", "write_sections"]


def load_runs(run_ids: list[str], store: RunStore) -> list[Run]:
    runs = []
    for run_id in run_ids:
        config, samples = store.get_run(run_id), store.samples_frame(run_id)
        test = get_test(str(config.get("test")))
        runs.append(Run(run_id, config, samples, tables_for(run_id, config, samples), kind=test))
    return runs


def write_sections(ctx: Context) -> None:
    """Every section of a test present, in the registry's order (the paper's), each written once."""
    _runs_section(ctx)
    present = {run.test for run in ctx.runs}
    written: set[object] = set()
    for name, test in bias_tests().items():
        if name not in present:
            continue
        for section in test.sections:  # vote and debias share theirs
            if section not in written:
                written.add(section)
                section(ctx)
    from nationbias.evals.page.significance import significance_section

    significance_section(ctx)  # every run's per-nation claims, corrected over each family and the report
    from nationbias.evals.page.languages import language_section

    language_section(ctx)  # the tests asked in another UN language against English
    _agreement(ctx)
    _quality(ctx)
    from nationbias.evals.page.refusals import refusal_section

    refusal_section(ctx)  # answers without a usable choice by reason, refusal rates per nation
    from nationbias.evals.page.first_screen import first_screen

    first_screen(ctx)  # written last, placed first: it reads every run


def text_language_note(ctx: Context) -> str:
    """How the runs in another language showed the record's own text: quoted in English, or translated by a
    model (``--translate-with``: who, with which template, and what the translation's leak guard removed)."""
    parts = []
    if any(r.config.get("text_language") == QUOTED_TEXT for r in ctx.runs):
        parts.append("the record's own text was quoted in English in the runs marked en (quoted)")
    for run in ctx.runs:
        done = run.config.get("translation")
        if not done:
            continue
        parts.append(
            f"in run {run.run_id} the record's own text (and each precedent's summary) was translated into "
            f"{done['language']} by {done['translator']} ({done['template']}, temperature 0, once per text); "
            f"its leak guard found an outcome marker in {done['markers_found']} translated sentence(s) and "
            f"removed {done['sentences_removed']}"
        )
    return "; ".join(parts) or "the record's own text was quoted in English"


def _runs_section(ctx: Context) -> None:
    from nationbias.evals.report.runs_table import runs_display

    meta = pd.concat([r.tables["metadata"] for r in ctx.runs], ignore_index=True)
    shown, shared = runs_display(meta)  # what differs in columns, what every run shares in a sentence
    ctx.page.table(
        meta,
        table_id="run-metadata",
        caption="Runs in this report: model, prompts, data, seed, version",
        shown=shown,
    )
    if shared:
        ctx.page.note(shared)
    if unreviewed := sorted({str(n) for n in meta.get("language", []) if UNREVIEWED_NOTE in str(n)}):
        ctx.page.note(  # --language: the translated prompts (prompts/registry.py)
            f"Prompts asked in {', '.join(unreviewed)}: the translation is {UNREVIEWED_NOTE}; "
            f"{text_language_note(ctx)}. Its line-by-line English back-translation lies beside "
            "each template (prompts/templates/…/<lang>/<name>.vN.back-en.txt)."
        )
    ctx.page.table(  # evals/report/cost.py: tokens the answers took, their price, what the run paid
        cost_table(ctx.runs), table_id="run-cost", caption="Tokens and cost per run (cached calls: free)"
    )
    ctx.page.close("runs", "Runs")


def _agreement(ctx: Context) -> None:
    for run in ctx.runs:
        name = get_test(run.test).agreement_table
        if name is None:
            continue
        from nationbias.evals.report.agreement_view import determinism_note, shown_agreement

        table = run.tables[name]
        ctx.page.table(
            table,
            table_id=f"agreement-{run.slug}",
            caption=f"Agreement across repeats ({name}), χ² judged at its own dof: {run.label}",
            shown=shown_agreement(table).set_index(table.columns[0]) if len(table.columns) else None,
        )

        if (said := determinism_note(run)) is not None:
            ctx.page.note(said)
    ctx.page.note(
        "Where κ or χ² is not defined (one category over every answer, one item, zero degrees of freedom)"
        " the cell says undefined and why, % agree gives the raw share of agreeing repeats,"
        ' and a verdict reads "not tested" where no test was made.'
        " κ > 0.40 (Appendix E). Each χ² passes when it is below critical = χ²₀.₉₅(dof) of its own table"
        " (p is its p-value): multi-χ² dof = (runs − 1)(classes chosen − 1), DirectQA over the five nations"
        " with neutral answers beside; Friedman dof = runs − 1. The paper's χ² is its fixed threshold"
        " (9.488 votes, 15.507 DirectQA, 5.991 Friedman), right only for 3 runs and every class present."
    )
    ctx.page.close("agreement", "Agreement across repeats (Appendix E)")


def _quality(ctx: Context) -> None:
    for run in ctx.runs:
        slug = run.slug
        key = get_test(run.test).invalid_table
        if key is not None:
            ctx.page.table(
                run.tables[key],
                table_id=f"invalid-{slug}",
                caption=f"Invalid and errored answers (counted, not filled in): {run.label}",
            )
        if "judge" in run.tables:
            ctx.page.table(
                run.tables["judge"],
                table_id=f"judge-{slug}",
                caption=f"Labels decided by the rules vs the LLM judge: {run.label}",
            )
        if "missing_contexts" in run.tables:
            ctx.page.table(
                run.tables["missing_contexts"],
                table_id=f"missing-{slug}",
                caption=f"Contexts: fallbacks, draft texts and the UN's own texts shown: {run.label}",
            )
    ctx.page.close("quality", "Answer quality: invalid answers, judge decisions, missing contexts")
