"""A CLI table outside a terminal (a pipe, a file) is printed at its own full width: every run id on
one line, as `study --dry-run | cat` needs; on a terminal, rich lays it out at the terminal's width."""

from __future__ import annotations

import io

from rich.console import Console
from rich.table import Table

from nationbias.evals.cli.table_output import print_table

RUN_IDS = [
    f"a-rather-long-study-run-identifier-for-the-pipe-{part}" for part in ("vote", "debias-k1-norf-keyword")
]


def _table() -> Table:
    table = Table(title="dry run: nothing was sent", title_justify="left")
    for column in ("run", "model", "calls", "cached", "prompt tok", "compl. tok", "USD", "USD at most"):
        table.add_column(column, overflow="fold")
    for run_id in RUN_IDS:
        table.add_row(run_id, "fake:hash", "20", "0", "596", "2,560", "0.0000", "0.0000")
    return table


def test_outside_a_terminal_each_row_is_one_line() -> None:
    out = io.StringIO()
    console = Console(file=out)  # not a terminal: rich's default width is 80
    assert not console.is_terminal and console.width == 80
    print_table(_table(), console=console)
    lines = out.getvalue().splitlines()
    for run_id in RUN_IDS:
        assert sum(run_id in line for line in lines) == 1, out.getvalue()
    assert console.width == 80  # the console is left as it was


def test_on_a_terminal_the_table_fits_the_terminal() -> None:
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=60, color_system=None)
    print_table(_table(), console=console)
    lines = out.getvalue().splitlines()
    assert max(len(line) for line in lines) <= 60
    assert not any(RUN_IDS[0] in line for line in lines)  # folded over lines, as rich does at 60 columns
