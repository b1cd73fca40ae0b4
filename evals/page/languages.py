"""The report's section on the language of the question: for each model and test asked
in English and in another UN language, the headline number's difference to English with a paired
interval, and which nation each language treats best and worst."""

from __future__ import annotations

import pandas as pd

from nationbias.evals.report.context import Context, Run, ci_text
from nationbias.evals.tables.languages import language_effects, language_favours
from nationbias.prompts.registry import QUOTED_TEXT, UNREVIEWED_NOTE, language_note
from nationbias.stores.domain import DEFAULT_LANGUAGE, config_language


def run_language(run: Run) -> str:
    """The language a run asked in (a run from before languages asked in English)."""
    return config_language(run.config)


def effects_of(ctx: Context) -> pd.DataFrame:
    """Every (model, test) asked in English and another language: each other language against the first
    English run of the same model and test."""
    from nationbias.evals.bias_tests.base import language_effect_of

    parts = []
    for run in ctx.runs:
        language, effect = run_language(run), language_effect_of(run.kind)
        if language == DEFAULT_LANGUAGE or effect is None:  # a test with no number to compare: none
            continue
        english = [
            r
            for r in ctx.runs
            if r.model == run.model
            and r.test == run.test
            and r.control == run.control  # a control (no nation named) against a control
            and run_language(r) == DEFAULT_LANGUAGE
        ]
        if not english:
            continue
        table = language_effects(
            run.test,
            english[0].samples,
            run.samples,
            rows=effect.rows,
            language=language,
            n_resamples=ctx.n_resamples,
            seed=ctx.seed,
        )
        parts.append(table.assign(model=run.model, run=run.run_id, english_run=english[0].run_id))
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def _text_shown(ctx: Context, run_ids: set[str]) -> str:
    """How the runs compared showed the record's own text: quoted in English, or translated (by whom)."""
    shown = sorted(
        {str(r.config.get("text_language") or QUOTED_TEXT) for r in ctx.runs if r.run_id in run_ids}
    )
    translated = [
        s.split(" (", 1)[1].rstrip(")") + f" into {s.split(' ', 1)[0]}" for s in shown if "translated" in s
    ]
    parts = (["quoted in English"] if QUOTED_TEXT in shown else []) + translated
    return " or ".join(parts) or "quoted in English"


def language_section(ctx: Context) -> None:
    """The effects table, the favours table and what the translations are (unreviewed, text quoted)."""
    effects = effects_of(ctx)
    if effects.empty:
        return
    notes = sorted({language_note(code) for code in effects["language"]})
    ctx.page.note(
        "Each test asked again in another of the UN's official languages, on the same items: the headline"
        " number in that language minus the English one (weighted F1 per persona; irres_score of the paper's"
        " general question and ATS per nation), with a 95 % paired bootstrap interval (the items both runs"
        f" asked, resampled jointly). Languages: {'; '.join(notes)}. The instructions are translated; the"
        f" record's own text is {_text_shown(ctx, set(effects['run']))}; translations {UNREVIEWED_NOTE} may"
        " carry their own wording effects."
    )
    shown = effects[["subject", "model", "test", "language", "metric", "n_items"]].copy()
    shown["english"] = effects["english"].map(lambda v: f"{v:.3f}")
    shown["in the language"] = effects["value"].map(lambda v: f"{v:.3f}")
    shown["delta [95% CI]"] = [
        ci_text(d, lo, hi)
        for d, lo, hi in zip(effects["delta"], effects["low"], effects["high"], strict=True)
    ]
    shown = shown.set_index("subject")
    ctx.page.table(
        effects,
        shown=shown,
        table_id="language-effects",
        caption="The language effect: each language's number minus English's, on the items both asked",
        csvs={"language-effects": effects},
    )
    from nationbias.evals.bias_tests.base import language_effect_of

    good = {
        run.test: e.good for run in ctx.runs if (e := language_effect_of(run.kind)) and e.good is not None
    }
    favours = language_favours(effects, good=good)
    if len(favours):
        ctx.page.table(
            favours,
            shown=favours.set_index("language"),
            table_id="language-favours",
            caption="Which nation each language treats best and worst against English (a lower irres_score,"
            " a higher ATS); clear: an interval excludes 0",
            csvs={"language-favours": favours},
        )
    ctx.page.close("languages", "The language of the question")
