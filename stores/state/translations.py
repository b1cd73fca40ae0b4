"""The translations of a record's text (``--translate-with``), kept once under ``NATIONBIAS_HOME``.

One row per (English text's hash, language, translator spec, translation template hash): the English
original beside the translator's raw answer and the text a prompt shows (the raw answer with its outcome
sentences removed, stores/guard/leak_languages.py), with the template's ref. A resumed or repeated run reads
them here instead of asking again. Only a usable translation is stored: an error or an empty answer never.
"""

from __future__ import annotations

import hashlib
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from nationbias.stores.config.paths import home
from nationbias.stores.state.faults import guarded_write
from nationbias.stores.state.sqlite import connect

_SCHEMA = """
CREATE TABLE IF NOT EXISTS translations (
    source_sha256 TEXT NOT NULL,
    language TEXT NOT NULL,
    translator TEXT NOT NULL,
    template_sha256 TEXT NOT NULL,
    template_ref TEXT NOT NULL,
    original TEXT NOT NULL,
    raw TEXT NOT NULL,
    translation TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (source_sha256, language, translator, template_sha256)
);
"""


def text_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Translation:
    """One English text in another language: ``raw`` as the translator answered, ``translation`` as a
    prompt shows it (outcome sentences removed)."""

    original: str
    language: str
    translator: str
    template_ref: str
    template_sha256: str
    raw: str
    translation: str


class TranslationStore:
    """``translations.sqlite`` under the state folder (or ``path``)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or home() / "translations.sqlite"
        self.conn = connect(self.path, _SCHEMA)
        self.lock = threading.Lock()

    def get(
        self, original: str, *, language: str, translator: str, template_sha256: str
    ) -> Translation | None:
        with self.lock:
            row = self.conn.execute(
                "SELECT template_ref, raw, translation FROM translations WHERE source_sha256 = ? AND "
                "language = ? AND translator = ? AND template_sha256 = ?",
                (text_sha256(original), language, translator, template_sha256),
            ).fetchone()
        if row is None:
            return None
        return Translation(original, language, translator, row[0], template_sha256, row[1], row[2])

    def put(self, found: Translation) -> None:
        """Keep a usable translation; an empty one is a caller's bug, refused."""
        if not found.raw.strip():
            raise ValueError(f"an empty translation into {found.language} is never stored")
        with self.lock, guarded_write(self.path):
            self.conn.execute(
                "INSERT OR REPLACE INTO translations VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    text_sha256(found.original),
                    found.language,
                    found.translator,
                    found.template_sha256,
                    found.template_ref,
                    found.original,
                    found.raw,
                    found.translation,
                    time.time(),
                ),
            )

    def count(self) -> int:
        with self.lock:
            return int(self.conn.execute("SELECT COUNT(*) FROM translations").fetchone()[0])

    def close(self) -> None:
        self.conn.close()
