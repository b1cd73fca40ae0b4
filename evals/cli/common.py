"""What every `nationbias` command shares: options, error handling, and opening the stores."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console

from nationbias.evals.cli.cost import COST, cost_scope, dry_running
from nationbias.evals.cli.cost import OPTIONS as COST_OPTIONS
from nationbias.evals.cli.outcome import EXIT_BAD_INPUT, finish, outcome_scope, parse_fail_on_error, stopped
from nationbias.evals.errors import UsageError
from nationbias.evals.inputs import check_model, check_prompts, make_client, new_run_id
from nationbias.graphs.study.halt import signals_raise
from nationbias.graphs.study.options import RunOptions
from nationbias.graphs.terminal_text import plain
from nationbias.stores.corpora.bundled import using_data
from nationbias.stores.domain import EMBEDDED_NOTICE
from nationbias.stores.errors import InputError

console = Console()
err_console = Console(stderr=True)
F = TypeVar("F", bound=Callable[..., Any])


def _flag(name: str) -> Any:
    """A run option's flag, with the help its field declares (graphs/study/options.py)."""
    return typer.Option("--" + name.replace("_", "-"), help=RunOptions.help(name))


ModelOpt = Annotated[
    str, typer.Option("--model", "-m", help="Model spec, e.g. openai:gpt-4o-mini, local:smollm2.")
]
BaseUrlOpt = Annotated[list[str] | None, _flag("base_url")]
LimitOpt = Annotated[int | None, _flag("limit")]
SeedOpt = Annotated[int, _flag("seed")]
RepeatsOpt = Annotated[int, _flag("repeats")]
ConcurrencyOpt = Annotated[int, _flag("concurrency")]
RunIdOpt = Annotated[str | None, _flag("run_id")]
RetryErrorsOpt = Annotated[bool, _flag("retry_errors")]
NoCacheOpt = Annotated[bool, _flag("no_cache")]
DataOpt = Annotated[str | None, _flag("data")]
PersonasOpt = Annotated[str | None, _flag("personas")]
BodyOpt = Annotated[str, _flag("body")]
YearsOpt = Annotated[str | None, _flag("years")]
TargetsOpt = Annotated[str, _flag("targets")]  # the Council's items voted on (graphs/study/sampling.py)
TextsOpt = Annotated[str, _flag("texts")]
FailOnErrorOpt = Annotated[
    str,
    typer.Option(
        "--fail-on-error",
        help="Errored samples tolerated before exit 1: a count (5) or, with a decimal point, "
        "a fraction (0.1; 1.0 = all).",
    ),
]
JudgeOpt = Annotated[str | None, _flag("judge")]
JudgeBaseUrlOpt = Annotated[str | None, _flag("judge_base_url")]
PromptsOpt = Annotated[str, _flag("prompts")]
LanguageOpt = Annotated[str, _flag("language")]
TranslateWithOpt = Annotated[str | None, _flag("translate_with")]
TranslateBaseUrlOpt = Annotated[str | None, _flag("translate_base_url")]
ReasoningMaxTokensOpt = Annotated[int, _flag("reasoning_max_tokens")]
BatchOpt = Annotated[bool, _flag("batch")]
BatchOfflineOpt = Annotated[bool, _flag("batch_offline")]
TimeoutOpt = Annotated[float, _flag("timeout")]
ProgressEveryOpt = Annotated[float, _flag("progress_every")]


def _shared(*rows: tuple[str, Any, Any]) -> dict[str, inspect.Parameter]:
    kind = inspect.Parameter.KEYWORD_ONLY
    return {name: inspect.Parameter(name, kind, annotation=opt, default=value) for name, opt, value in rows}


