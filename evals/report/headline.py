"""A test's row on the report's first screen: what it measures, the figure with its interval, the bar it
has to clear and the paper's number. Each test makes its own (its ``headline``, evals/bias_tests/base.py);
evals/page/first_screen.py lays the rows out."""

from __future__ import annotations

from typing import NamedTuple

import pandas as pd

from nationbias.evals.report.html_table import Cell
from nationbias.evals.stats.bootstrap import CI

NOT_IN_PAPER = "not in the paper"


class Headline(NamedTuple):
    measure: str
    figure: Cell
    bar: str
    paper: str
    flag: str = ""  # why the figure may be an artefact (the answer order: evals/report/position.py)


def ci_cell(ci: CI, digits: int = 3, sign: str = "") -> Cell:
    """A figure with its interval beneath, or a dash for no figure."""
    if pd.isna(ci.point):
        return Cell("—")
    under = None if pd.isna(ci.low) else f"[{ci.low:{sign}.{digits}f}, {ci.high:{sign}.{digits}f}]"
    return Cell(f"{ci.point:{sign}.{digits}f}", under=under)
