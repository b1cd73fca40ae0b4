"""One DirectQA run on the embedded model, made once per session for the tests that ask its questions.

DirectQA's general family with ``--limit 1`` is the same 20 questions whichever prompt set or framing
asks them (the paper's wording is the structured set's), and the embedded model answers a question
the same way each time (temperature 0, its state reset per call). The run here asks them of the real
model once; a test that asks them again starts from a copy of its response cache, so it pays only
for the calls that are its own (the mirrored framing, a judge on a real server) and checks the same
real answers.
"""

from __future__ import annotations

import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from typer.testing import CliRunner

from nationbias.evals.cli.main import app

DIRECTQA_RUN = ["run", "directqa", "--model", "local:smollm2", "--limit", "1", "--repeats", "1"]
DIRECTQA_RUN_ID = "dq"


def embedded_directqa_run(home: Path) -> Path:
    """``DIRECTQA_RUN`` as run ``dq`` through the CLI in its own NATIONBIAS_HOME (``home``)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("NATIONBIAS_HOME", str(home))
        result = CliRunner().invoke(app, [*DIRECTQA_RUN, "--run-id", DIRECTQA_RUN_ID], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return home


def copy_home(source: Path, target: Path, *, only: tuple[str, ...] | None = None) -> None:
    """The stores of ``source`` (each SQLite file through SQLite's own backup: a consistent copy
    whatever its journal holds), or only the files named in ``only``, into ``target``."""
    target.mkdir(parents=True, exist_ok=True)
    for path in sorted(source.iterdir()):
        if only is not None and path.name not in only:
            continue
        if path.suffix == ".sqlite":
            with closing(sqlite3.connect(path)) as src, closing(sqlite3.connect(target / path.name)) as dst:
                src.backup(dst)
        elif path.is_file() and not path.name.endswith(("-wal", "-shm", "-journal")):
            shutil.copy2(path, target / path.name)
