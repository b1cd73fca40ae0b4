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
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nationbias.stores.faults import guarded_write
from nationbias.stores.paths import home
from nationbias.stores.sqlite import connect

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
    entries: int
    size_bytes: int
    by_model: dict[str, int]


class ResponseCache:
    """Thread-safe get/put of raw model responses (JSON objects) by key."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or home() / "cache.sqlite"
        self._conn = connect(self.path, _SCHEMA)
        self._lock = threading.Lock()

    def get(self, key: str) -> dict[str, Any] | None:
        with self._lock:
            row = self._conn.execute("SELECT response FROM responses WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else None

    def put(self, key: str, *, provider: str, model: str, response: dict[str, Any]) -> None:
        """Store a successful response. Callers must not pass errors (see module docstring)."""
        if response.get("error"):
            raise ValueError("errors are never cached")
        blob = json.dumps(response, ensure_ascii=False)
        with self._lock, guarded_write(self.path):  # a full disk stops the run (stores/faults.py)
            self._conn.execute(
                "INSERT OR REPLACE INTO responses (key, provider, model, response, created) "
                "VALUES (?,?,?,?,?)",
                (key, provider, model, blob, time.time()),
            )

    def stats(self) -> CacheStats:
        with self._lock:
            total = self._conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0]
            rows = self._conn.execute(
                "SELECT provider || ':' || model, COUNT(*) FROM responses GROUP BY 1 ORDER BY 2 DESC"
            ).fetchall()
        size = sum(p.stat().st_size for p in self.path.parent.glob(self.path.name + "*") if p.is_file())
        return CacheStats(path=self.path, entries=total, size_bytes=size, by_model=dict(rows))

    def clear(self) -> int:
        with self._lock:
            removed = self._conn.execute("DELETE FROM responses").rowcount
            self._conn.execute("VACUUM")
        return int(removed)

    def close(self) -> None:
        self._conn.close()
