"""Stopping a run on purpose: Ctrl-C, a store that cannot be written, an unreachable endpoint.

The first Ctrl-C stops issuing calls and gives the calls in flight up to ``grace_s`` seconds
(``NATIONBIAS_GRACE_S``, default 20) to finish and be stored, since they are already paid for; a
second Ctrl-C, or the end of the grace period, cancels them. A store or endpoint fault cancels
them at once: nothing more can be stored, and nothing more can be asked. Either way the runner
raises :class:`RunHalted` with the summary of what was stored, for the command line to report.
"""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Callable
from typing import Any

from stores.errors import InputError
from stores.faults import RunFault
from stores.settings import settings

DEFAULT_GRACE_S = 20.0


class Interrupted(RunFault):
    """Ctrl-C (SIGINT): the run stopped on the user's request."""

    exit_code = 130


class RunHalted(Exception):
    """A run stopped before its end; ``summary`` counts what was stored, ``fault`` says why."""

    def __init__(self, fault: RunFault, summary: Any) -> None:
        super().__init__(str(fault))
        self.fault = fault
        self.summary = summary


def grace_s() -> float:
    """``NATIONBIAS_GRACE_S``, checked here: a bad value is the user's to fix, named as they typed it."""
    raw = settings().grace_s
    try:
        return max(0.0, float(raw)) if raw else DEFAULT_GRACE_S
    except ValueError:
        raise InputError(f"NATIONBIAS_GRACE_S must be a number of seconds, got {raw!r}") from None


class Halt:
    """The stop signal the runner's lanes check before taking a task, and who cancels them."""

    def __init__(self, *, notify: Callable[[str], None], grace: float | None = None) -> None:
        self.fault: RunFault | None = None
        self.grace = grace_s() if grace is None else grace
        self.notify = notify
        self.tasks: list[asyncio.Task[None]] = []
        self.cancelled = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._previous: Any = signal.default_int_handler
        self._timer: asyncio.TimerHandle | None = None

    @property
    def stopping(self) -> bool:
        return self.fault is not None

    def stop(self, fault: RunFault) -> None:
        """The first fault wins; only an interruption lets the calls in flight finish."""
        if self.fault is None:
            self.fault = fault
            if not isinstance(fault, Interrupted) and not getattr(fault, "graceful", False):
                self.cancel()  # nothing in flight can be stored or answered: stop at once

    def cancel(self) -> None:
        current = asyncio.current_task()
        for task in self.tasks:
            if task is not current and not task.done():
                task.cancel()

    def interrupt(self) -> None:
        """SIGINT: the first asks for a graceful stop, the second stops at once."""
        busy = sum(not task.done() for task in self.tasks)
        if self.fault is not None:
            self.notify("[red]second Ctrl-C: stopping now[/]")
            self.cancel()
            self.cancelled = True
            return
        self.stop(Interrupted("interrupted (Ctrl-C)"))
        self.notify(
            f"[yellow]Ctrl-C: no new calls; waiting up to {self.grace:g} s for the calls in flight "
            f"({busy} lanes busy) to be stored. Ctrl-C again to stop now.[/]"
        )
        if self._loop is not None:
            self._timer = self._loop.call_later(self.grace, self._grace_over)

    def _grace_over(self) -> None:
        if any(not task.done() for task in self.tasks):
            self.notify(f"[red]{self.grace:g} s grace period over: stopping now[/]")
            self.cancel()
            self.cancelled = True

    def outcome(self) -> RunFault | None:
        """The fault to report; for Ctrl-C, whether the calls in flight made it into the store."""
        if isinstance(self.fault, Interrupted):
            if self.cancelled:
                return Interrupted("Ctrl-C: the calls still in flight were cancelled (asked again on resume)")
            return Interrupted("Ctrl-C: no new calls were made and the calls in flight were stored")
        return self.fault

    def install(self) -> bool:
        """Take over SIGINT on the running loop (main thread only); :meth:`uninstall` gives it back."""
        if threading.current_thread() is not threading.main_thread():
            return False
        self._loop = asyncio.get_running_loop()
        self._previous = signal.getsignal(signal.SIGINT)
        try:
            self._loop.add_signal_handler(signal.SIGINT, self.interrupt)
        except (NotImplementedError, RuntimeError, ValueError):  # e.g. Windows' proactor loop
            return False
        return True

    def uninstall(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        if self._loop is not None:
            self._loop.remove_signal_handler(signal.SIGINT)
            signal.signal(signal.SIGINT, self._previous)  # asyncio's own (Ctrl-C between runs)
            self._loop = None
