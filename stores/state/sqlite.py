"""One way to open SQLite for concurrent writers: WAL, a busy timeout, clear corruption errors,
and group commit for writes made on an event loop.

:func:`running_loop` uses the private ``asyncio._get_running_loop`` (None outside a loop, no
exception: it is called on every write); ``tests/stores/test_upstream_contract.py`` checks it on
each Python the project runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from nationbias.stores.config.paths import writable
from nationbias.stores.state.faults import (
    StoreReadOnlyError,
    StoreWriteError,
    describe_write_fault,
    guarded_write,
    is_write_fault,
)


class StoreCorruptError(RuntimeError):
    """A store file exists but is not a usable SQLite database, or a page inside it is damaged."""


# SQLite's codes for a damaged file: a page that does not parse, a header that is not SQLite's.
_DAMAGE_CODES = {sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB}


def is_damage(exc: BaseException) -> bool:
    """True for a file SQLite cannot read (damaged, truncated, not a database): not a bug, not a lock."""
    if not isinstance(exc, sqlite3.DatabaseError):
        return False
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int):
        return code & 0xFF in _DAMAGE_CODES
    return "malformed" in str(exc) or "not a database" in str(exc)


def damaged(path: Path | str, exc: BaseException) -> StoreCorruptError:
    """The one-line error for a damaged store: the file and the cause, and advice that keeps it."""
    return StoreCorruptError(
        f"{path}: damaged, not a usable SQLite database ({exc}); it was left as it is. "
        f"`sqlite3 {path} .recover` salvages what can be read into a new database; move the damaged "
        "file aside (do not delete it) to start afresh"
    )


@contextlib.contextmanager
def readable(path: Path | str) -> Iterator[None]:
    """Turn SQLite's "database disk image is malformed" inside a store into :class:`StoreCorruptError`
    naming the file; any other error passes unchanged."""
    try:
        yield
    except sqlite3.DatabaseError as exc:
        if is_damage(exc):
            raise damaged(path, exc) from exc
        raise


def connect(path: Path, schema: str) -> sqlite3.Connection:
    """Open ``path`` (creating it with ``schema``) ready for several threads and processes.

    On a read-only file system (or a folder this user may not write) an existing store is opened
    read-only, so the commands that only read work; a write then raises ``StoreReadOnlyError``
    (stores/state/faults.py) naming the file. A store that cannot be created there raises it at once.
    """
    if path.exists() and not writable(path):
        return _connect_read_only(path)
    try:
        with guarded_write(path):  # a full disk is not a corrupt file: say which it is
            path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(path, timeout=60.0, check_same_thread=False, isolation_level=None)
            conn.execute("PRAGMA busy_timeout = 60000")
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.executescript(schema)
    except sqlite3.DatabaseError as exc:
        if not writable(path):
            raise StoreReadOnlyError(path, str(exc)) from exc
        raise damaged(path, exc) from exc
    return conn


def _connect_read_only(path: Path) -> sqlite3.Connection:
    """A read-only connection to an existing store. A WAL database needs its ``-shm`` file, which a
    read-only folder cannot hold: then it is opened as immutable (nothing can change it there)."""
    uri = path.resolve().as_uri()
    last: sqlite3.Error | None = None
    for flags in ("?mode=ro", "?mode=ro&immutable=1"):
        try:
            conn = sqlite3.connect(uri + flags, uri=True, timeout=60.0, check_same_thread=False)
            conn.isolation_level = None
            conn.execute("PRAGMA busy_timeout = 60000")
            conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()  # reads the header now
            return conn
        except sqlite3.DatabaseError as exc:
            if is_damage(exc):
                raise damaged(path, exc) from exc
            last = exc
    raise StoreReadOnlyError(path, f"cannot be opened even to read: {last}")


# How often, at most, a group commit on an event loop has a worker thread copy the WAL into the
# database (a PASSIVE checkpoint on its own connection). SQLite's own automatic checkpoint runs in
# the committing thread once the WAL passes 1000 pages: on the event loop that is a 4 MB copy and
# two fsyncs, ~25 ms on this VM during which no sample moves, ~16 times per debias study at
# concurrency 64 (benchmarks/throughput.py, finding 19). Checkpointed in the background, the WAL
# restarts before it gets there; the automatic checkpoint stays as the bound.
WAL_CHECKPOINT_S = 0.5


class GroupCommit:
    """Commit a connection's writes once per event-loop turn, or at once outside a loop.

    With dozens of samples finishing in the same turn, one commit (one WAL append) serves them all;
    a crash loses at most that turn's writes, which the resume logic redoes. Call :meth:`begin`
    under the connection's lock before writing, :meth:`written` after, and :meth:`commit` before
    anyone else must see the data (end of a run, close). On a loop, the WAL is checkpointed by a
    worker thread (``WAL_CHECKPOINT_S``), not by the commit on the loop.

    A commit that fails (a full disk) rolls back that turn's writes and is kept in :attr:`failed`:
    the loop's callback never raises (no traceback per failed commit), and every later write or
    commit raises it, so the runner stops at the first failure.
    """

    def __init__(self, conn: sqlite3.Connection, lock: threading.Lock, path: Path | str) -> None:
        self.conn = conn
        self.lock = lock
        self.path = path
        self.scheduled = False
        self.failed: StoreWriteError | None = None
        self.on_failure: Callable[[StoreWriteError], None] | None = None  # the runner stops at once
        self.wal_checkpoints = 0  # checkpoints the worker thread completed
        self._checkpoint_due = time.monotonic() + WAL_CHECKPOINT_S
        self._checkpointing = False

    def check(self) -> None:
        """Raise the failure of an earlier commit: nothing more is written after the first one."""
        if self.failed is not None:
            raise self.failed

    def begin(self) -> None:
        """Open a transaction for an autocommit connection when the commit is going to wait."""
        self.check()
        if self.conn.isolation_level is None and not self.conn.in_transaction and running_loop():
            self.conn.execute("BEGIN")

    def written(self) -> None:
        loop = running_loop()
        if loop is None:
            self.commit()
        elif not self.scheduled:
            self.scheduled = True
            loop.call_soon(self._loop_commit)

    def commit(self) -> None:
        self._commit()
        self.check()

    def _loop_commit(self) -> None:
        self._commit()
        if self.failed is None and not self._checkpointing and time.monotonic() >= self._checkpoint_due:
            self._checkpointing = True
            threading.Thread(target=self._checkpoint_wal, name="wal-checkpoint", daemon=True).start()

    def _checkpoint_wal(self) -> None:
        """A PASSIVE checkpoint on a connection of its own: it copies what no reader still needs and
        never blocks a writer (SQLite releases the GIL while it copies and syncs)."""
        try:
            if str(self.path) not in ("", ":memory:"):
                uri = Path(self.path).resolve().as_uri() + "?mode=rw"  # never creates a file
                with (
                    contextlib.suppress(sqlite3.Error),
                    contextlib.closing(sqlite3.connect(uri, uri=True, check_same_thread=False)) as conn,
                ):
                    conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
                    self.wal_checkpoints += 1
        finally:
            self._checkpoint_due = time.monotonic() + WAL_CHECKPOINT_S
            self._checkpointing = False

    def _commit(self) -> None:
        with self.lock:
            self.scheduled = False
            if not self.conn.in_transaction:
                return
            try:
                self.conn.commit()
            except sqlite3.Error as exc:
                cause = describe_write_fault(exc) if is_write_fault(exc) else f"{type(exc).__name__}: {exc}"
                self.failed = self.failed or StoreWriteError(self.path, cause)
                with contextlib.suppress(sqlite3.Error):  # SQLite may have rolled back already
                    self.conn.rollback()
        if self.failed is not None and self.on_failure is not None:
            self.on_failure(self.failed)


def running_loop() -> asyncio.AbstractEventLoop | None:
    """The running event loop, or None outside one (asyncio's own accessor: no exception raised)."""
    return asyncio._get_running_loop()
