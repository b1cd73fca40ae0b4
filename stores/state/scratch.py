"""A scratch state folder for a dry run: the real runs' progress to read, nothing of theirs to write.

A dry run drives the real graphs with placeholder answers, so whatever it writes (sample rows,
debias checkpoints) must never land in the real stores. It runs under a temporary NATIONBIAS_HOME
whose run store holds a copy of the real runs and of which of their samples are done (a resumed
run counts only what is left), and whose derived data (retrieval indexes, frames) is the real
folder's, shared: it is a pure cache of the data, and building it twice would be waste.
"""

from __future__ import annotations

import contextlib
import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

from nationbias.stores.config.paths import home, using_home
from nationbias.stores.state.runstore import SCHEMA as RUNS_SCHEMA
from nationbias.stores.state.sqlite import connect

SHARED = ("derived", "chroma")  # pure caches of the data: read and extended in place
SHARED_FILES = ("embedded-probe.json",)  # what the embedded model's probe found on this machine


def seed_runs(real: Path, scratch: Path) -> None:
    """Copy every run's config and its samples' ids and status (not their contents) into ``scratch``."""
    with closing(connect(scratch, RUNS_SCHEMA)) as conn:
        if not real.exists():
            return
        conn.execute("ATTACH DATABASE ? AS real", (str(real),))  # only read
        conn.execute("BEGIN")
        conn.execute("INSERT INTO runs SELECT run_id, config, created FROM real.runs")
        conn.execute(
            "INSERT INTO samples (run_id, sample_id, test, item, persona, pair_order, repeat, status,"
            " messages, created) SELECT run_id, sample_id, test, item, persona, pair_order, repeat,"
            " status, '[]', created FROM real.samples"
        )
        conn.execute("COMMIT")
        conn.execute("DETACH DATABASE real")


@contextmanager
def scratch_home() -> Iterator[Path]:
    """Run the block under a temporary state folder seeded from the real one; removed afterwards."""
    real = home()
    with tempfile.TemporaryDirectory(prefix="nationbias-dry-") as folder:
        scratch = Path(folder)
        for name in (*SHARED, *SHARED_FILES):
            target = real / name
            if name in SHARED:
                target.mkdir(exist_ok=True)
            if target.exists():
                with contextlib.suppress(OSError):  # no symlinks (Windows without the right): rebuilt here
                    (scratch / name).symlink_to(target, target_is_directory=target.is_dir())
        try:
            seed_runs(real / "runs.sqlite", scratch / "runs.sqlite")
        except sqlite3.Error as exc:
            from nationbias.stores.errors import InputError

            raise InputError(f"a dry run cannot read {real / 'runs.sqlite'}: {exc}") from exc
        with using_home(scratch):
            yield scratch
