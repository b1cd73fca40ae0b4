"""How a command ends: exit codes scripts can trust, and one summary line with the command that resumes.

=====  ==========================================================================================
code   meaning
=====  ==========================================================================================
0      every sample ok or invalid (an invalid answer is a finding), or errors within --fail-on-error
1      errored samples beyond --fail-on-error, or the run stopped on a fault (full disk,
       unreachable endpoint): fix it and rerun the printed command
2      bad input (an option, a file, a model spec): nothing was run
130    interrupted (Ctrl-C): the calls in flight were stored; rerun the printed command
143    stopped by SIGTERM (a job scheduler's time limit, ``timeout``, systemd): as Ctrl-C
129    stopped by SIGHUP (the terminal closed): as Ctrl-C
=====  ==========================================================================================
"""

from __future__ import annotations

import re
import shlex
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console

from nationbias.graphs.model.breaker import display_url
from nationbias.graphs.study.halt import Interrupted, RunHalted, SignalStop
from nationbias.graphs.terminal_text import plain
from nationbias.stores.config.paths import home
from nationbias.stores.errors import InputError
from nationbias.stores.state.faults import RunFault, describe_write_fault, is_read_only, is_write_fault

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT, EXIT_INTERRUPTED = 0, 1, 2, 130
err_console = Console(stderr=True)


class FailOnErrorValueError(InputError):
    """--fail-on-error is neither a count nor a fraction."""


@dataclass(frozen=True)
class Tolerance:
    """Errored samples a command tolerates: a ``count`` (``5``) or a ``fraction`` of the samples (``0.1``).

    The decimal point decides which, so ``1`` is one sample and ``1.0`` is all of them.
    """

    count: int = 0
    fraction: float | None = None

    def exceeded(self, *, errors: int, total: int) -> bool:
        return errors > (self.fraction * total if self.fraction is not None else self.count)

    def describe(self) -> str:
        return f"{self.fraction} of the samples" if self.fraction is not None else str(self.count)


def parse_fail_on_error(value: str | float | None) -> Tolerance:
    """An integer is a count of errored samples; a number with a decimal point a fraction from 0.0 to 1.0."""
    if value is None:
        return Tolerance()
    text = str(value).strip()
    if re.fullmatch(r"\d+", text):
        return Tolerance(count=int(text))
    if re.fullmatch(r"\d*\.\d+|\d+\.", text):
        fraction = float(text)
        if fraction > 1:
            raise FailOnErrorValueError(
                f"Invalid value for '--fail-on-error': {text!r} has a decimal point, so it is a fraction of "
                "the samples, and a fraction cannot be above 1.0 (1.0 = all); for a count write an integer"
            )
        return Tolerance(fraction=fraction)
    raise FailOnErrorValueError(
        f"Invalid value for '--fail-on-error': {text!r} is neither a count (0, 5) nor a fraction "
        "with a decimal point (0.1; 1.0 = all)"
    )


def errors_exceed(tolerance: Tolerance, *, errors: int, total: int) -> bool:
    """More errors than tolerated."""
    return tolerance.exceeded(errors=errors, total=total)


@dataclass
class Outcome:
    """What one command ran: its runs' summaries, and the run id that resumes it all."""

    tolerance: Tolerance = field(default_factory=Tolerance)
    summaries: list[Any] = field(default_factory=list)
    resume_id: str | None = None


_CURRENT: ContextVar[Outcome | None] = ContextVar("nationbias_outcome", default=None)


@contextmanager
def outcome_scope() -> Iterator[Outcome]:
    outcome = Outcome()
    token = _CURRENT.set(outcome)
    try:
        yield outcome
    finally:
        _CURRENT.reset(token)


def record(summary: Any) -> None:
    """Count a finished run in the command's outcome (``print_summary`` calls it)."""
    if (outcome := _CURRENT.get()) is not None:
        outcome.summaries.append(summary)


def offer_resume_id(run_id: str) -> None:
    """The id that resumes the whole command; the first offered wins (a study's prefix, then its runs')."""
    if (outcome := _CURRENT.get()) is not None and outcome.resume_id is None:
        outcome.resume_id = run_id


