"""The durable run store: one row per sample, written the moment it completes.

A run is an id plus its config (model spec, prompt versions, seed, data hash, package version).
A sample is keyed by a stable id built from (test, item, persona, order, repeat), so re-running
a run id skips what is done and a crash loses at most the samples in flight.
"""

from __future__ import annotations

import json
import re
import sqlite3
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TextIO

import pandas as pd

from nationbias.stores.config.paths import home
from nationbias.stores.domain import config_language
from nationbias.stores.errors import InputError
from nationbias.stores.state.faults import guarded_write
from nationbias.stores.state.lease import SCHEMA as LEASE_SCHEMA
from nationbias.stores.state.lease import Holder, RunLease, lease_timing, stale_reason, this_host
from nationbias.stores.state.sqlite import GroupCommit, connect, readable

Status = Literal["ok", "invalid", "error"]

SCHEMA = (
    """
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY,
    config TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS samples (
    run_id TEXT NOT NULL,
    sample_id TEXT NOT NULL,
    test TEXT NOT NULL,
    item TEXT NOT NULL,
    persona TEXT NOT NULL,
    pair_order TEXT NOT NULL,
    repeat INTEGER NOT NULL,
    status TEXT NOT NULL,
    messages TEXT NOT NULL,
    raw TEXT,
    parsed TEXT,
    parse_error TEXT,
    error TEXT,
    latency_s REAL,
    prompt_tokens INTEGER,
    completion_tokens INTEGER,
    model_calls INTEGER NOT NULL DEFAULT 0,
    extra TEXT,
    created REAL NOT NULL,
    PRIMARY KEY (run_id, sample_id)
);
"""
    + LEASE_SCHEMA
)  # one process per run (stores/state/lease.py)

_RUN_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


# What decides a run's answers: resuming with any of them changed would mix two experiments in one run.
# The sample size (--limit, --repeats) may grow, and a server may move (base URLs): not compared.
# A key a run made before it existed (prompt_set, budget, language) is not compared: the prompt versions
# still are (a template in another language has another ref). wording_sha256: a task test's own texts
# (evals/bias_tests/tasks.py), which no prompt set's template holds.
RESUME_KEYS = (
    "test", "model", "params", "prompt_set", "language", "text_language", "prompt_versions", "budget", "seed",
    "data_sha256", "wording_sha256",
)  # fmt: skip
# A key added after runs were made, with the value a run stored without it had: compared (--targets).
KEYS_BEFORE = {"targets": "failed"}
NOT_COMPARED_OPTIONS = frozenset({"families", "keywords", "judge_base_url"})
# An option added after runs were made: a run stored without it had this value (DirectQA's --framing).
# --texts: a run made before it showed the corpus's (press) texts.
OPTIONS_BEFORE = {"framing": "irresponsible", "texts": "press"}


# What a run's sample is (graphs/study/sampling.py, SampleOptions: body, personas, years, and any field
# added to it) is compared field by field, so a resume asks the same question; only its size may grow:
# a larger --limit (None: every item) or more --repeats, which asks the same question of more items.
SAMPLE_SIZE = ("limit", "repeats")
# What describes the run's targets: recorded again when the sample grows (the new targets leak-audited).
TARGET_KEYS = ("sample", "leak_audit", "skipped", "precedent_coverage", "precedent_age")


def _smaller(old: Any, new: Any) -> bool:
    """A sample size that shrank (None: no limit, the largest)."""
    if old is None or new is None:
        return old is None and new is not None
    return bool(new < old)


def sample_conflict(stored: dict[str, Any], new: dict[str, Any]) -> str | None:
    """The first field of the sample that differs (a size that shrank counts; one that grew does not)."""
    old_sample, new_sample = stored.get("sample"), new.get("sample")
    if not isinstance(old_sample, dict) or not isinstance(new_sample, dict):
        return None
    for key in sorted(set(old_sample) & set(new_sample)):  # a field a run made before it existed: not
        old, value = old_sample[key], new_sample[key]
        changed = _smaller(old, value) if key in SAMPLE_SIZE else old != value
        if changed:
            grows = " (the sample may only grow)" if key in SAMPLE_SIZE else ""
            return f"{key}={old!r}, not {value!r}{grows}"
    return None


