"""Run many samples concurrently, write each one the moment it completes, resume by run id.

Every test (vote, debias, DirectQA, association) is a list of :class:`Task` plus one async
worker that turns a task into a :class:`SampleRow`. The runner owns concurrency, progress,
skipping completed samples and recording failures; it never drops a sample silently.
"""

from __future__ import annotations

import asyncio
import gc
import time
import traceback
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any, Protocol, TypeVar

from rich.console import Console

from nationbias.graphs.model.batch.calls import Deferred
from nationbias.graphs.model.cost.meter import RunSpend
from nationbias.graphs.progress import DEFAULT_EVERY_S, run_progress
from nationbias.graphs.study.halt import Halt, RunHalted
from nationbias.graphs.study.options import DEFAULT_CONCURRENCY
from nationbias.graphs.terminal_text import plain
from nationbias.stores.errors import InputError
from nationbias.stores.state.faults import RunFault
from nationbias.stores.state.runstore import PLANNED, RunNotFoundError, RunStore, SampleRow, sample_id
from nationbias.stores.state.sqlite import GroupCommit

console = Console(stderr=True)
T = TypeVar("T")
# Workers start this far apart (at most RAMP_MAX_S in all), as load generators ramp up. Started
# together, their calls leave in one burst and come back in one; the loop then serves each burst
# one sample at a time while interleaving them all, so every sample ends late and the burst
# re-forms every wave. 2 ms apart is longer than a sample's own CPU, so the spacing holds
# (benchmarks/throughput.py, finding 11).
RAMP_S = 0.002
RAMP_MAX_S = 1.0


