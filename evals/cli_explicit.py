"""`nationbias run directqa | association`: the explicit bias tests, answered in free text or JSON."""

from __future__ import annotations

from typing import Annotated, Any

import typer

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
    apply_data,
    check_model,
    check_prompts,
    cli_errors,
    console,
    make_client,
    new_run_id,
    print_summary,
)
from evals.cli_outcome import offer_resume_id
from graphs.budget import check_budget
from graphs.runner import run_async
from prompts.registry import DEFAULT_SET

PoolOpt = Annotated[
    str | None, typer.Option("--pool", help="Keyword pool CSV (category,keyword); default: the paper's.")
]


def _explicit_clients(
    *,
    model: str,
    judge: str | None,
    base_url: str | None,
    judge_base_url: str | None,
    no_cache: bool,
    reasoning_max_tokens: int,
) -> tuple[Any, Any]:
    """The answering model and the optional judge; a bad spec or key fails before any work."""
    check_model(model, base_url=base_url)
    if judge is not None:
        check_model(judge, base_url=judge_base_url or base_url)
    client = make_client(
        model, base_url=base_url, no_cache=no_cache, reasoning_max_tokens=reasoning_max_tokens
    )
    if judge is None:
        return client, None
    judge_url = judge_base_url or base_url
    return client, make_client(
        judge, base_url=judge_url, no_cache=no_cache, reasoning_max_tokens=reasoning_max_tokens
    )


def _run_explicit(
    test: str,
    *,
    model: str,
    judge: str | None = None,
    base_url: str | None = None,
    judge_base_url: str | None = None,
    limit: int | None = None,
    seed: int = 0,
    repeats: int = 3,
    concurrency: int = 4,
    run_id: str | None = None,
    retry_errors: bool = False,
    no_cache: bool = False,
    show_progress: bool = True,
    study_options: dict[str, Any] | None = None,
    prompts: str = DEFAULT_SET,
    reasoning_max_tokens: int = REASONING_MAX_TOKENS,
) -> str:
    """DirectQA and the Association Test share everything but the study function."""
    from graphs.explicit import run_association_study, run_directqa_study
    from graphs.run_config import note_learned_reasoning
    from graphs.simulate import SampleOptions
    from stores.runstore import RunStore, check_run_id

    chosen = check_prompts(prompts)
    check_budget(reasoning_max_tokens)
    sample = SampleOptions(limit=limit, seed=seed, repeats=repeats)
    run_id = check_run_id(run_id or new_run_id(test, model))
    offer_resume_id(run_id)
    store = RunStore()
    client, judge_client = _explicit_clients(
        model=model,
        judge=judge,
        base_url=base_url,
        judge_base_url=judge_base_url,
        no_cache=no_cache,
        reasoning_max_tokens=reasoning_max_tokens,
    )
    study = run_directqa_study if test == "directqa" else run_association_study
    summary = run_async(
        study(
            client=client,
            judge=judge_client,
            store=store,
            run_id=run_id,
            sample=sample,
            concurrency=concurrency,
            retry_errors=retry_errors,
            show_progress=show_progress,
            prompts=chosen,
            **(study_options or {}),
        )
    )
    note_learned_reasoning(store, run_id, client)
    print_summary(summary, embedded=client.spec.is_embedded)
    return run_id


def run_directqa_command(*, model: str, **options: Any) -> str:
    """Shared by `run directqa`, `study` and `demo`; returns the run id."""
    return _run_explicit("directqa", model=model, **options)


def run_association_command(*, model: str, pool: str | None = None, **options: Any) -> str:
    """Shared by `run association`, `study` and `demo`; returns the run id."""
    from graphs.association import load_pool

    load_pool(pool)  # a missing or malformed pool fails before any work (the model is checked next)
    return _run_explicit("association", model=model, study_options={"pool_path": pool}, **options)


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
    apply_data(data)
    rid = run_directqa_command(
        model=model,
        judge=judge,
        base_url=base_url,
        judge_base_url=judge_base_url,
        limit=limit,
        seed=seed,
        repeats=repeats,
        concurrency=concurrency,
        run_id=run_id,
        retry_errors=retry_errors,
        no_cache=no_cache,
        prompts=prompts,
        reasoning_max_tokens=reasoning_max_tokens,
    )
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
    apply_data(data)
    rid = run_association_command(
        model=model,
        judge=judge,
        base_url=base_url,
        judge_base_url=judge_base_url,
        pool=pool,
        limit=limit,
        seed=seed,
        repeats=repeats,
        concurrency=concurrency,
        run_id=run_id,
        retry_errors=retry_errors,
        no_cache=no_cache,
        prompts=prompts,
        reasoning_max_tokens=reasoning_max_tokens,
    )
    console.print(f"export: nationbias runs export {rid} --format csv")
