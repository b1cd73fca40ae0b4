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
from nationbias.evals.inputs import (
    REASONING_MAX_TOKENS,
    TIMEOUT_S,
    check_model,
    check_prompts,
    make_client,
    new_run_id,
)
from nationbias.graphs.study.halt import signals_raise
from nationbias.prompts.registry import DEFAULT_SET
from nationbias.stores.bundled import using_data
from nationbias.stores.domain import EMBEDDED_NOTICE
from nationbias.stores.errors import InputError

console = Console()
err_console = Console(stderr=True)
F = TypeVar("F", bound=Callable[..., Any])


ModelOpt = Annotated[
    str, typer.Option("--model", "-m", help="Model spec, e.g. openai:gpt-4o-mini, local:smollm2.")
]
BaseUrlOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--base-url",
        help="Base URL of an OpenAI-compatible server (vLLM, Ollama, llama.cpp); repeat it for replicas "
        "of one model: calls are spread over them.",
    ),
]
LimitOpt = Annotated[int | None, typer.Option("--limit", help="Only this many items (a seeded sample).")]
SeedOpt = Annotated[int, typer.Option("--seed", help="Seed for sampling items and prompt orders.")]
RepeatsOpt = Annotated[int, typer.Option("--repeats", help="Independent repeats per sample (paper: 3).")]
ConcurrencyOpt = Annotated[int, typer.Option("--concurrency", help="Samples in flight at once.")]
RunIdOpt = Annotated[
    str | None, typer.Option("--run-id", help="Resume (or name) a run; completed samples are skipped.")
]
RetryErrorsOpt = Annotated[bool, typer.Option("--retry-errors", help="Re-run only the samples that failed.")]
NoCacheOpt = Annotated[bool, typer.Option("--no-cache", help="Do not read or write the response cache.")]
DataOpt = Annotated[str | None, typer.Option("--data", help="A data folder (or NATIONBIAS_DATA).")]
PersonasOpt = Annotated[
    str,
    typer.Option(
        "--personas",
        help="p5; all (every member voting on the item: the 15 seated, or every state present); codes "
        "(USA,RUS; Council members by name; states by ISO3: BRA,NGA,IND); sample:N; group:WEOG (Assembly).",
    ),
]
BodyOpt = Annotated[
    str,
    typer.Option("--body", help="unsc (the Security Council, the paper's) or unga (the General Assembly)."),
]
YearsOpt = Annotated[
    str | None,
    typer.Option("--years", help="Only items voted in these years: 2010 or 2005-2019 (inclusive)."),
]
FailOnErrorOpt = Annotated[
    str,
    typer.Option(
        "--fail-on-error",
        help="Errored samples tolerated before exit 1: a count (5) or, with a decimal point, "
        "a fraction (0.1; 1.0 = all).",
    ),
]
JudgeOpt = Annotated[
    str | None,
    typer.Option("--judge", help="Judge model spec for answers the rules cannot label (default: none)."),
]
JudgeBaseUrlOpt = Annotated[
    str | None, typer.Option("--judge-base-url", help="Judge server base URL (default: --base-url).")
]
PromptsOpt = Annotated[
    str,
    typer.Option(
        "--prompts",
        help="Prompt set: structured (JSON answers, default) or paper (Appendix F word for word, free text).",
    ),
]
ReasoningMaxTokensOpt = Annotated[
    int,
    typer.Option(
        "--reasoning-max-tokens",
        help="Token budget of a reasoning model (by name, or once an answer shows reasoning); "
        "o-series: max_completion_tokens.",
    ),
]
BatchOpt = Annotated[
    bool,
    typer.Option(
        "--batch",
        help="Ask through the provider's batch API (half the price), in rounds; blocks until done "
        "(openai:, together:, openai-compatible: servers offering /v1/batches).",
    ),
]
BatchOfflineOpt = Annotated[
    bool,
    typer.Option(
        "--batch-offline",
        help="Batch mode without submitting: record each round for `nationbias batch export`/`import`.",
    ),
]
TimeoutOpt = Annotated[
    float,
    typer.Option(
        "--timeout",
        help="Seconds a model call may take before it is tried again; an endpoint that accepts the "
        "connection and never answers stops the run within about two of them.",
    ),
]
ProgressEveryOpt = Annotated[
    float,
    typer.Option(
        "--progress-every",
        help="When stderr is not a terminal (a log file): a progress line every this many seconds "
        "(and at 25/50/75 %).",
    ),
]


