"""The Runs table as the page shows it: what differs between the runs in columns, what they share once.

The run metadata grows a column per thing a run records (model, prompts, data hash, seed, version,
options, cost…); fifteen columns of six runs do not fit a 1,400-pixel page, and most of them are the
same for every run of a study. The CSV keeps every column of every run.
"""

from __future__ import annotations

import pandas as pd

from nationbias.evals.report.html_table import Cell, plain, shortener


def runs_display(meta: pd.DataFrame) -> tuple[pd.DataFrame, str | None]:
    """(the frame to show, indexed by run id; the values every run shares, as one sentence or None).

    One run is shown as field | value rows; several as one row per run with only the columns that
    differ between them.
    """
    frame = meta.set_index("run_id")
    if len(frame) == 1:
        row = frame.iloc[0]
        cells = [_cell(field, value) for field, value in zip(row.index, row, strict=True)]
        single = pd.DataFrame({"value": cells}, index=pd.Index(row.index, name="field"))
        return pd.concat(
            [pd.DataFrame({"value": [_cell("run_id", frame.index[0])]}, index=["run_id"]), single]
        ), None
    shared = [c for c in frame.columns if frame[c].map(plain).nunique() == 1]
    varying = frame.drop(columns=shared)
    if varying.empty:  # identical runs but for their ids: still one row each
        varying = frame[[frame.columns[0]]]
        shared = shared[1:]
    note = "; ".join(f"{c}: {plain(frame[c].iloc[0])}" for c in shared)
    return varying, (f"Every run here shares {note}." if note else None)


def _cell(field: str, value: object) -> Cell:
    """A value of the one-run table, shortened as its own column would be, whole on hover."""
    text = plain(value)
    short = shortener(field)(text) if text != "—" else text
    return Cell(short, title=text if short != text else None)