# Each option several commands take: declared here once, attached by `shared_options`; a run option's
# default is its field's (graphs/study/options.py).
RUN_OPTIONS = {
    "judge": JudgeOpt,
    "base_url": BaseUrlOpt,
    "judge_base_url": JudgeBaseUrlOpt,
    "limit": LimitOpt,
    "seed": SeedOpt,
    "repeats": RepeatsOpt,
    "personas": PersonasOpt,
    "body": BodyOpt,
    "years": YearsOpt,
    "targets": TargetsOpt,
    "texts": TextsOpt,  # which text of an item the vote prompts show (stores/text/un_prompt.py)
    "concurrency": ConcurrencyOpt,
    "run_id": RunIdOpt,
    "retry_errors": RetryErrorsOpt,
    "no_cache": NoCacheOpt,
    "data": DataOpt,
    "prompts": PromptsOpt,
    "language": LanguageOpt,  # the prompts' language (prompts/registry.py)
    "translate_with": TranslateWithOpt,  # the record's text translated (graphs/translate.py)
    "translate_base_url": TranslateBaseUrlOpt,
    "reasoning_max_tokens": ReasoningMaxTokensOpt,
    "batch": BatchOpt,
    "batch_offline": BatchOfflineOpt,
    "timeout": TimeoutOpt,  # per call (graphs/model/client.py, graphs/model/breaker.py)
    "progress_every": ProgressEveryOpt,  # progress in a log (graphs/progress.py)
}
SHARED = _shared(
    ("model", ModelOpt, "local:smollm2"),
    *((name, opt, RunOptions.default(name)) for name, opt in RUN_OPTIONS.items()),
    ("fail_on_error", FailOnErrorOpt, "0"),
    *COST_OPTIONS,  # --dry-run, --max-cost and the prices (evals/cli/cost.py)
)
MODELS = ("model", "judge", "base_url", "judge_base_url")  # the model under test and its judge
SAMPLE = ("limit", "seed", "repeats")  # which items, in which order, how often
RUN = (
    "concurrency", "run_id", "retry_errors", "no_cache", "fail_on_error", "data", "prompts", "language",
    "translate_with", "translate_base_url",
    *COST,
    "batch", "batch_offline",  # the provider's batch API, in rounds (evals/batch_mode.py)
    "timeout", "progress_every",  # a call's timeout; progress lines in a log
)  # fmt: skip
TEST_RUN = (*SAMPLE, *RUN, "reasoning_max_tokens")  # a test's run, after MODELS (and its own options)


def shared_options(*layout: str, **defaults: Any) -> Callable[[F], F]:
    """Give a command the :data:`SHARED` options named in ``layout``, in that order (its ``--help``
    order): typer reads the command's ``__signature__``; the command takes them as ``**options``.

    ``layout`` names the command's own parameters too, where they stand among the shared ones; a
    name the command declares itself stays its own (a ``--limit`` with its own help). ``defaults``
    are this command's defaults for shared options (``repeats=2``).
    """

    def attach(command: F) -> F:
        own = {
            name: param
            for name, param in inspect.signature(command, eval_str=True).parameters.items()
            if param.kind is not inspect.Parameter.VAR_KEYWORD
        }
        unplaced = set(own) - set(layout)
        unknown = set(layout) - set(own) - set(SHARED)
        stray = set(defaults) - (set(layout) - set(own))
        if unplaced or unknown or stray or len(set(layout)) != len(layout):
            raise TypeError(
                f"{command.__name__}: its layout leaves out {sorted(unplaced)}, names unknown "
                f"{sorted(unknown)} or repeats a name; defaults it does not share: {sorted(stray)}"
            )
        params = [own[name] if name in own else SHARED[name] for name in layout]
        params = [p.replace(default=defaults[p.name]) if p.name in defaults else p for p in params]
        keyword = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in params]
        command.__signature__ = inspect.Signature(keyword)  # type: ignore[attr-defined]
        return command

    return attach


def _known_errors() -> tuple[type[BaseException], ...]:
    """The project's own errors a user can fix: every other exception is a bug and keeps its traceback."""
    from nationbias.stores.state.sqlite import StoreCorruptError

    return (InputError, StoreCorruptError)


