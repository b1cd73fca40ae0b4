"""Where nationbias reads data and writes state.

All state (run store, cache, checkpoints, reports, derived data) lives under one folder,
``NATIONBIAS_HOME`` (default ``.nationbias/`` in the working directory), so a study is one
folder to archive or delete. The data is read-only: the packaged copy, or an override folder
(``NATIONBIAS_DATA``, ``NATIONBIAS_PAPER``); :mod:`stores.bundled` opens it. The variables are read
through :mod:`stores.settings`.
"""

from __future__ import annotations

from pathlib import Path

from stores.errors import InputError
from stores.settings import settings

__all__ = ["DataNotFoundError", "home"]


class DataNotFoundError(InputError, FileNotFoundError):
    """A data file is missing (from an override folder, or from a broken install)."""


def home() -> Path:
    """The state folder; created on first use."""
    path = Path(settings().home or ".nationbias").expanduser()
    path.mkdir(parents=True, exist_ok=True)
    return path
