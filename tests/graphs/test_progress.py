"""Progress that fits where it goes (graphs/progress.py): on an 80-column terminal the bar keeps every
number whole (only the description gives way); in a log, plain lines with done/total, ok, invalid,
error, calls per second, the time left and the spend, every ``every_s`` seconds and at 25/50/75 %."""

from __future__ import annotations

import asyncio
import io
from dataclasses import dataclass

import pytest
from rich.console import Console

from nationbias.graphs.model.cost.meter import Meter, metering
from nationbias.graphs.progress import BarProgress, LogProgress, RunProgress, check_every, run_progress
from nationbias.stores.config.prices import price_book
from nationbias.stores.errors import InputError


@dataclass
class Counts:
    total: int
    skipped: int = 0
    ok: int = 0
    invalid: int = 0
    error: int = 0


class Client:
    calls_made = 0


def _console(*, terminal: bool, width: int = 80) -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, width=width, force_terminal=terminal, color_system=None), out


@pytest.mark.parametrize("description", ["vote · fake:hash", "debias k=1 · openai-compatible:" + "x" * 60])
def test_the_bar_stays_readable_at_80_columns(description: str) -> None:
    counts = Counts(total=12_000, skipped=3_000, ok=1_180, invalid=11, error=9)
    console, out = _console(terminal=True)
    with metering(Meter(prices=price_book(None, price_in=1.0, price_out=2.0))):
        progress = run_progress(counts, description=description, console=console, show=True)
        assert isinstance(progress, BarProgress)
        for _ in range(counts.ok + counts.invalid + counts.error):
            progress.advance()
    # drawn outside the meter's context, as rich's refresh thread draws it: the spend still shows
    console.print(progress.progress.make_tasks_table(progress.progress.tasks))
    lines = [line for line in out.getvalue().splitlines() if line.strip()]
    assert len(lines) == 1 and len(lines[0]) <= 80, lines
    line = lines[0]
    for part in ("4200/12000", "ok 1180", "inv 11", "err 9", "ETA ", "$0.0000"):
        assert part in line, (part, line)
    assert line.startswith(description[:4]) and "━" in line  # the description (maybe cut) and a bar


def test_no_terminal_gets_plain_lines_and_show_false_gets_none() -> None:
    console, _ = _console(terminal=False)
    assert isinstance(run_progress(Counts(4), description="d", console=console, show=True), LogProgress)
    silent = run_progress(Counts(4), description="d", console=console, show=False)
    assert type(silent) is RunProgress


def test_a_log_gets_a_line_every_every_s_and_at_each_quarter() -> None:
    counts = Counts(total=8)
    client = Client()
    console, out = _console(terminal=False, width=400)

    async def main() -> None:
        async with run_progress(
            counts, description="vote · fake:hash", console=console, show=True, every_s=0.05, clients=[client]
        ) as progress:
            for n in range(counts.total):
                counts.ok += 1
                client.calls_made += 2
                progress.advance()
                await asyncio.sleep(0.04 if n < 7 else 0.3)  # then several periods with nothing new

    asyncio.run(main())
    lines = out.getvalue().splitlines()
    assert all(line.startswith("progress vote · fake:hash: ") for line in lines), lines
    assert lines[0].endswith("0/8 (0%) · ok 0 · invalid 0 · error 0 · 0.0 calls/s · ETA ?")
    for mark in ("2/8 (25%)", "4/8 (50%)", "6/8 (75%)"):
        assert sum(mark in line for line in lines) >= 1, (mark, lines)
    assert lines[-1].startswith("progress vote · fake:hash: 8/8 (100%) · ok 8 · invalid 0 · error 0 · ")
    assert "ETA 0:00:00" in lines[-1] and " calls/s" in lines[-1]
    timed = [line for line in lines if "8/8 (100%)" in line]
    assert len(timed) >= 3  # the periodic lines while nothing new came, and the last one


def test_progress_every_must_be_positive() -> None:
    assert check_every(1.5) == 1.5
    for bad in (0.0, -1.0, float("inf"), float("nan")):
        with pytest.raises(InputError, match="--progress-every must be a positive number of seconds"):
            check_every(bad)
