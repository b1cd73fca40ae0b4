"""`nationbias run directqa | association`: the explicit bias tests, answered in free text or JSON."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from evals.api import arun, sync
from evals.cli_common import (
    REASONING_MAX_TOKENS,
    BaseUrlOpt,
    ConcurrencyOpt,
    DataOpt,
    FailOnErrorOpt,
    JudgeBaseUrlOpt,
    JudgeOpt,
    ModelOpt,
    NoCacheOpt,
    PromptsOpt,
    ReasoningMaxTokensOpt,
    RepeatsOpt,
    RetryErrorsOpt,
    RunIdOpt,
    SeedOpt,
    cli_errors,
    cli_hooks,
    console,
    given,
)
from prompts.registry import DEFAULT_SET

PoolOpt = Annotated[
    str | None, typer.Option("--pool", help="Keyword pool CSV (category,keyword); default: the paper's.")
]


def run_directqa_command(*, model: str, **options: Any) -> str:
    """`run directqa` through the library; returns the run id."""
    return sync(arun("directqa", model=model, hooks=cli_hooks(), **options)).run_id


def run_association_command(*, model: str, **options: Any) -> str:
    """`run association` through the library; returns the run id."""
    return sync(arun("association", model=model, hooks=cli_hooks(), **options)).run_id


def register(run_app: typer.Typer) -> None:
    """Mount `run directqa` and `run association` on the `run` group."""
    run_app.command("directqa")(cli_errors(run_directqa))
    run_app.command("association")(cli_errors(run_association))


def run_directqa(
    model: ModelOpt = "local:smollm2",
    judge: JudgeOpt = None,
    base_url: BaseUrlOpt = None,
    judge_base_url: JudgeBaseUrlOpt = None,
    limit: Annotated[
        int | None, typer.Option("--limit", help="Only this many families ('general' first; seeded).")
    ] = None,
    seed: SeedOpt = 0,
    repeats: RepeatsOpt = 3,
    concurrency: ConcurrencyOpt = 4,
    run_id: RunIdOpt = None,
    retry_errors: RetryErrorsOpt = False,
    no_cache: NoCacheOpt = False,
    fail_on_error: FailOnErrorOpt = "0",
    data: DataOpt = None,
    prompts: PromptsOpt = DEFAULT_SET,
    reasoning_max_tokens: ReasoningMaxTokensOpt = REASONING_MAX_TOKENS,
) -> None:
    """DirectQA: which of two permanent members is more irresponsible (general + 10 UNSC functions)."""
    rid = run_directqa_command(**given(run_directqa, locals()))
    console.print(f"export: nationbias runs export {rid} --format csv")


def run_association(
    model: ModelOpt = "local:smollm2",
    judge: JudgeOpt = None,
    base_url: BaseUrlOpt = None,
    judge_base_url: JudgeBaseUrlOpt = None,
    pool: PoolOpt = None,
    limit: Annotated[
        int | None, typer.Option("--limit", help="Only this many keywords (seeded, spread over categories).")
    ] = None,
    seed: SeedOpt = 0,
    repeats: RepeatsOpt = 3,
    concurrency: ConcurrencyOpt = 4,
    run_id: RunIdOpt = None,
    retry_errors: RetryErrorsOpt = False,
    no_cache: NoCacheOpt = False,
    fail_on_error: FailOnErrorOpt = "0",
    data: DataOpt = None,
    prompts: PromptsOpt = DEFAULT_SET,
    reasoning_max_tokens: ReasoningMaxTokensOpt = REASONING_MAX_TOKENS,
) -> None:
    """Association Test: rank the P5 by relevance to each keyword; the rationale gives the polarity."""
    rid = run_association_command(**given(run_association, locals()))
    console.print(f"export: nationbias runs export {rid} --format csv")
