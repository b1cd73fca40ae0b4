"""`nationbias run …`: one test for one model."""

from __future__ import annotations

import asyncio
from typing import Annotated

import typer

from evals.cli_common import (
    BaseUrlOpt,
    ConcurrencyOpt,
    DataOpt,
    LimitOpt,
    ModelOpt,
    NoCacheOpt,
    PersonasOpt,
    RepeatsOpt,
    RetryErrorsOpt,
    RunIdOpt,
    SeedOpt,
    apply_data,
    cli_errors,
    console,
    make_client,
    new_run_id,
    print_summary,
)

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
) -> str:
    """Shared by `run vote`, `ablate`, `study` and `demo`; returns the run id."""
    client = make_client(model, base_url=base_url, no_cache=no_cache)  # a bad spec or key fails first
    from graphs.debias import DebiasOptions
    from graphs.simulate import SampleOptions, run_debias_study, run_vote_study
    from retrievers import get_retriever
    from stores.corpus import load_corpus
    from stores.runstore import RunStore, check_run_id

    sample = SampleOptions(limit=limit, seed=seed, repeats=repeats, personas=personas)
    options = DebiasOptions(k=k, reflexion=reflexion, retriever=retriever, threshold=threshold)
    get_retriever(retriever)  # an unknown strategy fails before any work
    corpus = load_corpus()
    store = RunStore()
    test = "debias" if debias else "vote"
    run_id = check_run_id(run_id or new_run_id(test, model))
    if debias:
        summary = asyncio.run(
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
            )
        )
    else:
        summary = asyncio.run(
            run_vote_study(
                client=client,
                corpus=corpus,
                store=store,
                run_id=run_id,
                sample=sample,
                concurrency=concurrency,
                retry_errors=retry_errors,
                show_progress=show_progress,
            )
        )
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
    data: DataOpt = None,
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
    )
    console.print(f"export: nationbias runs export {rid} --format csv")
