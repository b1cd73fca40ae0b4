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
from nationbias.evals.bias_tests.base import check_supported, options_from, options_of
from nationbias.evals.errors import UsageError
from nationbias.evals.inputs import check_model, check_prompts, check_translate, make_client, new_run_id
from nationbias.graphs.study.options import RunOptions
from nationbias.stores.corpora.bundled import using_data

if TYPE_CHECKING:
    import pandas as pd

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
    options: RunOptions | None = None,
    test_options: Any = None,
    hooks: Hooks = QUIET,
    **given: Any,
) -> RunSummary:
    """Run (or resume) one bias test for one model. ``options`` are the run's options
    (graphs/study/options.py: ``limit``, ``repeats``, ``body``, ``concurrency``, ``batch``, ``timeout`` …,
    each with its one default); ``given`` keywords are run options over them (``limit=1``) or the
    test's own (``k`` for debias, ``pool`` for association), built here into its one options object
    (its ``options_type``, evals/bias_tests/base.py), unless ``test_options`` is that object, built by
    the caller (the CLI's vote command builds the ``DebiasOptions``). Every input is checked before a
    store is opened; one process at a time runs a run id (stores/state/lease.py)."""
    from nationbias.graphs.model.budget import check_budget, check_timeout
    from nationbias.graphs.progress import check_every
    from nationbias.graphs.study.run_config import note_learned_reasoning
    from nationbias.graphs.study.sampling import SampleOptions
    from nationbias.graphs.study.study_run import StudyRun
    from nationbias.prompts.registry import for_body
    from nationbias.stores.state.runstore import RunStore, check_run_id

    run, own = RunOptions.split(given, base=options)
    with using_data(run.data):  # the data folder for this run only (the environment is not touched)
        bias = get_test(test)
        if test_options is not None and own:
            raise UsageError(
                f"test {test!r}: its options are given as an object; give {sorted(own)} in it, not beside it"
            )
        own_options = options_from(bias, own) if test_options is None else options_of(bias, test_options)
        check_supported(bias, body=run.body, language=run.language)
        check_model(model, base_url=run.base_url)  # a bad spec or key fails first
        from nationbias.graphs.model.registry import shared_url

        chosen = for_body(check_prompts(run.prompts, language=run.language), run.body)
        translate_url = run.translate_base_url or shared_url(run.translate_with or "", run.base_url)
        check_translate(run.translate_with, language=chosen.language, base_url=translate_url)
        # --translate-with: only a test that shows a record's text translates it (the vote and debias)
        translates = run.translate_with is not None and getattr(bias, "translates", False)
        if translates:
            chosen = chosen.with_translated_text()
        check_budget(run.reasoning_max_tokens)
        check_timeout(run.timeout)
        check_every(run.progress_every)
        judge_url = run.judge_base_url or shared_url(run.judge or "", run.base_url)
        if run.judge is not None:
            bias.check_judge(chosen)
            check_model(run.judge, base_url=judge_url)
        if run.batch or run.batch_offline:
            specs = [(model, run.base_url)] + ([(run.judge, judge_url)] if run.judge is not None else [])
            await check_batch(specs, no_cache=run.no_cache, offline=run.batch_offline)
        request = RunRequest.of(run, model=model, options=own_options)
        sample = SampleOptions.of(run)
        inputs = bias.prepare(request, sample)
        rid = check_run_id(run.run_id or new_run_id(test, model))
        hooks.on_run_id(rid)
        store = RunStore()  # a corrupt run store fails before the cache is touched
        budget: dict[str, Any] = {"reasoning_max_tokens": run.reasoning_max_tokens, "timeout": run.timeout}
        client = make_client(model, base_url=run.base_url, no_cache=run.no_cache, **budget)
        judge_client = None
        if run.judge is not None:
            judge_client = make_client(run.judge, base_url=judge_url, no_cache=run.no_cache, **budget)
        translator = None
        if translates:
            assert run.translate_with is not None
            translator = make_client(
                run.translate_with, base_url=translate_url, no_cache=run.no_cache, **budget
            )
        study = StudyRun(
            client=client,
            store=store,
            run_id=rid,
            sample=sample,
            prompts=chosen,
            judge=judge_client,
            translator=translator,
            concurrency=run.concurrency,
            retry_errors=run.retry_errors,
            show_progress=run.show_progress,
            progress_every=run.progress_every,
        )
        ctx = RunContext(request=request, run=study, inputs=inputs)
        with store.lease(rid, notify=_notice), hooks.running():  # a second process refuses here
            summary = await run_test(
                bias,
                ctx,
                batch=run.batch,
                offline=run.batch_offline,
                show_progress=run.show_progress,
                resume=hooks.resume,
            )
        note_learned_reasoning(store, rid, client)
        hooks.on_summary(summary, client.spec.is_embedded)
        return summary


def _notice(text: str) -> None:
    """A line for the user on stderr (a stale lease taken over), as the runner's progress goes."""
    from nationbias.graphs.study.runner import console
    from nationbias.graphs.terminal_text import controls_escaped

    console.print(controls_escaped(text), highlight=False, soft_wrap=True, markup=False)


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
    from nationbias.evals.page.study import write_study_report

    return write_study_report([run_ids] if isinstance(run_ids, str) else list(run_ids), out=out)
