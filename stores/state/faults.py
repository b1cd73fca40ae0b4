"""Faults that stop a whole run rather than fail one sample: a store that cannot be written, an
endpoint that refuses every call, an interruption.

A sample that fails is recorded and counted; a run fault is not a property of any sample, so the
runner records nothing for the samples it catches, stops issuing calls, keeps what is stored, and
re-raises it for the command line to report in one line (evals/cli/common.py).
"""

from __future__ import annotations

import errno
import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

# The causes a user can act on (free space, fix permissions): OS errors, and SQLite's codes for them.
_WRITE_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS, errno.EIO}
_SQLITE_WRITE_CODES = {sqlite3.SQLITE_FULL, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_READONLY}


class RunFault(RuntimeError):
    """A fault that stops the run: no new call is issued, what is stored is kept."""

    exit_code = 1


class StoreWriteError(RunFault):
    """A store under NATIONBIAS_HOME could not be written (a full disk, a read-only folder)."""

    def __init__(self, path: Path | str, cause: str) -> None:
        super().__init__(
            f"cannot write {path}: {cause}; stopped issuing calls, everything stored so far is kept "
            "(free space, then rerun with the same --run-id)"
        )
        self.path = Path(path)
        self.cause = cause


class StoreReadOnlyError(StoreWriteError):
    """A store under NATIONBIAS_HOME is on a read-only file system or folder: nothing can be
    recorded, so a run stops before its first call (exit 2). The store itself is intact."""

    exit_code = 2

    def __init__(self, path: Path | str, cause: str) -> None:
        RunFault.__init__(
            self,
            f"cannot write {path}: read-only ({cause}); nothing more was asked and the store is intact: "
            "make NATIONBIAS_HOME writable (or point it at a writable copy), then rerun. Commands that "
            "only read (runs list, runs export, report --out elsewhere, cache stats) work as it is",
        )
        self.path = Path(path)
        self.cause = cause


def is_read_only(exc: BaseException) -> bool:
    """A write refused because the file system or the file is read-only (not a full disk)."""
    if isinstance(exc, sqlite3.Error):
        return getattr(exc, "sqlite_errorcode", 0) & 0xFF == sqlite3.SQLITE_READONLY
    return isinstance(exc, OSError) and exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM)


def is_write_fault(exc: BaseException) -> bool:
    """True for a failed write the user can fix (disk full, I/O error, read-only), not for a bug."""
    if isinstance(exc, sqlite3.Error):
        code = getattr(exc, "sqlite_errorcode", None)
        if isinstance(code, int):
            return code & 0xFF in _SQLITE_WRITE_CODES
        return "disk is full" in str(exc) or "disk I/O error" in str(exc)
    return isinstance(exc, OSError) and exc.errno in _WRITE_ERRNOS


def describe_write_fault(exc: BaseException) -> str:
    """The cause in the user's words: SQLite's "database or disk is full" is ENOSPC's message."""
    if isinstance(exc, OSError) and exc.errno is not None:
        return os.strerror(exc.errno)
    code = getattr(exc, "sqlite_errorcode", None)
    if code == sqlite3.SQLITE_FULL or "disk is full" in str(exc):
        return f"{os.strerror(errno.ENOSPC)} ({exc})"
    return str(exc)


@contextmanager
def guarded_write(path: Path | str) -> Iterator[None]:
    """Turn a failed write to ``path`` into :class:`StoreWriteError`; other errors pass unchanged."""
    try:
        yield
    except (sqlite3.Error, OSError) as exc:
        if is_read_only(exc):
            raise StoreReadOnlyError(path, describe_write_fault(exc)) from exc
        if is_write_fault(exc):
            raise StoreWriteError(path, describe_write_fault(exc)) from exc
        raise
