"""One installed name: the code imports itself as ``nationbias.<folder>`` only, never by a bare folder name.

A module imported under two names would be two modules (two registries of bias tests, two context
variables of the cost meter). Stand-in packages named like the card's folders, first on the path, fail on
import: a vote run through the library and its report must never touch them. Another distribution that
installs ``evals`` (OpenAI's) or ``stores`` beside nationbias looks exactly like them.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

FOLDERS = ("graphs", "retrievers", "prompts", "stores", "evals")

RUN = """
import sys
import nationbias

summary = nationbias.run("vote", model="fake:hash", limit=1, repeats=1, personas="USA", show_progress=False)
assert summary.done == 1, summary
tables = nationbias.results(summary.run_id)
assert tuple(tables) == nationbias.RESULT_TABLES["vote"]
page = nationbias.report(summary.run_id)
assert page.name == "index.html"
bare = sorted(m for m in sys.modules if m.split(".")[0] in {folders!r})
assert not bare, bare
print("ok", summary.run_id)
"""


def stand_ins(root: Path) -> Path:
    for name in FOLDERS:
        (root / name).mkdir(parents=True)
        (root / name / "__init__.py").write_text(
            f"raise ImportError('the stand-in {name!r} was imported: use nationbias.{name}')\n"
        )
    return root


def test_a_stand_in_fails_on_import(tmp_path: Path) -> None:
    """The stand-ins do shadow the bare names (else the run below would prove nothing)."""
    path = stand_ins(tmp_path / "shadow")
    for name in FOLDERS:
        result = subprocess.run(
            [sys.executable, "-c", f"import {name}"],
            env={**os.environ, "PYTHONPATH": str(path)},
            capture_output=True,
            text=True,
            timeout=120,
            cwd=tmp_path,  # ``-c`` puts the working directory first: not the repository's
        )
        assert result.returncode != 0 and f"the stand-in {name!r} was imported" in result.stderr


def test_a_vote_and_its_report_import_nothing_by_a_bare_folder_name(tmp_path: Path) -> None:
    path = stand_ins(tmp_path / "shadow")
    env = {**os.environ, "PYTHONPATH": str(path), "NATIONBIAS_HOME": str(tmp_path / "home")}
    result = subprocess.run(
        [sys.executable, "-c", RUN.format(folders=set(FOLDERS))],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,  # not the repository: its folders are not on the path by the working directory
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.startswith("ok ")
