"""The runner: every task gets a row, workers start spaced out, clients are closed, a bug is recorded."""

from __future__ import annotations

import asyncio
import gc
from pathlib import Path

import pytest

from nationbias.graphs.study import runner
from nationbias.graphs.study.runner import GC_YOUNG_THRESHOLD, Task, frozen_gc, run_tasks
from nationbias.stores.state.runstore import RunStore, SampleRow


def _row(task: Task) -> SampleRow:
    return SampleRow(
        test=task.test, item=task.item, persona="", repeat=task.repeat, status="ok", messages=[], raw="x"
    )


class Closer:
    closed = 0

    async def aclose(self) -> None:
        self.closed += 1


def _first_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *, lanes: int, ramp_s: float, hold_s: float = 0.3
) -> tuple[list[float], Closer]:
    """When each task started, relative to the first, with the runner's ramp set to ``ramp_s``; one task
    per lane, each held ``hold_s`` (longer than the ramp, so no lane finishes and takes another's task
    before all have started)."""
    monkeypatch.setattr(runner, "RAMP_S", ramp_s)  # read when the run starts
    starts: list[float] = []
    closer = Closer()

    async def worker(task: Task) -> SampleRow:
        starts.append(asyncio.get_running_loop().time())
        await asyncio.sleep(hold_s)
        return _row(task)

    async def main() -> None:
        store = RunStore(tmp_path / f"runs-{lanes}-{ramp_s}.sqlite")
        store.create_run("r", {"test": "t"})
        summary = await run_tasks(
            store=store,
            run_id="r",
            tasks=[Task(test="t", item=f"i{n}") for n in range(lanes)],
            worker=worker,
            concurrency=lanes,
            show_progress=False,
            clients=[closer, None],
        )
        assert summary.ok == summary.total == lanes
        store.close()

    asyncio.run(main())
    return [t - starts[0] for t in starts], closer


def test_workers_start_spaced_by_the_ramp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    starts, closer = _first_starts(tmp_path, monkeypatch, lanes=5, ramp_s=0.02)
    # Lane i sleeps i x 0.02 s before its first task, and a sleep never ends early: a lower bound only,
    # so a loaded machine (which makes lanes late, never early) cannot fail it.
    assert all(start >= lane * 0.02 - 0.002 for lane, start in enumerate(sorted(starts))), starts
    assert closer.closed == 1


def test_no_ramp_starts_all_at_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    starts, _ = _first_starts(tmp_path, monkeypatch, lanes=5, ramp_s=0, hold_s=0.5)
    assert max(starts) < 0.5, starts  # every lane started before the first task (held 0.5 s) ended


def test_the_ramp_is_capped_in_total(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The cap is read from the module when the run starts: a 0.4 s cap takes the same path as the
    # real 1 s one (spacing = cap / lanes) at a third of the wait; uncapped the ramp is still 39 s.
    cap = 0.4
    monkeypatch.setattr(runner, "RAMP_MAX_S", cap)
    starts, _ = _first_starts(tmp_path, monkeypatch, lanes=40, ramp_s=1.0, hold_s=0.6)  # uncapped: 39 s
    assert cap * 0.9 <= max(starts) < cap + 3, max(starts)  # uncapped it would be 39 s


def test_a_worker_bug_becomes_an_error_row_and_clients_still_close(tmp_path: Path) -> None:
    closer = Closer()

    async def broken(task: Task) -> SampleRow:
        raise KeyError("boom")

    async def main() -> None:
        store = RunStore(tmp_path / "runs.sqlite")
        store.create_run("r", {"test": "t"})
        summary = await run_tasks(
            store=store,
            run_id="r",
            tasks=[Task(test="t", item="a")],
            worker=broken,
            show_progress=False,
            clients=[closer],
        )
        assert summary.error == 1 and "internal KeyError" in summary.first_errors[0]
        store.close()

    asyncio.run(main())
    assert closer.closed == 1


def test_a_run_freezes_the_heap_and_collects_the_young_generation_less_often() -> None:
    before = gc.get_threshold()
    try:
        gc.set_threshold(700, 10, 10)
        with frozen_gc():
            assert gc.get_threshold() == (GC_YOUNG_THRESHOLD, 10, 10)
            assert gc.get_freeze_count() > 0
        assert gc.get_threshold() == (700, 10, 10)
        gc.set_threshold(0, 10, 10)  # a caller that turned collection off keeps it off
        with frozen_gc():
            assert gc.get_threshold() == (0, 10, 10)
        assert gc.get_threshold() == (0, 10, 10)
    finally:
        gc.set_threshold(*before)