def stopped(outcome: Outcome, exc: BaseException) -> int | None:
    """Report a run fault, Ctrl-C or a full disk in one line plus the summary; None for anything else."""
    if isinstance(exc, RunHalted):
        outcome.summaries.append(exc.summary)
        fault: BaseException = exc.fault
        if exc.summary.unsaved:
            _say(f"{exc.summary.unsaved} answer(s) in flight could not be stored: asked again on resume")
    elif isinstance(exc, (RunFault, KeyboardInterrupt)):
        fault = exc
    elif isinstance(exc, (OSError, sqlite3.Error)) and is_write_fault(exc):  # e.g. writing a report
        where = getattr(exc, "filename", None) or f"under NATIONBIAS_HOME ({home()})"
        hint = " (read-only: a report can be written elsewhere with --out DIR)" if is_read_only(exc) else ""
        fault = RunFault(f"cannot write {where}: {describe_write_fault(exc)}{hint}")
    else:
        return None
    interrupted = isinstance(fault, (Interrupted, KeyboardInterrupt))
    code = getattr(fault, "exit_code", EXIT_INTERRUPTED if interrupted else EXIT_FAILED)
    message = str(fault)
    if isinstance(fault, KeyboardInterrupt):  # outside a run's calls: nothing was in flight
        label = fault.label if isinstance(fault, SignalStop) else "Ctrl-C"
        message = f"interrupted ({label})"
    _say(f"[bold red]{'interrupted' if interrupted else 'error'}:[/] {plain(' '.join(message.split()))}")
    summary_line(outcome, code)
    return int(code)


def finish(outcome: Outcome) -> int:
    """The exit code of a command that ran to its end, after its summary line."""
    if not outcome.summaries:
        return EXIT_OK
    errors = sum(s.errored for s in outcome.summaries)
    total = sum(s.total for s in outcome.summaries)
    code = EXIT_OK
    if errors_exceed(outcome.tolerance, errors=errors, total=total):
        code = EXIT_FAILED
        allowed = outcome.tolerance.describe()
        _say(f"[bold red]error:[/] {errors} of {total} samples errored, more than --fail-on-error {allowed}")
    summary_line(outcome, code)
    return code


def summary_line(outcome: Outcome, code: int) -> None:
    """done, ok, invalid, error over the command's runs, the exit code, and the command that resumes."""
    runs = outcome.summaries
    done, total = sum(s.done for s in runs), sum(s.total for s in runs)
    to_go = total - sum(s.skipped for s in runs) - done
    counts = " · ".join(f"{k} {sum(getattr(s, k) for s in runs)}" for k in ("ok", "invalid", "error"))
    wall = sum(s.wall_s for s in runs)
    line = f"summary: {done} done now, {to_go} to go · {counts} · {wall:.1f} s running · exit {code}"
    if lost := sum(getattr(s, "lost", 0) for s in runs):
        line = line.replace(" · exit", f" · {lost} lost in flight (not stored) · exit")
    resume_id = outcome.resume_id or (runs[0].run_id if runs else None)
    if resume_id is not None:
        retry = any(s.errored for s in runs)
        line += f" · resume: {resume_command(resume_id, retry_errors=retry)}"
    _say(plain(line))


def resume_command(run_id: str, *, retry_errors: bool = False) -> str:
    """This command line again, with ``--run-id`` (and ``--retry-errors`` when samples failed).

    Rebuilt from the parsed options that differ from their defaults, so it is the same under a
    shell, ``python -m`` or a test runner; a URL loses any user info on the way.
    """
    ctx = current_context()
    if ctx is None:
        return f"--run-id {shlex.quote(run_id)}"
    path, node = [], ctx
    while node.parent is not None:  # the subcommands' names, whatever the program was called as
        path.append(node.info_name)
        node = node.parent
    words = ["nationbias", *reversed(path)]
    names = set()
    for param in ctx.command.params:
        names.add(param.name)
        if param.param_type_name != "option" or param.name in ("run_id", "retry_errors"):
            continue
        value = ctx.params.get(param.name)
        if value is None or value == param.default or (param.multiple and not value):
            continue
        if param.is_flag:
            words += param.opts[:1] if value else param.secondary_opts[:1]
            continue
        for item in value if param.multiple else [value]:
            text = str(item)
            words += [param.opts[0], display_url(text) if "://" in text else text]
    words += [*ctx.args, "--run-id", run_id]
    if retry_errors and "retry_errors" in names:
        words.append("--retry-errors")
    return shlex.join(words)


def command_argv(run_id: str) -> tuple[str, list[str] | None]:
    """The id that resumes the command (a study's prefix) and its command line (None outside a command):
    the CLI's ``Hooks.resume``."""
    outcome = _CURRENT.get()
    rid = outcome.resume_id if outcome is not None and outcome.resume_id else run_id
    if current_context() is None:
        return rid, None
    return rid, shlex.split(resume_command(rid))


def current_context() -> Any:
    """The command's parsed context: typer >= 0.2x carries its own copy of click."""
    try:
        from typer._click.globals import get_current_context
    except ImportError:  # an older typer on the real click
        from click import get_current_context  # type: ignore[no-redef]
    return get_current_context(silent=True)


def _say(text: str) -> None:
    err_console.print(text, highlight=False, soft_wrap=True)
