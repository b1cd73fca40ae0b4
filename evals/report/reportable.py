"""Which runs a report shows and what it says of each: every run named once, none without samples,
and a run still running (or stopped short) said to be so, on the terminal and on the page."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from nationbias.stores.errors import InputError

if TYPE_CHECKING:
    from nationbias.stores.state.runstore import RunStore


def reportable(run_ids: Iterable[str], store: RunStore) -> list[str]:
    """``run_ids`` in order, each once; an unknown run or one with no samples is an :class:`InputError`
    (one line: a report of nothing would be a page of empty tables)."""
    ids = list(dict.fromkeys(run_ids))
    for run_id in ids:
        progress = store.progress(run_id)
        if progress.done == 0:
            state = "is in progress and has" if progress.running else "has"
            raise InputError(
                f"run {run_id!r} {state} no samples stored yet: nothing to report "
                "(a run that stopped before its first answer resumes with the same command and its --run-id)"
            )
    return ids


def progress_notes(run_ids: Iterable[str], store: RunStore) -> list[str]:
    """One line for each run not complete: ``run ID: in progress: 28 of 60``."""
    return [f"run {run_id}: {note}" for run_id in run_ids if (note := store.progress(run_id).note())]
