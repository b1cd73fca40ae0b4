"""One way to open SQLite for concurrent writers: WAL, a busy timeout, clear corruption errors."""

from __future__ import annotations

import sqlite3
from pathlib import Path


class StoreCorruptError(RuntimeError):
    """A store file exists but is not a usable SQLite database."""


def connect(path: Path, schema: str) -> sqlite3.Connection:
    """Open ``path`` (creating it with ``schema``) ready for several threads and processes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        conn = sqlite3.connect(path, timeout=60.0, check_same_thread=False, isolation_level=None)
        conn.execute("PRAGMA busy_timeout = 60000")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.executescript(schema)
    except sqlite3.DatabaseError as exc:
        raise StoreCorruptError(
            f"{path}: not a usable SQLite database ({exc}); move it aside or delete it to start afresh"
        ) from exc
    return conn
