"""Stopping a run on purpose: Ctrl-C, SIGTERM, SIGHUP, a store that cannot be written, an unreachable
endpoint.

The first Ctrl-C (or SIGTERM, which job schedulers, ``timeout``, Kubernetes and systemd send, or
SIGHUP, a closed terminal) stops issuing calls and gives the calls in flight up to ``grace_s``
seconds (``NATIONBIAS_GRACE_S``, default 20) to finish and be stored, since they are already paid
for; a second signal, or the end of the grace period, cancels them. A store or endpoint fault
cancels them at once: nothing more can be stored, and nothing more can be asked. Either way the
runner raises :class:`RunHalted` with the summary of what was stored, for the command line to report.
"""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from nationbias.stores.config.settings import settings
from nationbias.stores.errors import InputError
from nationbias.stores.state.faults import RunFault

DEFAULT_GRACE_S = 20.0


# What each stop signal is called in messages, and the exit status a shell shows for it (128 + n).
STOP_SIGNALS: dict[str, tuple[str, int]] = {
    "SIGINT": ("Ctrl-C", 130),
    "SIGTERM": ("SIGTERM", 143),
    "SIGHUP": ("SIGHUP", 129),
}


def stop_signals() -> list[signal.Signals]:
    """The stop signals this platform has (Windows has no SIGHUP)."""
    return [getattr(signal, name) for name in STOP_SIGNALS if hasattr(signal, name)]


def signal_label(signum: int) -> tuple[str, int]:
    """``("SIGTERM", 143)``: a signal's name in messages and its exit status."""
    name = signal.Signals(signum).name
    return STOP_SIGNALS.get(name, (name, 128 + int(signum)))


class Interrupted(RunFault):
    """Ctrl-C (SIGINT), SIGTERM or SIGHUP: the run stopped on request; ``exit_code`` is 128 + n."""

    exit_code = 130

    def __init__(self, message: str, *, exit_code: int = 130) -> None:
        super().__init__(message)
        self.exit_code = exit_code


class SignalStop(KeyboardInterrupt):
    """SIGTERM or SIGHUP outside a run's calls (loading, writing a report): raised like Ctrl-C's
    KeyboardInterrupt, so the command ends with one line and the summary (:func:`signals_raise`)."""

    def __init__(self, signum: int) -> None:
        self.label, self.exit_code = signal_label(signum)
        super().__init__(self.label)


def _raise_stop(signum: int, frame: Any) -> None:
    raise SignalStop(signum)


@contextmanager
def signals_raise() -> Iterator[None]:
    """SIGTERM and SIGHUP raise :class:`SignalStop` in the main thread for the block (a run's
    :class:`Halt` takes them over while its calls are in flight); the old handlers come back after."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {}
    for sig in stop_signals():
        if sig != signal.SIGINT and signal.getsignal(sig) is signal.SIG_DFL:
            previous[sig] = signal.signal(sig, _raise_stop)
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


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
        self.lost = 0  # calls in flight a backend fault took after the stop signal (never stored)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._previous: dict[signal.Signals, Any] = {}
        self._timer: asyncio.TimerHandle | None = None
        self._label = "Ctrl-C"

    @property
    def stopping(self) -> bool:
        return self.fault is not None

    def stop(self, fault: RunFault) -> None:
        """The first fault wins; only an interruption lets the calls in flight finish."""
        if self.fault is None:
            self.fault = fault
            if not isinstance(fault, Interrupted) and not getattr(fault, "graceful", False):
                self.cancel()  # nothing in flight can be stored or answered: stop at once

    def lose(self, fault: RunFault) -> None:
        """A call in flight ended in a run fault. After a stop signal that is the backend stopping
        with the process group (the embedded model's worker gets the scheduler's SIGTERM too): the
        call is lost, not stored, counted for the summary and asked again on resume."""
        if isinstance(self.fault, Interrupted):
            self.lost += 1
        self.stop(fault)

    def cancel(self) -> None:
        current = asyncio.current_task()
        for task in self.tasks:
            if task is not current and not task.done():
                task.cancel()

    def interrupt(self, signum: int = signal.SIGINT) -> None:
        """SIGINT, SIGTERM or SIGHUP: the first asks for a graceful stop, a second stops at once."""
        label, code = signal_label(signum)
        busy = sum(not task.done() for task in self.tasks)
        if self.fault is not None:
            self.notify(f"[red]second {label}: stopping now[/]")
            self.cancel()
            self.cancelled = True
            return
        self._label = label
        self.stop(Interrupted(f"interrupted ({label})", exit_code=code))
        again = "Ctrl-C again" if label == "Ctrl-C" else f"{label} or Ctrl-C again"
        self.notify(
            f"[yellow]{label}: no new calls; waiting up to {self.grace:g} s for the calls in flight "
            f"({busy} lanes busy) to be stored. {again} to stop now.[/]"
        )
        if self._loop is not None:
            self._timer = self._loop.call_later(self.grace, self._grace_over)

    def _grace_over(self) -> None:
        if any(not task.done() for task in self.tasks):
            self.notify(f"[red]{self.grace:g} s grace period over: stopping now[/]")
            self.cancel()
            self.cancelled = True

    def outcome(self) -> RunFault | None:
        """The fault to report; for a stop signal, whether the calls in flight made it into the store."""
        if isinstance(self.fault, Interrupted):
            code, label = self.fault.exit_code, self._label
            lost = ""
            if self.lost:
                lost = (
                    f"; {self.lost} call(s) in flight were lost (the model backend stopped with the "
                    "signal: not stored, asked again on resume)"
                )
            if self.cancelled:
                text = f"{label}: the calls still in flight were cancelled (asked again on resume)"
            elif self.lost:
                text = f"{label}: no new calls were made and the calls in flight that finished were stored"
            else:
                text = f"{label}: no new calls were made and the calls in flight were stored"
            return Interrupted(text + lost, exit_code=code)
        return self.fault

    def install(self) -> bool:
        """Take over SIGINT, SIGTERM and SIGHUP on the running loop (main thread only);
        :meth:`uninstall` gives them back."""
        if threading.current_thread() is not threading.main_thread():
            return False
        self._loop = asyncio.get_running_loop()
        for sig in stop_signals():
            previous = signal.getsignal(sig)
            previous = signal.SIG_DFL if previous is None else previous  # a handler set outside Python
            try:
                self._loop.add_signal_handler(sig, self.interrupt, sig)
            except (NotImplementedError, RuntimeError, ValueError):  # e.g. Windows' proactor loop
                continue
            self._previous[sig] = previous
        return bool(self._previous)

    def uninstall(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        if self._loop is not None:
            for sig, previous in self._previous.items():
                self._loop.remove_signal_handler(sig)
                signal.signal(sig, previous)  # asyncio's own for SIGINT (Ctrl-C between runs)
            self._previous = {}
            self._loop = None