def _shared(*rows: tuple[str, Any, Any]) -> dict[str, inspect.Parameter]:
    kind = inspect.Parameter.KEYWORD_ONLY
    return {name: inspect.Parameter(name, kind, annotation=opt, default=value) for name, opt, value in rows}


# Each option several commands take, with its default: declared here once, attached by `shared_options`.
SHARED = _shared(
    ("model", ModelOpt, "local:smollm2"),
    ("judge", JudgeOpt, None),
    ("base_url", BaseUrlOpt, None),
    ("judge_base_url", JudgeBaseUrlOpt, None),
    ("limit", LimitOpt, None),
    ("seed", SeedOpt, 0),
    ("repeats", RepeatsOpt, 3),
    ("personas", PersonasOpt, "p5"),
    ("body", BodyOpt, "unsc"),
    ("years", YearsOpt, None),
    ("concurrency", ConcurrencyOpt, 4),
    ("run_id", RunIdOpt, None),
    ("retry_errors", RetryErrorsOpt, False),
    ("no_cache", NoCacheOpt, False),
    ("fail_on_error", FailOnErrorOpt, "0"),
    ("data", DataOpt, None),
    ("prompts", PromptsOpt, DEFAULT_SET),
    ("reasoning_max_tokens", ReasoningMaxTokensOpt, REASONING_MAX_TOKENS),
    *COST_OPTIONS,  # --dry-run, --max-cost and the prices (evals/cli/cost.py)
    ("batch", BatchOpt, False),
    ("batch_offline", BatchOfflineOpt, False),
    ("timeout", TimeoutOpt, TIMEOUT_S),  # per call (graphs/model/client.py, graphs/model/breaker.py)
    ("progress_every", ProgressEveryOpt, 30.0),  # progress in a log (graphs/progress.py)
)
MODELS = ("model", "judge", "base_url", "judge_base_url")  # the model under test and its judge
SAMPLE = ("limit", "seed", "repeats")  # which items, in which order, how often
RUN = (
    "concurrency", "run_id", "retry_errors", "no_cache", "fail_on_error", "data", "prompts", *COST,
    "batch", "batch_offline",  # the provider's batch API, in rounds (evals/batch_mode.py)
    "timeout", "progress_every",  # a call's timeout; progress lines in a log
)  # fmt: skip
TEST_RUN = (*SAMPLE, *RUN, "reasoning_max_tokens")  # a test's run, after MODELS (and its own options)


def shared_options(*layout: str, **defaults: Any) -> Callable[[F], F]:
    """Give a command the :data:`SHARED` options named in ``layout``, in that order (its ``--help``
    order): typer reads the command's ``__signature__``; the command takes them as ``**options``.

    ``layout`` names the command's own parameters too, where they stand among the shared ones; a
    name the command declares itself stays its own (a ``--limit`` with its own help). ``defaults``
    are this command's defaults for shared options (``prompts="structured"``).
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
    from nationbias.stores.sqlite import StoreCorruptError

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
                err_console.print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True)
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


def run_bias_test(test: str, **options: Any) -> str:
    """One bias test through the library, shown as the command line shows a run; returns the run id."""
    from nationbias.evals.api import arun, sync

    return sync(arun(test, hooks=cli_hooks(), **options)).run_id


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
        err_console.print(f"  [red]failed[/] {line}", highlight=False)
    if embedded:
        console.print(f"[yellow]{EMBEDDED_NOTICE}[/]")


__all__ = [
    "REASONING_MAX_TOKENS",
    "UsageError",
    "check_model",
    "check_prompts",
    "make_client",
    "new_run_id",
]