def resume_conflict(stored: dict[str, Any], config: dict[str, Any]) -> str | None:
    """The first setting that differs between a stored run config and a new one, as ``key=old, not new``."""
    new = json.loads(json.dumps(config, sort_keys=True, default=str))  # tuples → lists, as stored
    for key in RESUME_KEYS:
        if key in new and key in stored and new[key] != stored[key]:
            return f"{key}={stored[key]!r}, not {new[key]!r}"
    if difference := sample_conflict(stored, new):
        return difference
    for key, before in KEYS_BEFORE.items():
        if key in new and stored.get(key, before) != new[key]:
            return f"{key}={stored.get(key, before)!r}, not {new[key]!r}"
    old_options, new_options = stored.get("options") or {}, new.get("options") or {}
    for key in sorted((set(old_options) | set(new_options)) - NOT_COMPARED_OPTIONS):
        old, new_value = (o.get(key, OPTIONS_BEFORE.get(key)) for o in (old_options, new_options))
        if old != new_value:
            return f"{key}={old!r}, not {new_value!r}"
    return None


def _escape_surrogates(value: Any) -> Any:
    """A text UTF-8 cannot hold (a lone surrogate) with each such character as its ``\\udXXX``
    escape: read back from a JSON column it is the same character again, in a text column it is
    visible as what the server sent."""
    return value.encode("utf-8", "backslashreplace").decode("utf-8") if isinstance(value, str) else value


PLANNED = "samples_planned"  # the run config's count of the samples its last start asked for


@dataclass(frozen=True)
class RunProgress:
    """A run as a report must describe it: ``done`` rows of ``planned`` (None: not recorded), and
    ``running`` while a live process holds its lease (stores/state/lease.py)."""

    done: int
    planned: int | None
    running: bool

    def note(self) -> str | None:
        """``in progress: 28 of 60`` while it runs, ``incomplete: 28 of 60`` when it stopped short;
        None when every planned sample is in."""
        of = f" of {self.planned}" if self.planned is not None else " so far"
        if self.running:
            return f"in progress: {self.done}{of}"
        if self.planned is not None and self.done < self.planned:
            return f"incomplete: {self.done}{of} (stopped; the same command with its --run-id resumes it)"
        return None


class RunNotFoundError(InputError, KeyError):
    def __str__(self) -> str:
        return str(self.args[0])


def _language(config: dict[str, Any]) -> str:
    """A run's prompt language as `runs list` shows it: ``zh*`` while the run config's note
    says its translation is not yet reviewed by a native speaker (graphs/study/run_config.py)."""
    language = config_language(config)
    return f"{language}*" if "not yet reviewed" in str(config.get("language_note")) else language


def check_run_id(run_id: str) -> str:
    """Run ids become file and thread names: keep them to a safe alphabet."""
    if not _RUN_ID.match(run_id):
        raise InputError(f"invalid run id {run_id!r}: use letters, digits, '.', '_' or '-' (max 128)")
    return run_id


def sample_id(*, test: str, item: str, persona: str, order: str = "", repeat: int = 0) -> str:
    """The stable identity of one sample."""
    return "|".join((test, item, persona, order, f"r{repeat}"))


@dataclass
class SampleRow:
    """One completed sample. ``parsed`` is None exactly when the answer was invalid or errored."""

    test: str
    item: str
    persona: str
    repeat: int
    status: Status
    messages: list[dict[str, Any]]
    raw: str | None = None
    parsed: Any = None
    parse_error: str | None = None
    error: str | None = None
    pair_order: str = ""
    latency_s: float | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    model_calls: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def sample_id(self) -> str:
        return sample_id(
            test=self.test, item=self.item, persona=self.persona, order=self.pair_order, repeat=self.repeat
        )


