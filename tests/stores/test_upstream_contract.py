"""What the speed work leans on in libraries' private parts, checked against the installed versions.

``stores/state/checkpoints.py``'s ``InlineSqliteSaver`` overrides ``SqliteSaver`` internals (pyproject bounds
``langgraph-checkpoint-sqlite>=3.0,<3.2``), ``stores/state/sqlite.py`` uses ``asyncio._get_running_loop`` and
``graphs/study/chain_end.py`` wraps langchain_core's shielded ``on_chain_end``.
A release that renames, re-signs or reroutes any of these fails here, not in a study.
"""

from __future__ import annotations

import asyncio
import inspect
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.base import empty_checkpoint
from langgraph.checkpoint.sqlite import SqliteSaver

from nationbias.stores.state.checkpoints import InlineSqliteSaver
from nationbias.stores.state.sqlite import running_loop

# Each async method InlineSqliteSaver overrides, and the synchronous upstream method it calls instead.
SYNC_OF = {
    "aget_tuple": "get_tuple",
    "alist": "list",
    "aput": "put",
    "aput_writes": "put_writes",
    "adelete_thread": "delete_thread",
    "aget_delta_channel_history": "get_delta_channel_history",
}


def _shape(function: Any) -> list[tuple[str, Any, Any]]:
    """Parameter names, kinds and defaults: what a call depends on (annotations are only text)."""
    return [(p.name, p.kind, p.default) for p in inspect.signature(function).parameters.values()]


def test_every_override_matches_the_upstream_method_it_replaces() -> None:
    ours = {
        name
        for name, value in vars(InlineSqliteSaver).items()
        if callable(value) and not name.startswith("__") and hasattr(SqliteSaver, name)
    }
    assert ours >= {*SYNC_OF, "cursor"}  # what this test covers is what the class overrides
    assert not hasattr(SqliteSaver, "threads_under") and not hasattr(SqliteSaver, "commits")
    for name in sorted(ours):
        assert _shape(getattr(InlineSqliteSaver, name)) == _shape(getattr(SqliteSaver, name)), name


def test_every_synchronous_method_called_exists_with_the_async_ones_parameters() -> None:
    for name, sync in SYNC_OF.items():
        assert callable(getattr(SqliteSaver, sync, None)), f"SqliteSaver.{sync} is gone"
        assert _shape(getattr(SqliteSaver, sync)) == _shape(getattr(SqliteSaver, name)), sync
    assert _shape(SqliteSaver.__init__)[:2] == [
        ("self", inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.empty),
        ("conn", inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.empty),
    ]
    assert _shape(SqliteSaver.setup) == [
        ("self", inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.empty)
    ]


class _Spy(SqliteSaver):
    """Upstream's saver, recording each cursor it opens."""

    opened: list[bool]

    @contextmanager
    def cursor(self, transaction: bool = True) -> Iterator[sqlite3.Cursor]:
        self.opened.append(transaction)
        with super().cursor(transaction) as cur:
            yield cur


def test_upstream_reads_and_writes_go_through_cursor_on_conn_under_lock(tmp_path: Path) -> None:
    """The override works only while every statement upstream runs passes through ``self.cursor``,
    on ``self.conn`` under ``self.lock`` (GroupCommit shares that lock), with ``setup()`` idempotent."""
    conn = sqlite3.connect(str(tmp_path / "c.sqlite"), check_same_thread=False)
    saver = _Spy(conn)
    saver.opened = []
    assert saver.conn is conn and isinstance(saver.lock, type(threading.Lock()))
    saver.setup()
    saver.setup()
    assert saver.is_setup
    config: Any = {"configurable": {"thread_id": "t", "checkpoint_ns": ""}}
    written = saver.put(config, empty_checkpoint(), {}, {})
    saver.put_writes(written, [("channel", 1)], "task")
    assert saver.get_tuple(written) is not None and len(list(saver.list(config))) == 1
    saver.delete_thread("t")
    assert saver.opened[:2] == [True, True]  # the writes commit through cursor(transaction=True)
    assert len(saver.opened) >= 5  # every call above opened its cursor through the override point
    conn.close()


def test_get_running_loop_is_the_loop_inside_a_coroutine_and_none_outside() -> None:
    assert hasattr(asyncio, "_get_running_loop")
    assert asyncio._get_running_loop() is None and running_loop() is None

    async def inside() -> bool:
        loop = asyncio.get_running_loop()
        return asyncio._get_running_loop() is loop and running_loop() is loop

    assert asyncio.run(inside())


def test_the_inline_saver_round_trips_through_the_async_methods(tmp_path: Path) -> None:
    async def run() -> None:
        with InlineSqliteSaver.open(tmp_path / "k.sqlite") as saver:
            config: Any = {"configurable": {"thread_id": "t", "checkpoint_ns": ""}}
            written = await saver.aput(config, empty_checkpoint(), {}, {})
            await saver.aput_writes(written, [("channel", 1)], "task")
            assert await saver.aget_tuple(written) is not None
            assert [item async for item in saver.alist(config)]
            await saver.adelete_thread("t")
            assert await saver.aget_tuple(written) is None

    asyncio.run(run())


@pytest.mark.parametrize("name", sorted(SYNC_OF))
def test_upstream_async_methods_still_exist_to_be_overridden(name: str) -> None:
    assert inspect.iscoroutinefunction(getattr(SqliteSaver, name)) or inspect.isasyncgenfunction(
        getattr(SqliteSaver, name)
    )


def test_the_chain_end_callback_wrapped_during_studies_is_upstreams_shielded_one() -> None:
    """graphs/study/chain_end.py replaces ``on_chain_end`` only while a study runs and calls upstream's
    for any run with handlers: it must still be the ``@shielded`` wrapper (a task per call), with the
    parameters ours forwards, whose body does nothing without handlers."""
    import langchain_core.callbacks.manager as manager

    from nationbias.graphs.study import chain_end

    upstream = manager.AsyncCallbackManagerForChainRun.on_chain_end
    assert upstream is chain_end.SHIELDED_CHAIN_END
    assert inspect.getsource(upstream.__wrapped__).count("if not self.handlers:") == 1  # type: ignore[attr-defined]
    assert "create_task" in inspect.getsource(manager.shielded)
    assert _shape(upstream) == _shape(chain_end.on_chain_end)
