"""A response cache on SQLite.

The key hashes everything that determines an answer (provider, model, base URL, messages,
generation parameters and the repeat index) and nothing secret: callers never pass the API key,
and :func:`cache_key` refuses parameters whose names look like credentials. Only successful
responses are stored.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nationbias.stores.config.paths import home
from nationbias.stores.state.faults import guarded_write
from nationbias.stores.state.sqlite import connect, is_damage

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    response TEXT NOT NULL,
    created REAL NOT NULL
);
"""

_SECRET_NAME = re.compile(
    r"(^|_)(api_?key|key|secret|password|authorization|(auth|access|bearer)_?token)$", re.I
)


def cache_key(
    *,
    provider: str,
    model: str,
    base_url: str | None,
    messages: list[dict[str, Any]],
    params: dict[str, Any],
    repeat: int,
) -> str:
    """A stable SHA-256 over what determines the answer; never over credentials."""
    leaked = [name for name in params if _SECRET_NAME.search(name)]
    if leaked:
        raise ValueError(f"cache key parameters must not carry credentials: {leaked}")
    payload = {
        "provider": provider,
        "model": model,
        "base_url": base_url or "",
        "messages": messages,
        "params": params,
        "repeat": repeat,
    }
    blob = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class CacheStats:
    path: Path
    entries: int | None  # None: the file is damaged and its rows cannot be counted
    size_bytes: int
    by_model: dict[str, int]
    damaged: str | None = None  # SQLite's word for the damage, when there is some


class ResponseCache:
    """Thread-safe get/put of raw model responses (JSON objects) by key.

    A cache is only a saving: a row that cannot be read (a damaged page) is a miss, counted in
    :attr:`unreadable` and asked again, and an answer that cannot be stored over a damaged page is
    counted in :attr:`unstored` (the run store keeps it); the first of either is said once on stderr.
    """

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or home() / "cache.sqlite"
        self._conn = connect(self.path, _SCHEMA)
        self._lock = threading.Lock()
        self.unreadable = 0
        self.unstored = 0

    def _damage(self, exc: sqlite3.DatabaseError) -> None:
        if not self.unreadable + self.unstored:
            sys.stderr.write(
                f"warning: {self.path} is damaged ({exc}): rows it cannot read are asked again and "
                "counted; `nationbias cache clear` starts the cache afresh (the run store keeps every "
                "answer)\n"
            )

    def get(self, key: str) -> dict[str, Any] | None:
        try:
            with self._lock:
                row = self._conn.execute("SELECT response FROM responses WHERE key = ?", (key,)).fetchone()
        except sqlite3.DatabaseError as exc:
            if not is_damage(exc):
                raise
            self._damage(exc)
            self.unreadable += 1
            return None
        return json.loads(row[0]) if row else None

    def put(self, key: str, *, provider: str, model: str, response: dict[str, Any]) -> None:
        """Store a successful response. Callers must not pass errors (see module docstring).

        JSON keeps a lone surrogate (``\\ud83d``, which a server may send) as its escape: UTF-8, and
        so SQLite, cannot hold it as a character, and the answer must not be lost for it."""
        if response.get("error"):
            raise ValueError("errors are never cached")
        blob = json.dumps(response, ensure_ascii=False)
        try:
            self._insert(key, provider, model, blob)
        except UnicodeEncodeError:  # a lone surrogate: every non-ASCII character escaped, lossless
            self._insert(key, provider, model, json.dumps(response))

    def _insert(self, key: str, provider: str, model: str, blob: str) -> None:
        try:
            with self._lock, guarded_write(self.path):  # a full disk stops the run (stores/state/faults.py)
                self._conn.execute(
                    "INSERT OR REPLACE INTO responses (key, provider, model, response, created) "
                    "VALUES (?,?,?,?,?)",
                    (key, provider, model, blob, time.time()),
                )
        except sqlite3.DatabaseError as exc:
            if not is_damage(exc):
                raise
            self._damage(exc)
            self.unstored += 1

    def stats(self) -> CacheStats:
        size = sum(p.stat().st_size for p in self.path.parent.glob(self.path.name + "*") if p.is_file())
        try:
            with self._lock:
                total = self._conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0]
                rows = self._conn.execute(
                    "SELECT provider || ':' || model, COUNT(*) FROM responses GROUP BY 1 ORDER BY 2 DESC"
                ).fetchall()
        except sqlite3.DatabaseError as exc:
            if not is_damage(exc):
                raise
            return CacheStats(path=self.path, entries=None, size_bytes=size, by_model={}, damaged=str(exc))
        return CacheStats(path=self.path, entries=total, size_bytes=size, by_model=dict(rows))

    def clear(self) -> int | None:
        """Delete every cached response; the count removed, or None for a damaged file, which is
        replaced by an empty one (a cache holds nothing the run store has not kept)."""
        with self._lock:
            try:
                with guarded_write(self.path):
                    removed = self._conn.execute("DELETE FROM responses").rowcount
                    self._conn.execute("VACUUM")
                return int(removed)
            except sqlite3.DatabaseError as exc:
                if not is_damage(exc):
                    raise
            self._conn.close()
            for part in ("", "-wal", "-shm", "-journal"):
                Path(f"{self.path}{part}").unlink(missing_ok=True)
            self._conn = connect(self.path, _SCHEMA)
        return None

    def close(self) -> None:
        self._conn.close()