class RunStore:
    """SQLite-backed store, safe for several threads and processes."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or home() / "runs.sqlite"
        self._lock = threading.Lock()
        # An existing file is opened (and checked) now; a missing one is created only on the first
        # write, so a command that fails or only reads leaves no runs.sqlite behind.
        self._db: sqlite3.Connection | None = connect(self.path, SCHEMA) if self.path.exists() else None
        self._commits: GroupCommit | None = None
        self._leases: dict[str, RunLease] = {}  # the leases taken through this store, for fence()

    @property
    def _conn(self) -> sqlite3.Connection:
        if self._db is None:
            self._db = connect(self.path, SCHEMA)
        return self._db

    @property
    def _group(self) -> GroupCommit:
        if self._commits is None or self._commits.conn is not self._conn:
            self._commits = GroupCommit(self._conn, self._lock, self.path)
        return self._commits

    @property
    def commits(self) -> GroupCommit:
        return self._group  # the runner stops at its first failed commit (stores/state/sqlite.py)

    def flush(self) -> None:
        """Commit sample rows still waiting for their event-loop turn (the runner calls it at the end)."""
        if self._db is not None:
            self._group.commit()

    def _empty(self) -> bool:
        """True while there is no store file yet: reads answer "nothing" without creating it."""
        return self._db is None and not self.path.exists()

    # runs -----------------------------------------------------------------------------------
    def create_run(self, run_id: str, config: dict[str, Any]) -> dict[str, Any]:
        """Register a run, or return the stored config when resuming the same run id."""
        check_run_id(run_id)
        with self._lock, guarded_write(self.path), readable(self.path):
            row = self._conn.execute("SELECT config FROM runs WHERE run_id = ?", (run_id,)).fetchone()
            if row:
                stored: dict[str, Any] = json.loads(row[0])
                if difference := resume_conflict(stored, config):
                    raise InputError(f"run {run_id!r} was started with {difference}: use a new --run-id")
                return self._grown(run_id, stored, config)
            self._conn.execute(
                "INSERT INTO runs (run_id, config, created) VALUES (?,?,?)",
                (run_id, json.dumps(config, sort_keys=True, default=str), time.time()),
            )
        return config

    def _grown(self, run_id: str, stored: dict[str, Any], config: dict[str, Any]) -> dict[str, Any]:
        """The stored config, with the new targets' description when the sample grew (a larger --limit):
        the report and the leak audit then speak of every target the run asks."""
        new = json.loads(json.dumps(config, sort_keys=True, default=str))
        if new.get("sample") == stored.get("sample"):
            return stored
        grown = {**stored, **{key: new[key] for key in TARGET_KEYS if key in new}}
        self._conn.execute(
            "UPDATE runs SET config = ? WHERE run_id = ?",
            (json.dumps(grown, sort_keys=True, default=str), run_id),
        )
        return grown

    def update_config(self, run_id: str, **changes: Any) -> None:
        config = self.get_run(run_id)
        config.update(changes)
        with self._lock, guarded_write(self.path), readable(self.path):
            self._conn.execute(
                "UPDATE runs SET config = ? WHERE run_id = ?", (json.dumps(config, default=str), run_id)
            )

    def get_run(self, run_id: str) -> dict[str, Any]:
        check_run_id(run_id)
        if self._empty():
            raise RunNotFoundError(f"no run {run_id!r} in {self.path} (see `nationbias runs list`)")
        with self._lock, readable(self.path):
            row = self._conn.execute("SELECT config FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        if not row:
            raise RunNotFoundError(f"no run {run_id!r} in {self.path} (see `nationbias runs list`)")
        config: dict[str, Any] = json.loads(row[0])
        return config

    def runs_frame(self) -> pd.DataFrame:
        columns = ["run_id", "test", "model", "language", "created", "ok", "invalid", "error"]
        if self._empty():
            return pd.DataFrame(columns=columns)
        with self._lock, readable(self.path):
            rows = self._conn.execute(
                "SELECT r.run_id, r.config, r.created, "
                "SUM(s.status='ok'), SUM(s.status='invalid'), SUM(s.status='error') "
                "FROM runs r LEFT JOIN samples s ON s.run_id = r.run_id GROUP BY r.run_id ORDER BY r.created"
            ).fetchall()
        records = []
        for run_id, config, created, ok, invalid, error in rows:
            cfg = json.loads(config)
            records.append(
                {
                    "run_id": run_id,
                    "test": cfg.get("test"),
                    "model": cfg.get("model"),
                    # the prompts' language, marked while its translation is unreviewed (run_config)
                    "language": _language(cfg),
                    "created": pd.Timestamp(created, unit="s").floor("s"),
                    "ok": int(ok or 0),
                    "invalid": int(invalid or 0),
                    "error": int(error or 0),
                }
            )
        return pd.DataFrame(records, columns=columns)

    def lease(self, run_id: str, *, notify: Callable[[str], None]) -> RunLease:
        """The run's lease, for a ``with`` block: a second live process refuses (stores/state/lease.py);
        ``notify`` hears of a stale lease taken over."""
        heartbeat_s, stale_s = lease_timing()
        lease = RunLease(
            self.path, check_run_id(run_id), notify=notify, heartbeat_s=heartbeat_s, stale_s=stale_s
        )
        self._leases[run_id] = lease
        return lease

    def fence(self, run_id: str) -> None:
        """Raise ``LeaseLostError`` when another process took over the lease this store holds on
        ``run_id`` (stores/state/lease.py); a run this store holds no lease on is not fenced."""
        lease = self._leases.get(run_id)
        if lease is not None:
            lease.fence()

    def progress(self, run_id: str) -> RunProgress:
        """How far ``run_id`` is: its rows, the samples it plans, and whether a live process runs it."""
        config = self.get_run(run_id)
        with self._lock:
            done = self._conn.execute("SELECT COUNT(*) FROM samples WHERE run_id = ?", (run_id,)).fetchone()[
                0
            ]
            row = self._conn.execute(
                "SELECT host, pid, token, started, heartbeat FROM leases WHERE run_id = ?", (run_id,)
            ).fetchone()
        live = row is not None and stale_reason(Holder(*row), now=time.time(), host=this_host()) is None
        planned = config.get(PLANNED)
        return RunProgress(int(done), planned if isinstance(planned, int) else None, live)

    # samples --------------------------------------------------------------------------------
    def done_ids(self, run_id: str, *, include_errors: bool = True) -> set[str]:
        """Sample ids already recorded; with ``include_errors=False`` failed ones count as not done."""
        query = "SELECT sample_id FROM samples WHERE run_id = ?"
        if not include_errors:
            query += " AND status != 'error'"
        if self._empty():
            return set()
        with self._lock, readable(self.path):
            return {row[0] for row in self._conn.execute(query, (run_id,))}

    def write(self, run_id: str, row: SampleRow) -> None:
        """Write one sample now (upsert: a retried sample replaces its failed row)."""
        values = (
            run_id,
            row.sample_id,
            row.test,
            row.item,
            row.persona,
            row.pair_order,
            row.repeat,
            row.status,
            json.dumps(row.messages, ensure_ascii=False),
            row.raw,
            None if row.parsed is None else json.dumps(row.parsed, ensure_ascii=False),
            row.parse_error,
            row.error,
            row.latency_s,
            row.prompt_tokens,
            row.completion_tokens,
            row.model_calls,
            json.dumps(row.extra, ensure_ascii=False, default=str),
            time.time(),
        )
        with self._lock, guarded_write(self.path), readable(self.path):
            group = self._group
            group.begin()  # rows finished in one loop turn share one commit
            insert = "INSERT OR REPLACE INTO samples VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
            try:
                group.conn.execute(insert, values)
            except UnicodeEncodeError:  # a lone surrogate (a server's "\ud83d"): kept as its escape
                group.conn.execute(insert, tuple(map(_escape_surrogates, values)))
        group.written()

    def samples_frame(self, run_id: str) -> pd.DataFrame:
        """One row per sample, JSON columns decoded."""
        self.get_run(run_id)
        with readable(self.path):
            frame = pd.read_sql_query(
                "SELECT * FROM samples WHERE run_id = ? ORDER BY sample_id", self._conn, params=(run_id,)
            )
        for column in ("messages", "parsed", "extra"):
            # pandas 3 reads a NULL next to strings as NaN: both mean "no value"
            frame[column] = frame[column].map(lambda v: json.loads(v) if isinstance(v, str) else None)
        return frame

    def export(self, run_id: str, fmt: Literal["csv", "jsonl"], out: TextIO | None = None) -> None:
        """Write one row per sample to ``out`` (stdout by default)."""
        out = out or sys.stdout
        frame = self.samples_frame(run_id)
        if fmt == "csv":
            flat = frame.copy()
            for column in ("messages", "parsed", "extra"):
                flat[column] = flat[column].map(lambda v: json.dumps(v, ensure_ascii=False))
            flat.to_csv(out, index=False)
        elif fmt == "jsonl":
            for record in frame.to_dict(orient="records"):
                out.write(json.dumps(record, ensure_ascii=False, default=str) + "\n")
        else:
            raise InputError(f"unknown export format {fmt!r}: use csv or jsonl")

    def close(self) -> None:
        if self._db is not None:
            self.flush()
            self._db.close()
