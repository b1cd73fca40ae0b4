"""Where nationbias reads data and writes state.

All state (run store, cache, checkpoints, reports, derived data) lives under one folder,
``NATIONBIAS_HOME`` (default ``.nationbias/`` in the working directory), so a study is one
folder to archive or delete. The data is read-only: the packaged copy, or an override folder
(``NATIONBIAS_DATA``, ``NATIONBIAS_PAPER``); :mod:`nationbias.stores.bundled` opens it. The variables are read
through :mod:`nationbias.stores.settings`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

from nationbias.stores.errors import InputError
from nationbias.stores.settings import settings

__all__ = ["DataNotFoundError", "home", "using_home"]

_HOME: ContextVar[Path | None] = ContextVar("nationbias_home", default=None)


class DataNotFoundError(InputError, FileNotFoundError):
    """A data file is missing (from an override folder, or from a broken install)."""


def home() -> Path:
    """The state folder; created on first use."""
    path = _HOME.get() or Path(settings().home or ".nationbias").expanduser()
    path.mkdir(parents=True, exist_ok=True)
    return path


@contextmanager
def using_home(path: Path) -> Iterator[None]:
    """State under ``path`` within this block (and the tasks it starts): a dry run's scratch folder."""
    token = _HOME.set(path)
    try:
        yield
    finally:
        _HOME.reset(token)
