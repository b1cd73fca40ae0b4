"""One process per run: a lease on the run id in the run store (host, process id, heartbeat).

Two processes running one run id (a job array started twice, a second terminal) would each pay
for every sample, and each print a summary that is wrong. The first to open the run holds its
lease and renews its heartbeat every ``HEARTBEAT_S`` seconds from a thread (so a busy event loop
does not let it lapse); a second process refuses at once, naming the run and the holder. A lease
is stale, and taken over with a line saying so, when its heartbeat is older than ``STALE_S``
seconds (the holder was killed, or its machine is gone) or its process no longer exists on this
host. The holder gives it back when the run ends, however it ends.

A lease is fenced: a holder that was paused (``kill -STOP``, Ctrl-Z, a suspended VM) for longer than
``STALE_S`` may have lost it to another process. Before each call and each write the runner asks
:meth:`RunLease.fence`, which trusts the lease without a query only while its last confirmed
heartbeat is younger than half the stale limit; otherwise it renews it in the store, and a lease
found in another's hands raises :class:`LeaseLostError` (exit 2): no call more, no row more, and an
answer still received is in the response cache for the new holder.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import socket
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from nationbias.stores.errors import InputError
from nationbias.stores.state.faults import RunFault, guarded_write
from nationbias.stores.state.sqlite import connect, readable

HEARTBEAT_S = 5.0
STALE_S = 60.0  # no heartbeat for this long: the holder is gone (12 missed heartbeats)

SCHEMA = """
CREATE TABLE IF NOT EXISTS leases (
    run_id TEXT PRIMARY KEY,
    host TEXT NOT NULL,
    pid INTEGER NOT NULL,
    token TEXT NOT NULL,
    started REAL NOT NULL,
    heartbeat REAL NOT NULL
);
"""


class RunBusyError(InputError):
    """Another live process runs this run id: this one refuses before asking anything (exit 2)."""


class LeaseLostError(RunFault):
    """Another process took this run's lease over (this one was paused past the stale limit): the
    run stops before its next call and writes no more rows; the calls in flight still finish, so
    their answers reach the response cache (exit 2)."""

    exit_code = 2
    graceful = True  # the calls in flight are paid for: let them finish, so their answers are cached


def lease_timing() -> tuple[float, float]:
    """``(heartbeat_s, stale_s)``: ``NATIONBIAS_LEASE_STALE_S`` shortens the stale limit (a test, a
    cluster whose processes are never paused); the heartbeat beats 12 times within it."""
    from nationbias.stores.config.settings import settings

    raw = settings().lease_stale_s
    if not raw:
        return HEARTBEAT_S, STALE_S
    try:
        stale = float(raw)
    except ValueError:
        stale = float("nan")
    if not stale > 0 or stale == float("inf"):
        raise InputError(f"NATIONBIAS_LEASE_STALE_S must be a positive number of seconds, got {raw!r}")
    return min(HEARTBEAT_S, stale / 12), stale


@dataclass(frozen=True)
class Holder:
    """Who holds a run's lease, as stored."""

    host: str
    pid: int
    token: str
    started: float
    heartbeat: float

    def describe(self, now: float) -> str:
        started = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(self.started))
        return (
            f"process {self.pid} on host {self.host} (started {started}, "
            f"last heartbeat {max(0.0, now - self.heartbeat):.0f} s ago)"
        )


def this_host() -> str:
    return socket.gethostname()


def pid_alive(pid: int) -> bool:
    """Whether ``pid`` is a process on this machine (where that cannot be told: assume it is)."""
    if pid == os.getpid():
        return True
    if os.name == "nt":  # os.kill(pid, 0) would end it there: the heartbeat decides
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        return True
    try:  # Linux: a killed process its parent has not reaped yet (a zombie) runs no more
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rpartition(")")[2].split()[:1] != ["Z"]


def stale_reason(holder: Holder, *, now: float, host: str, stale_s: float = STALE_S) -> str | None:
    """Why ``holder``'s lease may be taken over, or None while it is live."""
    age = now - holder.heartbeat
    if age > stale_s:
        return f"its heartbeat is {age:.0f} s old, more than the {stale_s:g} s limit"
    if holder.host == host and not pid_alive(holder.pid):
        return f"process {holder.pid} no longer exists on this host"
    return None


