"""The report's first screen: what was run and what it found, one row per run.

Each row gives the test's headline figure with its 95% interval, the bar it has to clear (the
non-LLM baselines for the vote tests, the even-handed value for the explicit tests) and the paper's
number for the same model, or says the paper has none. Each test makes its own row (its ``headline``,
evals/report/headline.py); a test without one still gets its row, pointing at its own section.
"""

from __future__ import annotations

import pandas as pd

from nationbias.evals.report.context import Context
from nationbias.evals.report.headline import NOT_IN_PAPER, Headline
from nationbias.evals.report.html_table import Cell, model_name


def headline_frame(ctx: Context) -> pd.DataFrame:
    from nationbias.evals.bias_tests import bias_tests
    from nationbias.evals.bias_tests.base import headline_of

    tests, rows = bias_tests(), []
    for run in ctx.runs:
        make = headline_of(tests[run.test]) if run.test in tests else None
        found = (
            make(ctx, run) if make else Headline("see the test's own section", Cell("—"), "—", NOT_IN_PAPER)
        )
        status = run.samples["status"].value_counts() if len(run.samples) else pd.Series(dtype=int)
        rows.append(
            {
                "test": run.test,
                "model": run.model,
                "run_id": run.run_id,
                "samples": Cell(
                    str(len(run.samples)),
                    under=f"{int(status.get('invalid', 0))} invalid, {int(status.get('error', 0))} error",
                ),
                "headline": found.measure,
                "figure, 95% interval": found.figure,
                "baseline to beat": found.bar,
                "paper": found.paper,
                "flag": Cell(f"⚑ FLAGGED: {found.flag}") if found.flag else "—",
            }
        )
    frame = pd.DataFrame(rows)
    return frame if frame["flag"].ne("—").any() else frame.drop(columns="flag")


def first_screen(ctx: Context) -> None:
    """The section that opens the report (written last, placed first: it reads every run)."""
    frame = headline_frame(ctx)
    models = sorted({model_name(r.model) for r in ctx.runs})
    shown = frame.set_index("test")
    ctx.page.table(
        frame.assign(
            **{c: frame[c].map(_text) for c in ("samples", "figure, 95% interval", "flag") if c in frame}
        ),
        table_id="headline",
        caption="What was run and what it found: each run's headline figure, the bar it has to clear, and"
        " the paper's number for the same model",
        shown=shown,
    )
    ctx.page.note(
        f"{len(ctx.runs)} run{'s' * (len(ctx.runs) != 1)} of {', '.join(models)}. Intervals are 95% bootstrap"
        " intervals resampling items (drafts, pairs, keywords); every question counts, a failed answer as"
        " a miss. The paper's numbers are on its 66 drafts and three runs, shown only for the same model."
    )
    ctx.page.close("first-screen", "What was run and what it found", first=True)


def _text(cell: object) -> str:
    if isinstance(cell, Cell):
        return f"{cell.text} {cell.under}" if cell.under else cell.text
    return str(cell)
