"""Where nationbias reads data and writes state.

All state (run store, cache, checkpoints, reports, derived data) lives under one folder,
``NATIONBIAS_HOME`` (default ``.nationbias/`` in the working directory), so a study is one
folder to archive or delete. The data is read-only: the packaged copy, or an override folder
(``NATIONBIAS_DATA``, ``NATIONBIAS_PAPER``); :mod:`stores.bundled` opens it.
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
    """A data file is missing (from an override folder, or from a broken install)."""


def home() -> Path:
    """The state folder; created on first use."""
    path = Path(os.environ.get("NATIONBIAS_HOME", ".nationbias")).expanduser()
    path.mkdir(parents=True, exist_ok=True)
    return path