def run_async(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run`` on uvloop where it is installed: its loop costs less per callback, which
    matters with dozens of calls in flight on one core (benchmarks/RESULTS.md)."""
    try:
        import uvloop
    except ImportError:  # e.g. Windows: the standard loop works, a little slower
        return asyncio.run(main)
    return uvloop.run(main)


# The cyclic GC's young-generation threshold during a run (CPython's default is 700 net container
# allocations). At 64 samples in flight the default ran ~550 collections per debias study, each
# walking the in-flight states, tasks and futures for cycles that were not there: ~10% of the
# client's CPU and stalls of up to 0.1 s on the one event loop (benchmarks/throughput.py, finding 18).
# Net allocations of a study rarely reach this, and garbage cycles count towards it, so it still
# bounds what a run can leave uncollected.
GC_YOUNG_THRESHOLD = 20_000


@contextmanager
def frozen_gc() -> Iterator[None]:
    """Freeze the heap for a run: the corpus, graphs and modules loaded so far live for the whole run,
    and the cyclic GC's full collections need not walk them again and again mid-run; and collect the
    young generation every ``GC_YOUNG_THRESHOLD`` net allocations rather than every 700. A
    process-wide choice, so the CLI makes it (evals/cli/common.py), never the library."""
    thresholds = gc.get_threshold()
    gc.freeze()
    if thresholds[0]:  # 0: collection turned off by the caller, and left off
        gc.set_threshold(max(thresholds[0], GC_YOUNG_THRESHOLD), *thresholds[1:])
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()


@dataclass(frozen=True)
class Task:
    test: str
    item: str
    persona: str = ""
    pair_order: str = ""
    repeat: int = 0
    payload: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def sample_id(self) -> str:
        return sample_id(
            test=self.test, item=self.item, persona=self.persona, order=self.pair_order, repeat=self.repeat
        )


Worker = Callable[[Task], Awaitable[SampleRow]]


class Closeable(Protocol):
    async def aclose(self) -> None: ...


@dataclass
class RunSummary:
    run_id: str
    total: int
    skipped: int = 0
    ok: int = 0
    invalid: int = 0
    error: int = 0
    wall_s: float = 0.0
    first_errors: list[str] = field(default_factory=list)
    unsaved: int = 0  # answers a failed commit could not keep (asked again on resume)
    lost: int = 0  # calls in flight the backend took down with it after a stop signal (never stored)
    errored: int = 0  # samples of this run whose stored row is an error (this session's or earlier)

    @property
    def done(self) -> int:
        return self.ok + self.invalid + self.error


def package_version() -> str:
    try:
        return metadata.version("nationbias")
    except metadata.PackageNotFoundError:
        return "0+unknown"


def _internal_error(task: Task, exc: BaseException) -> SampleRow:
    frame = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
    where = f" at {frame.filename.rsplit('/', 1)[-1]}:{frame.lineno}" if frame else ""
    return SampleRow(
        test=task.test,
        item=task.item,
        persona=task.persona,
        pair_order=task.pair_order,
        repeat=task.repeat,
        status="error",
        messages=[],
        error=f"internal {type(exc).__name__}{where}: {exc}",
    )


def _plan(store: RunStore, run_id: str, planned: int) -> None:
    """Record how many samples this start asks for: a report counts the run's rows against it."""
    try:
        if store.get_run(run_id).get(PLANNED) == planned:
            return
    except RunNotFoundError:  # a bare runner without a run config (a test's): nothing to record it in
        return
    store.update_config(run_id, **{PLANNED: planned})


async def run_tasks(
    *,
    store: RunStore,
    run_id: str,
    tasks: Iterable[Task],
    worker: Worker,
    concurrency: int = DEFAULT_CONCURRENCY,
    retry_errors: bool = False,
    description: str = "samples",
    show_progress: bool = True,
    clients: Iterable[Closeable | None] = (),
    commits: Iterable[GroupCommit] = (),
    progress_every: float = DEFAULT_EVERY_S,
) -> RunSummary:
    """Run the tasks not yet recorded for ``run_id`` (and failed ones with ``retry_errors``).

    ``clients`` (the model and judge) are closed at the end, so no connection outlives its loop.
    The workers' starts are spaced ``RAMP_S`` apart (at most ``RAMP_MAX_S`` in all).
    A run fault (a store that cannot be written, an unreachable endpoint, Ctrl-C: graphs/study/halt.py)
    stops it early with :class:`RunHalted`, whose ``summary`` counts what was stored. ``commits``
    are other stores' group commits (the debias checkpoints) whose first failure stops it too.
    Progress goes to stderr: a bar on a terminal, a line every ``progress_every`` seconds in a log
    (graphs/progress.py).
    """
    if concurrency < 1:
        raise InputError(f"--concurrency must be >= 1, got {concurrency}")
    all_tasks = list(tasks)
    _plan(store, run_id, len(all_tasks))
    done = store.done_ids(run_id, include_errors=not retry_errors)
    pending = [t for t in all_tasks if t.sample_id not in done]
    summary = RunSummary(run_id=run_id, total=len(all_tasks), skipped=len(all_tasks) - len(pending))
    started = time.perf_counter()
    spend = RunSpend(
        store, run_id
    )  # its calls priced under --max-cost, its spend stored (graphs/model/cost/meter.py)
    queue: asyncio.Queue[Task] = asyncio.Queue()
    for task in pending:
        queue.put_nowait(task)

    clients = list(clients)
    progress = run_progress(
        summary,
        description=description,
        console=console,
        show=show_progress,
        every_s=progress_every,
        clients=clients,
    )

    lanes = min(concurrency, max(1, len(pending)))
    spacing = min(RAMP_S, RAMP_MAX_S / lanes)  # read at each run: a test may set either
    halt = Halt(notify=lambda text: console.print(plain(text), highlight=False, soft_wrap=True))
    written: dict[str, str] = {}
    watched = [store.commits, *commits]
    for group in watched:  # a failed commit stops the run from its own callback: no call waits for it
        group.on_failure = halt.stop

    async def drain(lane: int) -> None:
        if lane:
            await asyncio.sleep(lane * spacing)
        while not halt.stopping:
            if (failure := next((g.failed for g in watched if g.failed), None)) is not None:
                halt.stop(failure)  # an earlier run on this store failed to commit: ask nothing
                return
            try:
                task = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            try:
                store.fence(run_id)  # a lease another process took over: no call more (stores/state/lease.py)
                row = await worker(task)
            except RunFault as fault:  # not the sample's fault: nothing is recorded, it runs on resume
                halt.lose(fault)  # after a stop signal: a call lost with the backend, counted
                return
            except (
                Deferred
            ):  # --batch: it waits for the current round's batch, no row (graphs/model/batch/calls.py)
                continue
            except Exception as exc:  # a bug must not lose the sample: record it and go on
                row = _internal_error(task, exc)
            try:
                store.fence(run_id)  # the new holder writes the run now; the answer is in the cache
                store.write(run_id, row)
            except RunFault as fault:
                halt.stop(fault)
                return
            written[row.sample_id] = row.status
            setattr(summary, row.status, getattr(summary, row.status) + 1)
            if row.status == "error" and len(summary.first_errors) < 5:
                summary.first_errors.append(f"{row.sample_id}: {row.error}")
            progress.advance()
            await asyncio.sleep(0)  # this turn's group commit runs before the lane asks anything new

    # graphs/study/chain_end.py: no task per node to end a LangChain run nobody listens to (imported
    # here: it loads langchain_core, which the CLI does not import to start; test_cli_startup.py)
    from nationbias.graphs.study.chain_end import unshielded_chain_end

    try:
        async with progress:
            with unshielded_chain_end():
                halt.tasks = [asyncio.create_task(drain(lane)) for lane in range(lanes)]
                halt.install()
                await asyncio.wait(halt.tasks)
    finally:
        halt.uninstall()
        for group in watched:
            group.on_failure = None
        try:
            store.flush()
            spend.close()
        except RunFault as fault:
            halt.stop(fault)
        for client in clients:
            if client is not None:
                await client.aclose()
    for lane in halt.tasks:  # a bug outside the worker (which records its own) still surfaces
        if not lane.cancelled() and lane.exception() is not None:
            raise lane.exception()  # type: ignore[misc]
    summary.wall_s = time.perf_counter() - started
    summary.lost = halt.lost
    if halt.fault is not None:
        _uncount_unsaved(store, run_id, summary, written)
    ids = {task.sample_id for task in all_tasks}
    errors = store.done_ids(run_id) - store.done_ids(run_id, include_errors=False)
    summary.errored = len(ids & errors)
    if (stopped := halt.outcome()) is not None:
        raise RunHalted(stopped, summary)
    return summary


def _uncount_unsaved(store: RunStore, run_id: str, summary: RunSummary, written: dict[str, str]) -> None:
    """After a failed commit, count only the rows that reached the store."""
    if store.commits.failed is None:
        return
    stored = store.done_ids(run_id)
    for sid, status in written.items():
        if sid not in stored:
            setattr(summary, status, getattr(summary, status) - 1)
            summary.unsaved += 1