class RunLease:
    """The lease on one run id, held for a ``with`` block (a run); renewed from a daemon thread."""

    def __init__(
        self,
        path: Path,
        run_id: str,
        *,
        notify: Callable[[str], None],
        heartbeat_s: float = HEARTBEAT_S,
        stale_s: float = STALE_S,
    ) -> None:
        self.path, self.run_id, self.notify = path, run_id, notify
        self.heartbeat_s, self.stale_s = heartbeat_s, stale_s
        self.host, self.pid, self.token = this_host(), os.getpid(), secrets.token_hex(8)
        self._conn: sqlite3.Connection | None = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._confirmed = (0.0, 0.0)  # (monotonic, wall) time the store last showed the lease ours
        self.lost: LeaseLostError | None = None

    def acquire(self) -> None:
        """Take the lease, or raise :class:`RunBusyError` naming the live holder."""
        conn = self._conn = connect(self.path, SCHEMA)
        now = time.time()
        with self._lock, guarded_write(self.path), readable(self.path):
            conn.execute("BEGIN IMMEDIATE")  # no other process reads between our check and our write
            try:
                row = conn.execute(
                    "SELECT host, pid, token, started, heartbeat FROM leases WHERE run_id = ?", (self.run_id,)
                ).fetchone()
                if row is not None:
                    holder = Holder(*row)
                    reason = stale_reason(holder, now=now, host=self.host, stale_s=self.stale_s)
                    if reason is None:
                        raise RunBusyError(
                            f"run {self.run_id!r} is being run by {holder.describe(now)}: one process per "
                            "run, so nothing was asked. Wait for it to end (or stop it), then rerun this "
                            f"command; a lease whose heartbeat is older than {self.stale_s:g} s, or whose "
                            "process is gone from this host, is taken over"
                        )
                    self.notify(
                        f"run {self.run_id}: taking over the lease of {holder.describe(now)}: {reason}"
                    )
                conn.execute(
                    "INSERT OR REPLACE INTO leases (run_id, host, pid, token, started, heartbeat) "
                    "VALUES (?,?,?,?,?,?)",
                    (self.run_id, self.host, self.pid, self.token, now, now),
                )
                conn.execute("COMMIT")
                self._confirmed = (time.monotonic(), time.time())
            except BaseException:
                if conn.in_transaction:  # BEGIN itself may be what failed (a read-only store)
                    conn.execute("ROLLBACK")
                conn.close()
                self._conn = None
                raise
        self._thread = threading.Thread(target=self._beat, name=f"lease-{self.run_id}"[:60], daemon=True)
        self._thread.start()

    def _beat(self) -> None:
        while not self._stop.wait(self.heartbeat_s):
            # a full disk: the run's own writes report it; the next beat tries again
            with contextlib.suppress(sqlite3.Error):
                self._renew()

    def _renew(self) -> None:
        """Move the heartbeat on, if the lease is still ours; note it lost otherwise."""
        with self._lock:
            if self._conn is None or self.lost is not None:
                return
            before = (time.monotonic(), time.time())
            renewed = self._conn.execute(
                "UPDATE leases SET heartbeat = ? WHERE run_id = ? AND token = ?",
                (before[1], self.run_id, self.token),
            ).rowcount
            if renewed:
                self._confirmed = before
                return
            row = self._conn.execute(
                "SELECT host, pid, token, started, heartbeat FROM leases WHERE run_id = ?", (self.run_id,)
            ).fetchone()
            paused = max(before[0] - self._confirmed[0], before[1] - self._confirmed[1])
            holder = Holder(*row).describe(before[1]) if row is not None else "another process (since ended)"
            self.lost = LeaseLostError(
                f"run {self.run_id!r} was taken over by {holder}: this process (pid {self.pid}) went "
                f"{paused:.0f} s without renewing its lease (paused?), more than the {self.stale_s:g} s "
                "limit, so it stopped before its next call; the answers still in flight are in the "
                "response cache. Let the other process finish the run (or rerun this command once it "
                "has ended)"
            )

    def fence(self) -> None:
        """Raise :class:`LeaseLostError` if another process holds the lease now. Free while the last
        confirmed heartbeat is younger than half the stale limit (no one may take it over before the
        limit); past that (this process was paused), the store is asked. A lease not held (not yet
        taken, or given back) is not fenced."""
        if self.lost is None and self._conn is not None:
            confirmed_mono, confirmed_wall = self._confirmed
            age = max(time.monotonic() - confirmed_mono, time.time() - confirmed_wall)
            if age < self.stale_s / 2:
                return
            with guarded_write(self.path):
                self._renew()
        if self.lost is not None:
            raise self.lost

    def release(self) -> None:
        """Give the lease back (only ours: a process that took it over keeps it)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        with self._lock:
            conn, self._conn = self._conn, None
            if conn is None:
                return
            try:
                conn.execute("DELETE FROM leases WHERE run_id = ? AND token = ?", (self.run_id, self.token))
            except sqlite3.Error:
                pass  # left behind, it goes stale: this process is gone, so the next run takes it over
            finally:
                conn.close()

    def __enter__(self) -> RunLease:
        self.acquire()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()
