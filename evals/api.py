"""The library: run a bias test from Python, awaited on the caller's loop or called from sync code.

``arun`` is the one place a run is checked, opened and started; the CLI, :mod:`nationbias.evals.study` and a
notebook all come through it. The sync wrappers work inside a running loop too (Jupyter), where
``asyncio.run`` cannot: the coroutine then runs on its own loop in a worker thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from nationbias.evals.batch_mode import check_batch, run_test
from nationbias.evals.bias_tests import RunContext, RunRequest, get_test
from nationbias.evals.bias_tests.base import test_bodies
from nationbias.evals.errors import UsageError
from nationbias.evals.inputs import (
    REASONING_MAX_TOKENS,
    TIMEOUT_S,
    check_model,
    check_prompts,
    make_client,
    new_run_id,
)
from nationbias.prompts.registry import DEFAULT_SET
from nationbias.stores.bundled import using_data

if TYPE_CHECKING:
    import pandas as pd

    from nationbias.graphs.model.endpoints import BaseUrls
    from nationbias.graphs.study.runner import RunSummary

T = TypeVar("T")


def _nothing(*_: Any) -> None:
    return None


def _no_command(run_id: str) -> tuple[str, list[str] | None]:
    return run_id, None


@dataclass(frozen=True, kw_only=True)
class Hooks:
    """What a caller sees of a run: its id once checked, the summary at the end, and a context the
    samples run in (the CLI's: the resume command, the summary line, ``gc.freeze``). ``resume`` gives the id
    that resumes a run and the command line that does it (a batch run stores it for ``runs resume``; the
    library has none)."""

    on_run_id: Callable[[str], None] = _nothing
    on_summary: Callable[[RunSummary, bool], None] = _nothing
    running: Callable[[], AbstractContextManager[Any]] = contextlib.nullcontext
    resume: Callable[[str], tuple[str, list[str] | None]] = _no_command


QUIET = Hooks()


async def arun(
    test: str,
    *,
    model: str,
    base_url: BaseUrls = None,
    judge: str | None = None,
    judge_base_url: str | None = None,
    limit: int | None = None,
    seed: int = 0,
    repeats: int = 3,
    personas: str = "p5",
    body: str = "unsc",
    years: str | None = None,
    concurrency: int = 4,
    run_id: str | None = None,
    retry_errors: bool = False,
    no_cache: bool = False,
    prompts: str = DEFAULT_SET,
    reasoning_max_tokens: int = REASONING_MAX_TOKENS,
    show_progress: bool = True,
    data: str | None = None,
    hooks: Hooks = QUIET,
    batch: bool = False,
    batch_offline: bool = False,
    timeout: float = TIMEOUT_S,
    progress_every: float = 30.0,
    **options: Any,
) -> RunSummary:
    """Run (or resume) one bias test for one model; ``options`` are the test's own (e.g. ``k`` for
    debias, ``pool`` for association); ``body`` the Council (``unsc``) or the Assembly (``unga``),
    ``years`` a window (``2005-2019``); ``data`` a data folder to read instead of the packaged copy;
    ``batch`` asks through the provider's batch API in rounds (``batch_offline``: records them for
    ``nationbias batch export``; evals/batch_mode.py); ``timeout`` the seconds a model call may take;
    ``progress_every`` the seconds between progress lines when stderr is not a terminal. Every input is
    checked before a store is opened; one process at a time runs a run id (stores/lease.py)."""
    arguments = dict(locals())
    with using_data(data):  # the data folder for this run only (the environment is not touched)
        from nationbias.graphs.model.budget import check_budget, check_timeout
        from nationbias.graphs.progress import check_every
        from nationbias.graphs.study.run_config import note_learned_reasoning
        from nationbias.graphs.study.sampling import SampleOptions, check_body, parse_years
        from nationbias.prompts.registry import for_body
        from nationbias.stores.runstore import RunStore, check_run_id

        bias = get_test(test)
        if unknown := sorted(set(options) - set(bias.options)):
            raise UsageError(
                f"test {test!r} takes no option {unknown}: its options are {sorted(bias.options)}"
            )
        if body not in test_bodies(bias):
            raise UsageError(f"test {test!r} runs on {' and '.join(test_bodies(bias))}, not --body {body}")
        check_model(model, base_url=base_url)  # a bad spec or key fails first
        chosen = for_body(check_prompts(prompts), body)
        check_budget(reasoning_max_tokens)
        check_timeout(timeout)
        check_every(progress_every)
        judge_url = judge_base_url or base_url
        if judge is not None:
            bias.check_judge(chosen)
            check_model(judge, base_url=judge_url)
        if batch or batch_offline:
            specs = [(model, base_url)] + ([(judge, judge_url)] if judge is not None else [])
            await check_batch(specs, no_cache=no_cache, offline=batch_offline)
        request = RunRequest.from_arguments(arguments, options)
        sample = SampleOptions(
            limit=limit,
            seed=seed,
            repeats=repeats,
            personas=personas,
            body=check_body(body),
            years=parse_years(years),
        )
        inputs = bias.prepare(request, sample)
        rid = check_run_id(run_id or new_run_id(test, model))
        hooks.on_run_id(rid)
        store = RunStore()  # a corrupt run store fails before the cache is touched
        budget: dict[str, Any] = {"reasoning_max_tokens": reasoning_max_tokens, "timeout": timeout}
        client = make_client(model, base_url=base_url, no_cache=no_cache, **budget)
        judge_client = None
        if judge is not None:
            judge_client = make_client(judge, base_url=judge_url, no_cache=no_cache, **budget)
        ctx = RunContext(
            request=request,
            run_id=rid,
            sample=sample,
            prompts=chosen,
            store=store,
            client=client,
            judge=judge_client,
            inputs=inputs,
        )
        with store.lease(rid, notify=_notice), hooks.running():  # a second process refuses here
            summary = await run_test(
                bias,
                ctx,
                batch=batch,
                offline=batch_offline,
                show_progress=show_progress,
                resume=hooks.resume,
            )
        note_learned_reasoning(store, rid, client)
        hooks.on_summary(summary, client.spec.is_embedded)
        return summary


def _notice(text: str) -> None:
    """A line for the user on stderr (a stale lease taken over), as the runner's progress goes."""
    from nationbias.graphs.study.runner import console

    console.print(text, highlight=False, soft_wrap=True, markup=False)


def sync(main: Coroutine[Any, Any, T]) -> T:
    """Run ``main`` to its end from sync code: on a fresh loop here, or, when this thread already
    runs a loop (a notebook), on a fresh loop in a worker thread, with this context's variables."""
    from nationbias.graphs.study.runner import run_async

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return run_async(main)
    context = contextvars.copy_context()
    with ThreadPoolExecutor(1, thread_name_prefix="nationbias") as pool:
        return pool.submit(context.run, run_async, main).result()


def run(test: str, *, model: str, **options: Any) -> RunSummary:
    """:func:`arun` from sync code (a script, or a notebook cell without ``await``)."""
    return sync(arun(test, model=model, **options))


def results(run_id: str) -> dict[str, pd.DataFrame]:
    """The run's named result tables (``RESULT_TABLES[test]``), as DataFrames."""
    from nationbias.evals.results import results as tables

    return tables(run_id)


def report(run_ids: str | list[str], *, out: Path | None = None) -> Path:
    """The HTML report of the runs given (one self-contained page, CSVs and PNGs beside it)."""
    from nationbias.evals.report.study import write_study_report

    return write_study_report([run_ids] if isinstance(run_ids, str) else list(run_ids), out=out)
