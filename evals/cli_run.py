"""`nationbias run …`: one test for one model."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from evals.cli_common import (
    BaseUrlOpt,
    ConcurrencyOpt,
    DataOpt,
    FailOnErrorOpt,
    LimitOpt,
    ModelOpt,
    NoCacheOpt,
    PersonasOpt,
    RepeatsOpt,
    RetryErrorsOpt,
    RunIdOpt,
    SeedOpt,
    apply_data,
    check_model,
    cli_errors,
    console,
    make_client,
    new_run_id,
    print_summary,
)
from evals.cli_outcome import offer_resume_id
from graphs.runner import run_async

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
    """Shared by `run vote`, `ablate`, `study` and `demo`; returns the run id.

    Every input is checked before a store is opened, so bad input writes nothing.
    """
    from graphs.debias import DebiasOptions
    from graphs.simulate import SampleOptions, run_debias_study, run_vote_study, select_drafts, vote_tasks
    from retrievers import get_retriever
    from stores.corpus import load_corpus
    from stores.runstore import RunStore, check_run_id

    check_model(model, base_url=base_url)  # a bad spec or key fails first
    sample = SampleOptions(limit=limit, seed=seed, repeats=repeats, personas=personas)
    options = DebiasOptions(k=k, reflexion=reflexion, retriever=retriever, threshold=threshold)
    get_retriever(retriever)  # an unknown strategy fails before any work
    test = "debias" if debias else "vote"
    run_id = check_run_id(run_id or new_run_id(test, model))
    offer_resume_id(run_id)
    corpus = load_corpus()
    vote_tasks(test, select_drafts(corpus, sample), sample)  # an unknown persona fails here
    store = RunStore()  # a corrupt run store fails before the cache is touched
    client = make_client(model, base_url=base_url, no_cache=no_cache)
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
    fail_on_error: FailOnErrorOpt = "0",
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


JudgeOpt = Annotated[
    str | None,
    typer.Option("--judge", help="Judge model spec for answers the rules cannot label (default: none)."),
]
JudgeBaseUrlOpt = Annotated[
    str | None, typer.Option("--judge-base-url", help="Judge server base URL (default: --base-url).")
]
PoolOpt = Annotated[
    str | None, typer.Option("--pool", help="Keyword pool CSV (category,keyword); default: the paper's.")
]


def _explicit_clients(
    *, model: str, judge: str | None, base_url: str | None, judge_base_url: str | None, no_cache: bool
) -> tuple[Any, Any]:
    """The answering model and the optional judge; a bad spec or key fails before any work."""
    check_model(model, base_url=base_url)
    if judge is not None:
        check_model(judge, base_url=judge_base_url or base_url)
    client = make_client(model, base_url=base_url, no_cache=no_cache)
    if judge is None:
        return client, None
    return client, make_client(judge, base_url=judge_base_url or base_url, no_cache=no_cache)


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
) -> str:
    """DirectQA and the Association Test share everything but the study function."""
    from graphs.explicit import run_association_study, run_directqa_study
    from graphs.simulate import SampleOptions
    from stores.runstore import RunStore, check_run_id

    sample = SampleOptions(limit=limit, seed=seed, repeats=repeats)
    run_id = check_run_id(run_id or new_run_id(test, model))
    offer_resume_id(run_id)
    store = RunStore()
    client, judge_client = _explicit_clients(
        model=model, judge=judge, base_url=base_url, judge_base_url=judge_base_url, no_cache=no_cache
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
            **(study_options or {}),
        )
    )
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


@run_app.command("directqa")
@cli_errors
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
    )
    console.print(f"export: nationbias runs export {rid} --format csv")


@run_app.command("association")
@cli_errors
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
    )
    console.print(f"export: nationbias runs export {rid} --format csv")
