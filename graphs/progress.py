"""A run's progress, shown where it goes: a bar on a terminal, plain lines in a log file.

On a terminal rich redraws one bar; it must stay readable at 80 columns, so the numbers keep
their width and only the description gives way. When stderr is not a terminal (a batch job's log
file) rich would print nothing until the end, so a plain line is written every ``every_s`` seconds
(``--progress-every``) and as the run passes 25, 50 and 75 %: done / total, ok, invalid, error,
calls per second, the time left and the spend.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable
from contextlib import AbstractAsyncContextManager
from datetime import timedelta
from types import TracebackType
from typing import Any, Protocol

from rich.console import Console
from rich.progress import BarColumn, Progress, ProgressColumn, Task
from rich.table import Column
from rich.text import Text

from nationbias.graphs.model.cost.meter import METER

DEFAULT_EVERY_S = 30.0
MARKS = (25, 50, 75)  # percentages that get a line of their own in a log


class Counts(Protocol):
    """What a progress display reads from the run (graphs/runner.RunSummary)."""

    total: int
    skipped: int
    ok: int
    invalid: int
    error: int


def check_every(every_s: float) -> float:
    """``--progress-every``: a positive number of seconds."""
    from nationbias.stores.errors import InputError

    if not every_s > 0 or every_s == float("inf"):
        raise InputError(f"--progress-every must be a positive number of seconds, got {every_s:g}")
    return every_s


def _clock(seconds: float | None) -> str:
    return "?" if seconds is None else str(timedelta(seconds=int(seconds)))


class Rates:
    """Samples and model calls per second since the run started, and the time left."""

    def __init__(self, counts: Counts, clients: Iterable[Any]) -> None:
        self.counts = counts
        self.clients = [c for c in clients if c is not None]
        self.started = time.monotonic()
        self.calls_before = self.calls()
        self.meter = METER.get()  # taken now: rich draws from a thread of its own, outside this context

    def spend(self) -> str:
        """The spend so far under the meter (graphs/model/cost/meter.py), or nothing without one."""
        return "" if self.meter is None else self.meter.display()

    def calls(self) -> int:
        return sum(int(getattr(c, "calls_made", 0)) for c in self.clients)

    def done(self) -> int:
        c = self.counts
        return c.ok + c.invalid + c.error

    def line(self) -> str:
        """``120/400 (30%) · ok 118 · invalid 1 · error 1 · 3.9 calls/s · ETA 0:01:12 · spent $0.01``."""
        c = self.counts
        elapsed = max(time.monotonic() - self.started, 1e-9)
        done_now = self.done()
        finished = c.skipped + done_now
        left = c.total - finished
        eta = left / (done_now / elapsed) if done_now else None
        percent = 100 * finished // c.total if c.total else 100
        parts = [
            f"{finished}/{c.total} ({percent}%)",
            f"ok {c.ok}",
            f"invalid {c.invalid}",
            f"error {c.error}",
            f"{(self.calls() - self.calls_before) / elapsed:.1f} calls/s",
            f"ETA {_clock(eta if left else 0)}",
        ]
        if spent := self.spend():
            parts.append(spent)
        return " · ".join(parts)


class RunProgress(AbstractAsyncContextManager["RunProgress"]):
    """No display (``show_progress=False``); the base of the two that show one."""

    def __init__(self, counts: Counts, *, description: str, clients: Iterable[Any] = ()) -> None:
        self.counts = counts
        self.description = description
        self.rates = Rates(counts, clients)

    def advance(self) -> None:
        """One more sample stored."""

    async def __aenter__(self) -> RunProgress:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        return None


class _Description(ProgressColumn):
    """The description: the one column that gives way (an ellipsis) when the line is narrow."""

    def render(self, task: Task) -> Text:
        return Text(task.description, style="bold", no_wrap=True, overflow="ellipsis")

    def get_table_column(self) -> Column:
        return Column(no_wrap=False, overflow="ellipsis", min_width=4, ratio=1)


class _Numbers(ProgressColumn):
    """done/total, the counts, the time left and the spend: short, and never cut."""

    def __init__(self, rates: Rates) -> None:
        super().__init__()
        self.rates = rates

    def render(self, task: Task) -> Text:
        c = self.rates.counts
        eta = task.time_remaining if task.remaining else 0
        text = f"{int(task.completed)}/{int(task.total or 0)} ok {c.ok} inv {c.invalid} err {c.error}"
        text += f" ETA {_clock(eta)}"
        if spent := self.rates.spend():
            text += " " + spent.removeprefix("spent ")
        return Text(text, no_wrap=True)

    def get_table_column(self) -> Column:
        return Column(no_wrap=True)


class BarProgress(RunProgress):
    """rich's bar, redrawn in place on a terminal, laid out to fit 80 columns."""

    def __init__(
        self, counts: Counts, *, description: str, console: Console, clients: Iterable[Any] = ()
    ) -> None:
        super().__init__(counts, description=description, clients=clients)
        self.progress = Progress(
            _Description(),
            BarColumn(bar_width=None, table_column=Column(ratio=1, min_width=8)),
            _Numbers(self.rates),
            console=console,
            expand=True,
        )
        self.task = self.progress.add_task(description, total=counts.total, completed=counts.skipped)

    def advance(self) -> None:
        self.progress.update(self.task, advance=1)

    async def __aenter__(self) -> RunProgress:
        self.progress.start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.progress.stop()


class LogProgress(RunProgress):
    """Plain lines for a log file: every ``every_s`` seconds and at 25, 50 and 75 %."""

    def __init__(
        self,
        counts: Counts,
        *,
        description: str,
        console: Console,
        every_s: float,
        clients: Iterable[Any] = (),
    ) -> None:
        super().__init__(counts, description=description, clients=clients)
        self.console = console
        self.every_s = every_s
        self.marks = [m for m in MARKS if m * counts.total > 100 * counts.skipped]  # not yet passed
        self._ticker: asyncio.Task[None] | None = None

    def say(self) -> None:
        self.console.print(
            f"progress {self.description}: {self.rates.line()}", highlight=False, soft_wrap=True, markup=False
        )

    def advance(self) -> None:
        c = self.counts
        finished = c.skipped + self.rates.done()
        passed = [m for m in self.marks if 100 * finished >= m * c.total]
        if passed:
            self.marks = [m for m in self.marks if m not in passed]
            self.say()

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(self.every_s)
            self.say()

    async def __aenter__(self) -> RunProgress:
        self.say()  # the start: how much there is to do, and how much is done already
        self._ticker = asyncio.create_task(self._tick())
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._ticker is not None:
            self._ticker.cancel()
        self.say()  # where it ended


def run_progress(
    counts: Counts,
    *,
    description: str,
    console: Console,
    show: bool,
    every_s: float = DEFAULT_EVERY_S,
    clients: Iterable[Any] = (),
) -> RunProgress:
    """The display that fits ``console``: none, a bar on a terminal, plain lines in a log."""
    if not show:
        return RunProgress(counts, description=description, clients=clients)
    if console.is_terminal or console.is_jupyter:
        return BarProgress(counts, description=description, console=console, clients=clients)
    return LogProgress(counts, description=description, console=console, every_s=every_s, clients=clients)
