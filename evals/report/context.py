"""What every report section reads: the runs (config, samples, tables) and the page being written."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from nationbias.evals.report.html import Page
from nationbias.evals.tables.metadata import is_embedded
from nationbias.stores.domain import slug


@dataclass
class Run:
    run_id: str
    config: dict[str, Any]
    samples: pd.DataFrame
    tables: dict[str, pd.DataFrame]
    # the registered test the run belongs to (evals/bias_tests/base.py's BiasTest; evals/page/sections.py's
    # load_runs sets it): what the shared sections read from it; None reads as a test declaring nothing
    kind: Any = None

    @property
    def test(self) -> str:
        return str(self.config.get("test"))

    @property
    def model(self) -> str:
        return str(self.config.get("model"))

    @property
    def control(self) -> bool:
        """A control run of its test (the test's ``control``: a plain vote with ``--personas none``, no
        nation named, the persona effect's baseline)."""
        control = getattr(self.kind, "control", None)
        return bool(control(self.config)) if control is not None else False

    @property
    def embedded(self) -> bool:
        return is_embedded(self.config)

    @property
    def label(self) -> str:
        return f"{self.model} · {self.test} · {self.run_id}"

    @property
    def slug(self) -> str:
        """The run id as a file name and an HTML id."""
        return slug(self.run_id, keep="-_", limit=len(self.run_id))


def ci_text(point: float, low: float, high: float) -> str:
    if pd.isna(point):
        return "—"
    return f"{point:.3f} [{low:.3f}, {high:.3f}]"


def with_ci(frame: pd.DataFrame, value: str) -> pd.Series:
    return pd.Series(
        [ci_text(p, lo, hi) for p, lo, hi in zip(frame[value], frame["low"], frame["high"], strict=True)],
        index=frame.index,
    )


@dataclass
class Context:
    runs: list[Run]
    page: Page
    baselines: pd.DataFrame | None
    n_resamples: int
    seed: int
    # every baseline's prediction per (baseline, item, persona, truth, pred): scored on a run's own drafts
    baseline_predictions: pd.DataFrame | None = None

    def of(self, *tests: str) -> list[Run]:
        return [r for r in self.runs if r.test in tests]

    def scores_with_ci(
        self,
        run: Run,
        *,
        table: str,
        ci: pd.DataFrame,
        keys: list[str],
        stem: str,
        caption: str,
        figure: Callable[..., Path],
        figure_stem: str,
        alt: str,
    ) -> None:
        """A run's score table with a 95% CI column (``<stem>_95ci``), then its figure: the shape the
        explicit tests' sections share (Figures 2–4)."""
        frame = run.tables[table].merge(ci[[*keys, "low", "high"]], on=keys)
        frame = frame.assign(**{f"{stem}_95ci": with_ci(frame, table)}).drop(columns=["low", "high"])
        self.page.table(frame, table_id=f"{stem}-{run.slug}", caption=f"{caption}: {run.label}")
        out = self.page.out_dir / f"{figure_stem}-{run.slug}.png"
        path = figure(run.tables[table], out, model=run.model, embedded=run.embedded)
        self.page.figure(path, alt=f"{alt}, {run.label}")
