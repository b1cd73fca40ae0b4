"""The run store: no sample lost under two writer threads and two writer processes."""

from __future__ import annotations

import io
import json
import multiprocessing
import re
import threading
from pathlib import Path

import pytest

from nationbias.stores.state.runstore import RunNotFoundError, RunStore, SampleRow, check_run_id


def _row(i: int, writer: str) -> SampleRow:
    return SampleRow(
        test="vote",
        item=f"S/{writer}/{i}",
        persona="USA",
        repeat=0,
        status="ok",
        messages=[{"role": "user", "content": "q"}],
        raw='{"vote": "favour"}',
        parsed={"vote": "favour"},
    )


def _write_many(path: str, writer: str, n: int) -> None:
    store = RunStore(Path(path))
    for i in range(n):
        store.write("r1", _row(i, writer))


def test_two_threads_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite"
    RunStore(path).create_run("r1", {"test": "vote", "model": "fake:hash"})
    threads = [threading.Thread(target=_write_many, args=(str(path), w, 200)) for w in ("a", "b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(RunStore(path).done_ids("r1")) == 400


def test_two_processes_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite"
    RunStore(path).create_run("r1", {"test": "vote", "model": "fake:hash"})
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_write_many, args=(str(path), w, 200)) for w in ("p", "q")]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    assert len(RunStore(path).done_ids("r1")) == 400


def test_rewrite_replaces_and_exports(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs.sqlite")
    store.create_run("r1", {"test": "vote", "model": "fake:hash"})
    failed = _row(0, "a")
    failed.status, failed.parsed, failed.error = "error", None, "APITimeoutError"
    store.write("r1", failed)
    assert store.done_ids("r1", include_errors=False) == set()
    store.write("r1", _row(0, "a"))
    frame = store.samples_frame("r1")
    assert len(frame) == 1 and frame.loc[0, "parsed"] == {"vote": "favour"}
    out = io.StringIO()
    store.export("r1", "jsonl", out)
    assert json.loads(out.getvalue())["sample_id"] == "vote|S/a/0|USA||r0"
    out = io.StringIO()
    store.export("r1", "csv", out)
    assert out.getvalue().splitlines()[0].startswith("run_id,sample_id")


def test_resume_keeps_config_and_rejects_anything_that_changes_answers(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs.sqlite")
    first = {
        "test": "directqa",
        "model": "fake:hash",
        "seed": 1,
        "sample": {"limit": 2, "repeats": 1},
        "options": {"judge": None, "families": ["general"]},
    }
    store.create_run("r1", first)
    grown = {**first, "sample": {"limit": 5, "repeats": 3}, "options": {"judge": None, "families": ["a"]}}
    resumed = store.create_run("r1", grown)  # a bigger sample resumes, and the config records it
    assert resumed["sample"] == store.get_run("r1")["sample"] == {"limit": 5, "repeats": 3}
    assert resumed["options"] == first["options"]  # only what describes the targets is recorded again
    for smaller, named in (
        ({"limit": 4, "repeats": 3}, "limit=5, not 4"),
        ({"limit": 5, "repeats": 1}, "repeats=3, not 1"),
    ):
        with pytest.raises(ValueError, match=re.escape(f"{named} (the sample may only grow)")):
            store.create_run("r1", {**first, "sample": smaller})
    unlimited = store.create_run("r1", {**first, "sample": {"limit": None, "repeats": 3}})  # every item
    assert unlimited["sample"]["limit"] is None
    with pytest.raises(ValueError, match=re.escape("limit=None, not 5")):
        store.create_run("r1", {**first, "sample": {"limit": 5, "repeats": 3}})
    first = {**first, "sample": {"limit": None, "repeats": 3}}
    for change, named in (
        ({"model": "local:smollm2"}, "model='fake:hash', not 'local:smollm2'"),
        ({"seed": 2}, "seed=1, not 2"),
        ({"options": {"judge": "openai:gpt-4o-mini"}}, "judge=None, not 'openai:gpt-4o-mini'"),
        ({"prompt_versions": {"x": "2"}}, None),  # not recorded before: nothing to compare
    ):
        if named is None:
            store.create_run("r1", {**first, **change})
            continue
        with pytest.raises(ValueError, match=f"was started with {re.escape(named)}: use a new --run-id"):
            store.create_run("r1", {**first, **change})
    with pytest.raises(RunNotFoundError, match="no run 'nope'"):
        store.get_run("nope")
    with pytest.raises(ValueError, match="invalid run id"):
        check_run_id("../../etc")


def test_rows_written_on_a_loop_share_a_commit_and_flush_publishes_them(tmp_path: Path) -> None:
    import asyncio
    import sqlite3
    from contextlib import closing

    path = tmp_path / "runs.sqlite"
    store = RunStore(path)
    store.create_run("r1", {"test": "vote", "model": "fake:hash"})

    def visible() -> int:
        with closing(sqlite3.connect(path)) as other:
            return int(other.execute("SELECT COUNT(*) FROM samples").fetchone()[0])

    def row(repeat: int) -> SampleRow:
        return SampleRow(test="vote", item="S/a", persona="USA", repeat=repeat, status="ok", messages=[])

    async def write_three() -> tuple[int, int]:
        for repeat in range(3):
            store.write("r1", row(repeat))
        before = visible()  # this turn's rows are not committed yet...
        await asyncio.sleep(0)
        return before, visible()  # ...one turn later they are, in one commit

    assert asyncio.run(write_three()) == (0, 3)

    async def write_and_leave() -> None:
        store.write("r1", row(3))

    asyncio.run(write_and_leave())
    store.flush()  # the runner's last step: nothing waits for a loop that is gone
    assert visible() == 4 and len(store.done_ids("r1")) == 4
    store.write("r1", row(4))  # outside a loop: committed at once
    assert visible() == 5