def cli_errors(func: F) -> F:
    """Own the command's outcome: known bad input is one line and exit 2; a run stopped by a fault
    (full disk, unreachable endpoint, Ctrl-C) is one line, the summary and the command that
    resumes, exit 1 or 130; errored samples beyond ``--fail-on-error`` exit 1 (evals/cli/outcome.py).
    """

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with outcome_scope() as outcome, signals_raise():  # SIGTERM, SIGHUP: as Ctrl-C (graphs/study/halt.py)
            try:
                outcome.tolerance = parse_fail_on_error(kwargs.get("fail_on_error"))
                # --data, for this command only; --dry-run, --max-cost and the prices (evals/cli/cost.py)
                with using_data(kwargs.get("data")), cost_scope(kwargs, outcome):
                    result = func(*args, **kwargs)
            except typer.Exit:
                raise
            except BaseException as exc:
                code = stopped(outcome, exc)  # a run fault, Ctrl-C or a full disk: None for others
                if code is not None:
                    raise typer.Exit(code) from None
                if not isinstance(exc, _known_errors()):
                    raise
                message = str(exc).strip().strip("'\"") or type(exc).__name__
                message = " ".join(line.strip() for line in message.splitlines() if line.strip())
                err_console.print(f"[bold red]error:[/] {plain(message)}", highlight=False, soft_wrap=True)
                raise typer.Exit(EXIT_BAD_INPUT) from None
            if code := finish(outcome):
                raise typer.Exit(code)
            return result

    return wrapper  # type: ignore[return-value]


def given(
    command: Callable[..., Any], values: dict[str, Any], *, drop: tuple[str, ...] = ()
) -> dict[str, Any]:
    """A command's options as the user gave them (its parameters, read from ``locals() | options``:
    its own and the shared ones), for the library call; ``--fail-on-error`` and ``--data`` belong to
    :func:`cli_errors`, applied around it."""
    skip = {"fail_on_error", "data", *drop}
    return {k: values[k] for k in inspect.signature(command).parameters if k not in skip and k in values}


def cli_hooks() -> Any:
    """How a command shows a run: the command that resumes it, its summary line, and a frozen heap."""
    from nationbias.evals.api import Hooks
    from nationbias.evals.cli.outcome import command_argv, offer_resume_id
    from nationbias.graphs.study.runner import frozen_gc

    return Hooks(
        on_run_id=offer_resume_id,
        on_summary=lambda summary, embedded: print_summary(summary, embedded=embedded),
        running=frozen_gc,
        resume=command_argv,
    )


def run_bias_test(test: str, *, test_options: Any = None, **options: Any) -> str:
    """One bias test through the library, shown as the command line shows a run; returns the run id.
    ``test_options``: the test's own options object, built by the command (None: its defaults)."""
    from nationbias.evals.api import arun, sync

    return sync(arun(test, hooks=cli_hooks(), test_options=test_options, **options)).run_id


def print_export(run_id: str) -> None:
    if dry_running():
        return  # the dry run's table says it all: there is nothing to export
    console.print(f"export: nationbias runs export {run_id} --format csv")


def print_summary(summary: Any, *, embedded: bool) -> None:
    from nationbias.evals.cli.outcome import record

    if dry_running():
        return  # nothing ran: the dry run prints its own table
    record(summary)
    console.print(
        f"run [bold]{summary.run_id}[/]: {summary.done} done now, {summary.skipped} already done · "
        f"ok {summary.ok} · invalid {summary.invalid} · error {summary.error} · {summary.wall_s:.1f}s"
    )
    for line in summary.first_errors:
        err_console.print(f"  [red]failed[/] {plain(line)}", highlight=False, soft_wrap=True)
    if embedded:
        console.print(f"[yellow]{EMBEDDED_NOTICE}[/]")


__all__ = [
    "UsageError",
    "check_model",
    "check_prompts",
    "make_client",
    "new_run_id",
]
