"""`nationbias run …`: one test for one model."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from evals.api import arun, sync
from evals.cli_common import (
    REASONING_MAX_TOKENS,
    BaseUrlOpt,
    BodyOpt,
    ConcurrencyOpt,
    DataOpt,
    FailOnErrorOpt,
    JudgeBaseUrlOpt,
    JudgeOpt,
    LimitOpt,
    ModelOpt,
    NoCacheOpt,
    PersonasOpt,
    PromptsOpt,
    ReasoningMaxTokensOpt,
    RepeatsOpt,
    RetryErrorsOpt,
    RunIdOpt,
    SeedOpt,
    YearsOpt,
    cli_errors,
    cli_hooks,
    console,
    given,
)
from evals.cli_explicit import register as register_explicit
from evals.cli_explicit import run_association_command, run_directqa_command
from evals.cli_plugin import register as register_plugins
from prompts.registry import DEFAULT_SET
from stores.domain import KEYWORD_THRESHOLD

run_app = typer.Typer(help="Run one bias test for one model.", no_args_is_help=True)


def run_vote_command(*, debias: bool = False, **options: Any) -> str:
    """`run vote [--debias]`: the plain or debiased vote through the library; returns the run id."""
    test = "debias" if debias else "vote"
    own = ("k", "reflexion", "retriever", "threshold")
    if not debias:  # the retrieval options belong to the debiased vote only
        options = {key: value for key, value in options.items() if key not in own}
    return sync(arun(test, hooks=cli_hooks(), **options)).run_id


@run_app.command("vote")
@cli_errors
def run_vote(
    model: ModelOpt = "local:smollm2",
    base_url: BaseUrlOpt = None,
    debias: Annotated[bool, typer.Option("--debias", help="Use the retrieval + reflexion graph.")] = False,
    k: Annotated[int, typer.Option("--k", help="Precedents per pool (adopted, non-adopted).")] = 1,
    reflexion: Annotated[bool, typer.Option("--reflexion/--no-reflexion")] = True,
    retriever: Annotated[
        str, typer.Option("--retriever", help="keyword, bm25, dense or hybrid.")
    ] = "keyword",
    threshold: Annotated[
        float, typer.Option("--threshold", help="Keyword retriever: keep score > this.")
    ] = KEYWORD_THRESHOLD,
    limit: LimitOpt = None,
    seed: SeedOpt = 0,
    repeats: RepeatsOpt = 3,
    personas: PersonasOpt = "p5",
    body: BodyOpt = "unsc",
    years: YearsOpt = None,
    concurrency: ConcurrencyOpt = 4,
    run_id: RunIdOpt = None,
    retry_errors: RetryErrorsOpt = False,
    no_cache: NoCacheOpt = False,
    fail_on_error: FailOnErrorOpt = "0",
    data: DataOpt = None,
    prompts: PromptsOpt = DEFAULT_SET,
    reasoning_max_tokens: ReasoningMaxTokensOpt = REASONING_MAX_TOKENS,
    judge: JudgeOpt = None,
    judge_base_url: JudgeBaseUrlOpt = None,
) -> None:
    """Persona vote simulation: the Council's non-adopted drafts, or the Assembly's roll calls with
    --body unga (optionally debiased: earlier items are the precedent pool)."""
    rid = run_vote_command(**given(run_vote, locals()))
    console.print(f"export: nationbias runs export {rid} --format csv")


register_explicit(run_app)  # `run directqa`, `run association`
register_plugins(run_app)  # `run <test>` for each test a plugin registered

__all__ = ["run_app", "run_association_command", "run_directqa_command", "run_vote_command"]
