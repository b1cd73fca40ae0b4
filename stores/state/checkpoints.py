"""LangGraph checkpoints in SQLite, written inline on the event loop with group commit.

``AsyncSqliteSaver`` sends every statement through aiosqlite's worker thread: a queue put, a
thread switch and a loop wake-up per statement, ~10 statements per debias sample. At 64 samples
in flight that hand-off, not SQLite, was the largest cost of the debias study (benchmarks/). A
WAL database with ``synchronous=NORMAL`` writes in well under a millisecond, so LangGraph's own
synchronous ``SqliteSaver`` runs inline, and the writes of one event-loop turn share one commit.
A crash loses at most that turn's checkpoints: those nodes run again on resume (their model
calls come from the response cache). The schema is LangGraph's, so its tools can read the file.

This leans on ``SqliteSaver``'s internals: every statement goes through ``cursor()`` on ``conn``
under ``lock``, and the async methods may be replaced by the sync ones. pyproject bounds
``langgraph-checkpoint-sqlite>=3.0,<3.2``; ``tests/stores/test_upstream_contract.py`` checks each
method and signature we override or call, so raise the bound only when it passes.
"""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import ChannelVersions, Checkpoint, CheckpointMetadata, CheckpointTuple
from langgraph.checkpoint.sqlite import SqliteSaver

from nationbias.stores.state.faults import guarded_write
from nationbias.stores.state.sqlite import GroupCommit, readable

BUSY_TIMEOUT_MS = 60_000


class InlineSqliteSaver(SqliteSaver):
    """``SqliteSaver`` whose async methods run the synchronous ones directly (no thread)."""

    _commits: GroupCommit

    @classmethod
    @contextmanager
    def open(cls, path: str | Path) -> Iterator[InlineSqliteSaver]:
        """A saver on ``path``: WAL, no fsync per commit, and patient with other writers."""
        with guarded_write(path):
            conn = sqlite3.connect(str(path), check_same_thread=False)
        with closing(conn):
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            saver = cls(conn)
            saver._commits = GroupCommit(conn, saver.lock, path)
            with guarded_write(path), readable(path):  # a garbage or truncated file: one line, exit 2
                saver.setup()  # journal_mode=WAL and the tables
            conn.execute("PRAGMA synchronous = NORMAL")  # still safe if the process dies
            try:
                yield saver
            except BaseException:
                saver._commits._commit()  # keep what can be kept; the first fault is the one reported
                raise
            saver.commit()

    @contextmanager
    def cursor(self, transaction: bool = True) -> Iterator[sqlite3.Cursor]:
        """As ``SqliteSaver.cursor``, but on a running loop the commit waits for the next turn."""
        with self.lock, guarded_write(self._commits.path):
            if transaction:
                self._commits.check()  # after a failed commit, no checkpoint is written
            self.setup()
            cur = self.conn.cursor()
            try:
                yield cur
            finally:
                cur.close()
        if transaction:
            self._commits.written()

    def commit(self) -> None:
        self._commits.commit()

    @property
    def commits(self) -> GroupCommit:
        """Its group commit: the runner stops at the first failed one (stores/state/sqlite.py)."""
        return self._commits

    def threads_under(self, prefix: str) -> set[str]:
        """The thread ids starting with ``prefix`` that have a checkpoint (one query for a whole run)."""
        upper = prefix[:-1] + chr(ord(prefix[-1]) + 1)  # every string with the prefix sorts below this
        with readable(self._commits.path), self.cursor(transaction=False) as cur:
            cur.execute(
                "SELECT DISTINCT thread_id FROM checkpoints WHERE thread_id >= ? AND thread_id < ?",
                (prefix, upper),
            )
            return {row[0] for row in cur.fetchall()}

    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        return self.get_tuple(config)

    async def alist(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[CheckpointTuple]:
        for item in self.list(config, filter=filter, before=before, limit=limit):
            yield item

    async def aput(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        return self.put(config, checkpoint, metadata, new_versions)

    async def aput_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        self.put_writes(config, writes, task_id, task_path)

    async def adelete_thread(self, thread_id: str) -> None:
        self.delete_thread(thread_id)

    async def aget_delta_channel_history(
        self, *, config: RunnableConfig, channels: Sequence[str]
    ) -> Mapping[str, Any]:
        return self.get_delta_channel_history(config=config, channels=channels)
