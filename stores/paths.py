"""Where nationbias reads data and writes state.

All state (run store, cache, checkpoints, reports, derived data) lives under one folder,
``NATIONBIAS_HOME`` (default ``.nationbias/`` in the working directory), so a study is one
folder to archive or delete. The shared data is read-only and located by ``NATIONBIAS_DATA``.
"""

from __future__ import annotations

import os
from pathlib import Path

P5 = ("USA", "GBR", "FRA", "RUS", "CHN")
P5_NAMES = {
    "USA": "United States",
    "GBR": "United Kingdom",
    "FRA": "France",
    "RUS": "Russian Federation",
    "CHN": "China",
}
P5_BY_NAME = {name: code for code, name in P5_NAMES.items()}


class DataNotFoundError(FileNotFoundError):
    """The shared data folder or one of its files is missing."""


def home() -> Path:
    """The state folder; created on first use."""
    path = Path(os.environ.get("NATIONBIAS_HOME", ".nationbias")).expanduser()
    path.mkdir(parents=True, exist_ok=True)
    return path


def _default_data_root() -> Path:
    # ../shared/data relative to the repo (the layout of this workplace), then relative to cwd.
    repo = Path(__file__).resolve().parent.parent
    for candidate in (repo.parent / "shared" / "data", Path.cwd().parent / "shared" / "data"):
        if candidate.is_dir():
            return candidate
    return repo.parent / "shared" / "data"


def data_root(override: str | os.PathLike[str] | None = None) -> Path:
    """The shared data folder: ``override``, else ``NATIONBIAS_DATA``, else ``../shared/data``."""
    raw = override or os.environ.get("NATIONBIAS_DATA")
    root = Path(raw).expanduser() if raw else _default_data_root()
    if root.is_file():  # a path straight to corpus.jsonl: its data root is two levels up
        return root.parent.parent
    return root


def paper_root(override: str | os.PathLike[str] | None = None) -> Path:
    """The paper folder holding the keyword pool, UNSC functions and published tables."""
    raw = override or os.environ.get("NATIONBIAS_PAPER")
    if raw:
        return Path(raw).expanduser()
    return data_root().parent / "paper"


def corpus_path(override: str | os.PathLike[str] | None = None) -> Path:
    """The UNSC corpus file; ``override`` may name the file itself or its data root."""
    if override and Path(override).is_file():
        return Path(override)
    path = data_root(override) / "unsc" / "corpus.jsonl"
    if not path.is_file():
        raise DataNotFoundError(
            f"UNSC corpus not found at {path}: "
            "pass --data PATH or set NATIONBIAS_DATA to the shared data folder"
        )
    return path
