"""What every `nationbias` command shares: options, error handling, and opening the stores."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console

from evals.cli_outcome import EXIT_BAD_INPUT, finish, outcome_scope, parse_fail_on_error, stopped
from evals.errors import UsageError
from evals.inputs import REASONING_MAX_TOKENS, check_model, check_prompts, make_client, new_run_id
from stores.bundled import using_data
from stores.domain import EMBEDDED_NOTICE
from stores.errors import InputError

console = Console()
err_console = Console(stderr=True)
F = TypeVar("F", bound=Callable[..., Any])


ModelOpt = Annotated[
    str, typer.Option("--model", "-m", help="Model spec, e.g. openai:gpt-4o-mini, local:smollm2.")
]
BaseUrlOpt = Annotated[
    str | None,
    typer.Option("--base-url", help="Base URL of an OpenAI-compatible server (vLLM, Ollama, llama.cpp)."),
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
        help="Errored samples tolerated before the exit code is 1: a count (5) or a fraction (0.1).",
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


def _known_errors() -> tuple[type[BaseException], ...]:
    """The project's own errors a user can fix: every other exception is a bug and keeps its traceback."""
    from stores.sqlite import StoreCorruptError

    return (InputError, StoreCorruptError)


def cli_errors(func: F) -> F:
    """Own the command's outcome: known bad input is one line and exit 2; a run stopped by a fault
    (full disk, unreachable endpoint, Ctrl-C) is one line, the summary and the command that
    resumes, exit 1 or 130; errored samples beyond ``--fail-on-error`` exit 1 (evals/cli_outcome.py).
    """

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with outcome_scope() as outcome:
            try:
                outcome.tolerance = parse_fail_on_error(kwargs.get("fail_on_error"))
                with using_data(kwargs.get("data")):  # --data, for this command only
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
    """A command's options as the user gave them (its parameters, read from its ``locals()``), for the
    library call; ``--fail-on-error`` and ``--data`` belong to :func:`cli_errors`, applied around it."""
    skip = {"fail_on_error", "data", *drop}
    return {k: values[k] for k in inspect.signature(command).parameters if k not in skip and k in values}


def cli_hooks() -> Any:
    """How a command shows a run: the command that resumes it, its summary line, and a frozen heap."""
    from evals.api import Hooks
    from evals.cli_outcome import offer_resume_id
    from graphs.runner import frozen_gc

    return Hooks(
        on_run_id=offer_resume_id,
        on_summary=lambda summary, embedded: print_summary(summary, embedded=embedded),
        running=frozen_gc,
    )


def print_summary(summary: Any, *, embedded: bool) -> None:
    from evals.cli_outcome import record

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
