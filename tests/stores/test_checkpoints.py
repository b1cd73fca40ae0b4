"""Inline checkpoints: LangGraph's schema, one commit per event-loop turn, nothing lost on close."""

from __future__ import annotations

import asyncio
import operator
import sqlite3
import threading
from contextlib import closing
from pathlib import Path
from typing import Annotated, TypedDict

import pytest
from langgraph.checkpoint.base import empty_checkpoint
from langgraph.graph import END, START, StateGraph

from nationbias.stores.state import sqlite as sqlite_store
from nationbias.stores.state.checkpoints import InlineSqliteSaver


class State(TypedDict, total=False):
    steps: Annotated[list[str], operator.add]


def _graph(saver: InlineSqliteSaver):  # type: ignore[no-untyped-def]
    graph = StateGraph(State)
    graph.add_node("a", lambda s: {"steps": ["a"]})
    graph.add_node("b", lambda s: {"steps": ["b"]})
    graph.add_edge(START, "a")
    graph.add_edge("a", "b")
    graph.add_edge("b", END)
    return graph.compile(checkpointer=saver, interrupt_before=["b"])


def _rows(conn: sqlite3.Connection, table: str) -> int:
    return int(conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])


def _committed(path: Path, table: str = "checkpoints") -> int:
    with closing(sqlite3.connect(path)) as other:  # another connection sees committed data only
        return _rows(other, table)


def test_writes_of_one_loop_turn_share_a_commit_and_a_graph_resumes(tmp_path: Path) -> None:
    path = tmp_path / "checkpoints.sqlite"
    config = {"configurable": {"thread_id": "t"}}

    async def first_part() -> tuple[int, int, int]:
        with InlineSqliteSaver.open(path) as saver:
            await _graph(saver).ainvoke({"steps": []}, config)  # stops before b
            await asyncio.sleep(0)
            latest = saver.get_tuple(config)
            assert latest is not None and _committed(path) == _rows(saver.conn, "checkpoints") > 0
            committed = _committed(path, "writes")
            other = {"configurable": {**latest.config["configurable"], "thread_id": "w"}}
            await saver.aput_writes(other, [("steps", ["x"])], "task-1")
            await saver.aput_writes(other, [("steps", ["y"])], "task-2")
            pending = _committed(path, "writes"), _rows(saver.conn, "writes")
            await asyncio.sleep(0)  # one loop turn: the one scheduled commit runs
            assert pending == (committed, committed + 2)
            return committed, _committed(path, "writes"), _rows(saver.conn, "writes")

    committed, after, own = asyncio.run(first_part())
    assert after == own == committed + 2

    async def resume() -> list[str]:
        with InlineSqliteSaver.open(path) as saver:
            state = await _graph(saver).ainvoke(None, config)
            return list(state["steps"])

    assert asyncio.run(resume()) == ["a", "b"]


def test_closing_commits_what_is_pending(tmp_path: Path) -> None:
    path = tmp_path / "checkpoints.sqlite"

    async def write_and_close() -> None:
        with InlineSqliteSaver.open(path) as saver:
            config = {"configurable": {"thread_id": "t"}}
            await _graph(saver).ainvoke({"steps": []}, config)
            await asyncio.sleep(0)
            latest = saver.get_tuple(config)
            assert latest is not None
            await saver.aput_writes(latest.config, [("steps", ["x"])], "task-1")
            assert saver._commits.scheduled and _committed(path, "writes") < _rows(saver.conn, "writes")

    asyncio.run(write_and_close())
    assert _committed(path, "writes") > 0  # closing the saver committed the pending write


def test_outside_a_loop_each_write_commits_at_once(tmp_path: Path) -> None:
    path = tmp_path / "checkpoints.sqlite"
    with InlineSqliteSaver.open(path) as saver:
        _graph(saver).invoke({"steps": []}, {"configurable": {"thread_id": "t"}})
        assert not saver._commits.scheduled and _committed(path) == _rows(saver.conn, "checkpoints") > 0


def test_threads_under_a_run_prefix_only(tmp_path: Path) -> None:
    with InlineSqliteSaver.open(tmp_path / "checkpoints.sqlite") as saver:
        for thread in ("r1/a", "r1/b", "r10/a", "r2/a"):
            _graph(saver).invoke({"steps": []}, {"configurable": {"thread_id": thread}})
        assert saver.threads_under("r1/") == {"r1/a", "r1/b"}
        assert saver.threads_under("r3/") == set()


def test_on_a_loop_the_wal_is_checkpointed_by_a_worker_thread_not_the_commit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The loop's commits leave the WAL to SQLite's automatic checkpoint only as a bound: a worker
    thread copies it into the database, and what the loop committed reads back whole."""
    monkeypatch.setattr(sqlite_store, "WAL_CHECKPOINT_S", 0.0)
    path = tmp_path / "checkpoints.sqlite"
    threads: set[str] = set()
    real = sqlite_store.GroupCommit._checkpoint_wal

    def spy(self: sqlite_store.GroupCommit) -> None:
        threads.add(threading.current_thread().name)
        real(self)

    monkeypatch.setattr(sqlite_store.GroupCommit, "_checkpoint_wal", spy)

    async def write() -> tuple[int, str]:
        with InlineSqliteSaver.open(path) as saver:
            saver.conn.execute("PRAGMA wal_autocheckpoint = 0")  # only the worker checkpoints here
            config = {"configurable": {"thread_id": "t", "checkpoint_ns": ""}}
            written = await saver.aput(config, empty_checkpoint(), {}, {})  # type: ignore[arg-type]
            for n in range(50):
                await saver.aput_writes(written, [("steps", ["x" * 4000])], f"task-{n}")
                await asyncio.sleep(0.01)  # a commit per turn; the worker's checkpoint between them
            while saver.commits._checkpointing:
                await asyncio.sleep(0.01)
            return saver.commits.wal_checkpoints, threading.current_thread().name

    done, loop_thread = asyncio.run(write())
    assert done > 0 and threads == {"wal-checkpoint"} and loop_thread not in threads
    with closing(sqlite3.connect(path)) as conn:
        assert _rows(conn, "writes") == 50
