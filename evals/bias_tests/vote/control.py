"""The persona effect section: each plain vote run against the control run of the same model and prompts
(``--personas none``), per nation, paired by draft (evals/tables/persona_effect.py)."""

from __future__ import annotations

import pandas as pd

from nationbias.evals.report.context import Context, Run, ci_text
from nationbias.evals.tables.persona_effect import persona_effect

NO_DEBIAS_CONTROL = (
    "The debiased vote has no control: it reflects on each persona's own recorded votes, so without a"
    " nation there is nothing to reflect on (--debias with --personas none is refused)."
)


def _same_setting(a: Run, b: Run) -> bool:
    """The same model, prompts, language, parameters and sample (drafts, repeats, seed) but the personas."""
    keys = ("model", "prompt_set", "language", "params")
    sample_a, sample_b = (dict(r.config.get("sample") or {}) for r in (a, b))
    sample_a.pop("personas", None), sample_b.pop("personas", None)
    return all(a.config.get(k) == b.config.get(k) for k in keys) and sample_a == sample_b


def control_of(run: Run, controls: list[Run]) -> Run | None:
    """The run's control: the one a study ran beside it (``<run id>-control``), else one run alike."""
    named = [c for c in controls if c.run_id == f"{run.run_id}-control"]
    return next(iter(named), None) or next((c for c in controls if _same_setting(run, c)), None)


def _shown(table: pd.DataFrame) -> pd.DataFrame:
    out = table[["nation", "measure", "persona", "control"]].round(3)
    out["persona_minus_control_95ci"] = [
        ci_text(p, lo, hi) for p, lo, hi in zip(table["effect"], table["low"], table["high"], strict=True)
    ]
    out["shared_drafts"] = table["shared_drafts"]
    return out.set_index("nation")


def control_section(ctx: Context) -> None:
    controls = [r for r in ctx.of("vote") if r.control]
    if not controls:
        if ctx.of("debias"):  # a reader of Table 3 asks where the debiased vote's control is
            ctx.page.note(NO_DEBIAS_CONTROL)
            ctx.page.close("persona-effect", "Persona effect — the vote against its control without a nation")
        return
    for run in [r for r in ctx.of("vote") if not r.control]:
        control = control_of(run, controls)
        if control is None:
            continue
        table = persona_effect(run.samples, control.samples, n_resamples=ctx.n_resamples, seed=ctx.seed)
        ctx.page.table(
            table,
            table_id=f"persona-effect-{run.slug}",
            caption=f"Persona effect — {run.run_id} (each nation named) minus {control.run_id} (no nation"
            " named), per nation, paired by draft",
            shown=_shown(table),
        )
    ctx.page.note(
        "The control asks the same drafts with the same prompt, the nation's name replaced by “a member of"
        " the Security Council”; its one answer per draft is scored against each member's record. For each"
        " nation: weighted F1 and the share of each vote, the persona's, the control's, and persona − control"
        " with a 95% interval from a paired bootstrap over the drafts both runs asked (repeats matched). An"
        " effect whose interval excludes 0 is what naming that nation changes. " + NO_DEBIAS_CONTROL
    )
    ctx.page.close("persona-effect", "Persona effect — the vote against its control without a nation")
