"""One self-contained HTML report for a set of runs: the paper's Tables 1–5 and Figures 2–4 analogues.

Every table is also written as CSV and every figure as PNG beside ``index.html``. Model text never
reaches the page unescaped: cells go through ``DataFrame.to_html(escape=True)``, the rest through
``html.escape``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from nationbias.evals.page.scope_line import scope_line
from nationbias.evals.page.sections import BANNER, Context, load_runs, write_sections
from nationbias.evals.report.html import Page, page
from nationbias.evals.report.reportable import progress_notes, reportable
from nationbias.evals.report.sample_browser import sample_browser_section
from nationbias.stores.config.paths import libraries_inside_home
from nationbias.stores.errors import InputError

if TYPE_CHECKING:
    from nationbias.stores.state.runstore import RunStore

__all__ = ["BANNER", "write_report"]


def write_report(
    run_ids: list[str] | tuple[str, ...],
    *,
    out_dir: Path,
    store: RunStore | None = None,
    baselines: pd.DataFrame | None = None,
    baseline_predictions: pd.DataFrame | None = None,
    n_resamples: int = 1000,
    seed: int = 0,
) -> Path:
    """Write ``out_dir/index.html`` (+ PNGs and CSVs) for ``run_ids``; returns the HTML path.

    ``baseline_predictions`` (baseline, item, persona, truth, pred) lets every comparison with a baseline
    be made on the drafts and members of the run it stands beside, paired by draft."""
    if not run_ids:
        raise InputError("write_report needs at least one run id")
    libraries_inside_home()  # matplotlib's config and font cache, before it is first imported
    if store is None:
        from nationbias.stores.state.runstore import RunStore

        store = RunStore()
    run_ids = reportable(run_ids, store)  # each once; one with no samples fails here, by name
    notes = progress_notes(run_ids, store)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    runs = load_runs(run_ids, store)
    ctx = Context(
        runs=runs,
        page=Page(out_dir),
        baselines=baselines,
        n_resamples=n_resamples,
        seed=seed,
        baseline_predictions=baseline_predictions,
    )
    write_sections(ctx)
    # the link to samples.html, right after the first screen (what was run and what it found)
    ctx.page.sections.insert(1, sample_browser_section(runs, out_dir=out_dir))
    embedded = any(r.embedded for r in runs)
    path = out_dir / "index.html"
    path.write_text(
        page(
            title="nationbias report",
            sections=ctx.page.sections,
            banner=" · ".join([BANNER] * embedded + notes) or None,
            subtitle=", ".join(r.label for r in runs),
            scope=scope_line(runs),
        ),
        encoding="utf-8",
    )
    return path
