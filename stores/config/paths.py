"""Where nationbias reads data and writes state.

All state (run store, cache, checkpoints, reports, derived data) lives under one folder,
``NATIONBIAS_HOME`` (default ``.nationbias/`` in the working directory), so a study is one
folder to archive or delete. The data is read-only: the packaged copy, or an override folder
(``NATIONBIAS_DATA``, ``NATIONBIAS_PAPER``); :mod:`nationbias.stores.corpora.bundled` opens it. The variables
are read through :mod:`nationbias.stores.config.settings`.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

from nationbias.stores.config.settings import settings
from nationbias.stores.errors import InputError

__all__ = ["DataNotFoundError", "home", "libraries_inside_home", "using_home", "writable"]

_HOME: ContextVar[Path | None] = ContextVar("nationbias_home", default=None)


class DataNotFoundError(InputError, FileNotFoundError):
    """A data file is missing (from an override folder, or from a broken install)."""


def home() -> Path:
    """The state folder; created on first use. One that cannot be a folder (``NATIONBIAS_HOME`` names a
    file, or a place this user may not create) is an :class:`InputError` naming it."""
    path = _HOME.get() or Path(settings().home or ".nationbias").expanduser()
    try:
        path.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise InputError(f"NATIONBIAS_HOME={path}: not a folder (a file of that name exists)") from None
    except OSError as exc:
        raise InputError(
            f"NATIONBIAS_HOME={path}: cannot create the state folder ({exc.strerror or exc})"
        ) from None
    return path


def writable(path: Path) -> bool:
    """Whether this process may write ``path`` (or create it in its folder): false on a read-only
    mount even for root (``access`` answers EROFS)."""
    if path.exists():
        return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)
    parent = path.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    return os.access(parent, os.W_OK)


# The libraries that keep files of their own under $HOME unless told otherwise: matplotlib's config
# and font cache (MPLCONFIGDIR), onnxruntime's device id and database ($XDG_CACHE_HOME, else ~/.cache).
LIBRARY_DIRS = {"MPLCONFIGDIR": "matplotlib", "XDG_CACHE_HOME": "cache"}


def libraries_inside_home() -> None:
    """Point those libraries inside ``NATIONBIAS_HOME/libraries/`` (a variable the user set is kept),
    so that nothing is written elsewhere. Call it before the library is first imported or used. On a
    read-only home they get a temporary folder, which goes when the process ends."""
    root = home() / "libraries"
    for variable, name in LIBRARY_DIRS.items():
        if os.environ.get(variable):
            continue
        folder = root / name
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError:  # a read-only home: nothing of theirs is worth keeping
            folder = Path(tempfile.mkdtemp(prefix=f"nationbias-{name}-"))
            atexit.register(shutil.rmtree, folder, ignore_errors=True)
        os.environ[variable] = str(folder)


@contextmanager
def using_home(path: Path) -> Iterator[None]:
    """State under ``path`` within this block (and the tasks it starts): a dry run's scratch folder."""
    token = _HOME.set(path)
    try:
        yield
    finally:
        _HOME.reset(token)
