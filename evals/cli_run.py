"""`nationbias run …`: one test for one model."""

from __future__ import annotations

from typing import Annotated

import typer

from evals.cli_common import (
    REASONING_MAX_TOKENS,
    BaseUrlOpt,
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
    UsageError,
    apply_data,
    check_model,
    check_prompts,
    cli_errors,
    console,
    make_client,
    new_run_id,
    print_summary,
)
from evals.cli_explicit import register as register_explicit
from evals.cli_explicit import run_association_command, run_directqa_command
from evals.cli_outcome import offer_resume_id
from graphs.budget import check_budget
from graphs.runner import run_async
from prompts.registry import DEFAULT_SET

run_app = typer.Typer(help="Run one bias test for one model.", no_args_is_help=True)


def run_vote_command(
    *,
    model: str,
    base_url: str | None,
    debias: bool,
    k: int,
    reflexion: bool,
    retriever: str,
    threshold: float,
    limit: int | None,
    seed: int,
    repeats: int,
    personas: str,
    concurrency: int,
    run_id: str | None,
    retry_errors: bool,
    no_cache: bool,
    show_progress: bool = True,
    prompts: str = DEFAULT_SET,
    reasoning_max_tokens: int = REASONING_MAX_TOKENS,
    judge: str | None = None,
    judge_base_url: str | None = None,
) -> str:
    """Shared by `run vote`, `ablate`, `study` and `demo`; returns the run id.

    Every input is checked before a store is opened, so bad input writes nothing.
    """
    from graphs.debias import DebiasOptions
    from graphs.run_config import note_learned_reasoning
    from graphs.simulate import SampleOptions, run_debias_study, run_vote_study, select_drafts, vote_tasks
    from retrievers import get_retriever
    from stores.corpus import load_corpus
    from stores.runstore import RunStore, check_run_id

    check_model(model, base_url=base_url)  # a bad spec or key fails first
    chosen = check_prompts(prompts)
    check_budget(reasoning_max_tokens)
    if judge is not None:
        if not chosen.free_text:
            raise UsageError("--judge reads free-text votes: use it with --prompts paper")
        check_model(judge, base_url=judge_base_url or base_url)
    sample = SampleOptions(limit=limit, seed=seed, repeats=repeats, personas=personas)
    options = DebiasOptions(k=k, reflexion=reflexion, retriever=retriever, threshold=threshold)
    get_retriever(retriever)  # an unknown strategy fails before any work
    test = "debias" if debias else "vote"
    run_id = check_run_id(run_id or new_run_id(test, model))
    offer_resume_id(run_id)
    corpus = load_corpus()
    vote_tasks(test, select_drafts(corpus, sample), sample)  # an unknown persona fails here
    store = RunStore()  # a corrupt run store fails before the cache is touched
    client = make_client(
        model, base_url=base_url, no_cache=no_cache, reasoning_max_tokens=reasoning_max_tokens
    )
    judge_client = None
    if judge is not None:
        judge_client = make_client(
            judge,
            base_url=judge_base_url or base_url,
            no_cache=no_cache,
            reasoning_max_tokens=reasoning_max_tokens,
        )
    if debias:
        summary = run_async(
            run_debias_study(
                client=client,
                corpus=corpus,
                store=store,
                run_id=run_id,
                sample=sample,
                options=options,
                concurrency=concurrency,
                retry_errors=retry_errors,
                show_progress=show_progress,
                prompts=chosen,
                judge=judge_client,
            )
        )
    else:
        summary = run_async(
            run_vote_study(
                client=client,
                corpus=corpus,
                store=store,
                run_id=run_id,
                sample=sample,
                concurrency=concurrency,
                retry_errors=retry_errors,
                show_progress=show_progress,
                prompts=chosen,
                judge=judge_client,
            )
        )
    note_learned_reasoning(store, run_id, client)
    print_summary(summary, embedded=client.spec.is_embedded)
    return run_id


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
    ] = 3.0,
    limit: LimitOpt = None,
    seed: SeedOpt = 0,
    repeats: RepeatsOpt = 3,
    personas: PersonasOpt = "p5",
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
    """Persona vote simulation on the non-adopted drafts (optionally debiased)."""
    apply_data(data)
    rid = run_vote_command(
        model=model,
        base_url=base_url,
        debias=debias,
        k=k,
        reflexion=reflexion,
        retriever=retriever,
        threshold=threshold,
        limit=limit,
        seed=seed,
        repeats=repeats,
        personas=personas,
        concurrency=concurrency,
        run_id=run_id,
        retry_errors=retry_errors,
        no_cache=no_cache,
        prompts=prompts,
        reasoning_max_tokens=reasoning_max_tokens,
        judge=judge,
        judge_base_url=judge_base_url,
    )
    console.print(f"export: nationbias runs export {rid} --format csv")


register_explicit(run_app)  # `run directqa`, `run association`

__all__ = ["run_app", "run_association_command", "run_directqa_command", "run_vote_command"]
