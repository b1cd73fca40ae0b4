"""Printing a rich table: at the terminal's width on a terminal; elsewhere (a pipe, a file, a test
runner) at the table's own full width, so every row stays on one line and no run id is folded over
several lines at rich's default of 80 columns."""

from __future__ import annotations

from rich.console import Console
from rich.measure import Measurement
from rich.table import Table


def print_table(table: Table, *, console: Console) -> None:
    """``table`` on ``console``: as is on a terminal, else as wide as its widest row needs."""
    if console.is_terminal:
        console.print(table)
        return
    natural = Measurement.get(console, console.options.update(width=10_000), table).maximum
    width = console.width  # print(width=…) cannot exceed the console's own: widen it for this table
    console.width = max(width, natural)
    try:
        console.print(table, crop=False)
    finally:
        console.width = width
