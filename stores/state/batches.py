"""Batch mode's durable state, in the run store's SQLite file: rounds, their batches and requests.

Each round's requests are recorded (the intent) before anything is submitted, and a batch's id
the moment the server gives it, so a run resumed after a kill finds its batches again: it never
submits a call twice and never loses a result. Round states: ``recorded`` (requests stored, no
batch yet) -> ``submitted`` (batch id known) -> ``ingested`` (its answers are in the cache).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from nationbias.stores.config.paths import home
from nationbias.stores.state.faults import guarded_write
from nationbias.stores.state.sqlite import connect

_SCHEMA = """
CREATE TABLE IF NOT EXISTS batch_runs (
    run_id TEXT PRIMARY KEY,
    argv TEXT,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS batch_rounds (
    run_id TEXT NOT NULL,
    round INTEGER NOT NULL,
    grp TEXT NOT NULL,
    state TEXT NOT NULL,
    batch_id TEXT,
    server_state TEXT,
    input_file TEXT,
    output_file TEXT,
    error_file TEXT,
    done INTEGER NOT NULL DEFAULT 0,
    failed INTEGER NOT NULL DEFAULT 0,
    requests INTEGER NOT NULL DEFAULT 0,
    recorded REAL NOT NULL,
    submitted REAL,
    completed REAL,
    PRIMARY KEY (run_id, round, grp)
);
CREATE TABLE IF NOT EXISTS batch_requests (
    run_id TEXT NOT NULL,
    custom_id TEXT NOT NULL,
    round INTEGER NOT NULL,
    grp TEXT NOT NULL,
    status TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    reason TEXT,
    body TEXT NOT NULL,
    prompt_tokens INTEGER,
    completion_tokens INTEGER,
    PRIMARY KEY (run_id, custom_id)
);
"""


@dataclass(frozen=True)
class RoundRow:
    """One round's batch for one endpoint (a batch holds one model's requests)."""

    run_id: str
    round: int
    grp: str
    state: str
    batch_id: str | None
    server_state: str | None
    input_file: str | None
    output_file: str | None
    error_file: str | None
    done: int
    failed: int
    requests: int
    recorded: float
    submitted: float | None
    completed: float | None


_ROUND_COLUMNS = [f.name for f in fields(RoundRow)]


@dataclass(frozen=True)
class Outcome:
    """What one output line says about one request: an answer (tokens) or a failure (reason)."""

    custom_id: str
    ok: bool
    reason: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0


class BatchStore:
    """Rounds and requests of batch runs, in ``runs.sqlite`` beside the run store's tables."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or home() / "runs.sqlite"
        self._conn = connect(self.path, _SCHEMA)
        self._lock = threading.Lock()

    def _write(self, statements: Iterable[tuple[str, tuple[Any, ...]]]) -> None:
        """One transaction: a kill leaves all of it or none."""
        with self._lock, guarded_write(self.path):
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                for sql, args in statements:
                    self._conn.execute(sql, args)
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    # runs --------------------------------------------------------------------------------------
    def note_run(self, run_id: str, argv: list[str] | None) -> None:
        """Remember the command that resumes the run (``runs resume``); the first one stays."""
        self._write(
            [
                (
                    "INSERT OR IGNORE INTO batch_runs (run_id, argv, created) VALUES (?,?,?)",
                    (run_id, json.dumps(argv) if argv else None, time.time()),
                )
            ]
        )

    def argv(self, run_id: str) -> list[str] | bool | None:
        """The stored command (None: started from the library); False: no batch run of that id."""
        with self._lock:
            row = self._conn.execute("SELECT argv FROM batch_runs WHERE run_id = ?", (run_id,)).fetchone()
        if row is None:
            return False
        return json.loads(row[0]) if row[0] else None

    # rounds ------------------------------------------------------------------------------------
    def rounds(self, run_id: str, *, open_only: bool = False) -> list[RoundRow]:
        sql = f"SELECT {', '.join(_ROUND_COLUMNS)} FROM batch_rounds WHERE run_id = ?"
        if open_only:
            sql += " AND state != 'ingested'"
        with self._lock:
            rows = self._conn.execute(sql + " ORDER BY round, grp", (run_id,)).fetchall()
        return [RoundRow(*row) for row in rows]

    def record_round(self, run_id: str, number: int, pending: dict[str, tuple[str, dict[str, Any]]]) -> None:
        """The intent, before any submission: every request of the round with its body."""
        groups: dict[str, int] = {}
        statements: list[tuple[str, tuple[Any, ...]]] = []
        for custom_id, (grp, body) in pending.items():
            groups[grp] = groups.get(grp, 0) + 1
            statements.append(
                (
                    "INSERT INTO batch_requests (run_id, custom_id, round, grp, status, body) "
                    "VALUES (?,?,?,?,'pending',?) ON CONFLICT (run_id, custom_id) DO UPDATE SET "
                    "round = excluded.round, grp = excluded.grp, status = 'pending', body = excluded.body",
                    (run_id, custom_id, number, grp, json.dumps(body, ensure_ascii=False)),
                )
            )
        now = time.time()
        for grp, count in groups.items():
            statements.append(
                (
                    "INSERT INTO batch_rounds (run_id, round, grp, state, requests, recorded) "
                    "VALUES (?,?,?,'recorded',?,?)",
                    (run_id, number, grp, count, now),
                )
            )
        self._write(statements)

    def _set(self, row: RoundRow, assignments: str, *args: Any) -> None:
        where = " WHERE run_id = ? AND round = ? AND grp = ?"
        self._write(
            [(f"UPDATE batch_rounds SET {assignments}{where}", (*args, row.run_id, row.round, row.grp))]
        )

    def uploaded(self, row: RoundRow, *, input_file: str) -> None:
        """The round's input file is on the server (recorded before the batch is created)."""
        self._set(row, "input_file = ?", input_file)

    def submitted(self, row: RoundRow, *, batch_id: str) -> None:
        self._set(row, "state = 'submitted', batch_id = ?, submitted = ?", batch_id, time.time())

    def server_state(self, row: RoundRow, batch: dict[str, Any]) -> None:
        """What the server last said of the batch: its status and files (for ``runs status``)."""
        files = (batch.get("output_file_id"), batch.get("error_file_id"))
        self._set(row, "server_state = ?, output_file = ?, error_file = ?", batch.get("status"), *files)

    # requests ----------------------------------------------------------------------------------
    def requests(
        self, run_id: str, number: int | None = None, *, grp: str | None = None
    ) -> list[dict[str, Any]]:
        sql = (
            "SELECT custom_id, round, grp, status, attempts, reason, body, prompt_tokens, completion_tokens "
        )
        sql += "FROM batch_requests WHERE run_id = ?"
        args: list[Any] = [run_id]
        if number is not None:
            sql, args = sql + " AND round = ?", [*args, number]
        if grp is not None:
            sql, args = sql + " AND grp = ?", [*args, grp]
        with self._lock:
            rows = self._conn.execute(sql + " ORDER BY rowid", args).fetchall()
        keys = ("custom_id", "round", "grp", "status", "attempts", "reason", "body", "prompt_tokens")
        return [
            {**dict(zip(keys, row, strict=False)), "body": json.loads(row[6]), "completion_tokens": row[8]}
            for row in rows
        ]

    def failures(self, run_id: str) -> dict[str, tuple[int, str]]:
        """Requests whose last batch failed them: attempts so far and the last reason."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT custom_id, attempts, reason FROM batch_requests "
                "WHERE run_id = ? AND status = 'failed'",
                (run_id,),
            ).fetchall()
        return {cid: (attempts, reason or "") for cid, attempts, reason in rows}

    def forgive(self, run_id: str) -> None:
        """``--retry-errors``: requests that failed too often get their full number of tries again."""
        self._write(
            [("UPDATE batch_requests SET attempts = 0 WHERE run_id = ? AND status = 'failed'", (run_id,))]
        )

    def ingested(self, run_id: str, number: int, grp: str, outcomes: list[Outcome], *, final: bool) -> None:
        """Mark each answered or failed request (one transaction); ``final``: the round is over, and a
        request the server never answered counts as failed."""
        statements: list[tuple[str, tuple[Any, ...]]] = []
        for o in outcomes:
            if o.ok:
                statements.append(
                    (
                        "UPDATE batch_requests SET status = 'done', reason = NULL, prompt_tokens = ?, "
                        "completion_tokens = ? WHERE run_id = ? AND custom_id = ? AND status = 'pending'",
                        (o.prompt_tokens, o.completion_tokens, run_id, o.custom_id),
                    )
                )
            else:
                statements.append(
                    (
                        "UPDATE batch_requests SET status = 'failed', attempts = attempts + 1, reason = ? "
                        "WHERE run_id = ? AND custom_id = ? AND status = 'pending'",
                        (o.reason, run_id, o.custom_id),
                    )
                )
        if final:
            statements.append(
                (
                    "UPDATE batch_requests SET status = 'failed', attempts = attempts + 1, "
                    "reason = 'no answer in the batch output' "
                    "WHERE run_id = ? AND round = ? AND grp = ? AND status = 'pending'",
                    (run_id, number, grp),
                )
            )
        counts = (
            "UPDATE batch_rounds SET "
            "done = (SELECT COUNT(*) FROM batch_requests r WHERE r.run_id = batch_rounds.run_id "
            "AND r.round = batch_rounds.round AND r.grp = batch_rounds.grp AND r.status = 'done'), "
            "failed = (SELECT COUNT(*) FROM batch_requests r WHERE r.run_id = batch_rounds.run_id "
            "AND r.round = batch_rounds.round AND r.grp = batch_rounds.grp AND r.status = 'failed')"
        )
        statements.append((counts + " WHERE run_id = ? AND round = ? AND grp = ?", (run_id, number, grp)))
        if final:
            statements.append(
                (
                    "UPDATE batch_rounds SET state = 'ingested', completed = ? "
                    "WHERE run_id = ? AND round = ? AND grp = ?",
                    (time.time(), run_id, number, grp),
                )
            )
        self._write(statements)

    def close(self) -> None:
        self._conn.close()
