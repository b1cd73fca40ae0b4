"""Small ones: an ASCII-only stdout never crashes the summary; NATIONBIAS_HOME set to a file or to a
place that cannot be created is one line, exit 2; `runs resume` and `runs status` on a plain run say
what it is and how it resumes; the suite does not read the user's NATIONBIAS_DATA."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from nationbias.evals.cli.main import app
from tests.support.fixtures import FaultServerFactory
from tests.support.reliability import MODEL, REPO, cli_command, cli_env, rows

VOTE = ["run", "vote", "-m", MODEL, "--limit", "1", "--repeats", "1"]


@pytest.mark.parametrize("variables", [{"PYTHONIOENCODING": "ascii"}, {"LC_ALL": "C", "PYTHONUTF8": "0"}])
def test_an_ascii_only_stdout_gets_the_summary_not_a_unicode_error(
    isolated_home: Path, fault_server: FaultServerFactory, variables: dict[str, str]
) -> None:
    server = fault_server()
    env = cli_env(isolated_home, server.base_url, **variables)
    env.pop("LANG", None)
    if "LC_ALL" in variables:  # no UTF-8 coercion: the locale's ASCII is the streams' encoding
        env["PYTHONCOERCECLOCALE"] = "0"
    done = subprocess.run(
        cli_command(*VOTE, "--run-id", "ascii"), env=env, cwd=REPO, capture_output=True, timeout=300
    )
    stderr = done.stderr.decode("ascii", "replace")
    assert done.returncode == 0, stderr
    assert "summary: 5 done now" in stderr and "\\xb7" in stderr, stderr  # the middle dot, escaped
    assert "UnicodeEncodeError" not in stderr
    assert len(rows(isolated_home, "ascii")) == 5


@pytest.mark.parametrize("where", ["file", "under-a-file"])
def test_a_home_that_cannot_be_a_folder_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    blocker = tmp_path / "home-file"
    blocker.write_text("not a folder")
    home = blocker if where == "file" else blocker / "nbhome"
    monkeypatch.setenv("NATIONBIAS_HOME", str(home))
    for args in (["runs", "list"], [*VOTE, "--base-url", "http://127.0.0.1:9/v1"]):
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 2, (args, result.output, result.exception)
        errors = [line for line in result.output.splitlines() if line.startswith("error: ")]
        assert len(errors) == 1 and f"NATIONBIAS_HOME={home}" in errors[0], result.output
    assert blocker.read_text() == "not a folder"


def test_runs_resume_and_status_on_a_plain_run_say_how_it_resumes(
    isolated_home: Path, fault_server: FaultServerFactory
) -> None:
    server = fault_server()
    assert CliRunner().invoke(app, [*VOTE, "--base-url", server.base_url, "--run-id", "plain"]).exit_code == 0
    for command in ("status", "resume"):
        result = CliRunner().invoke(app, ["runs", command, "plain"])
        assert result.exit_code == 2, result.output
        assert "is a plain run, not a batch run" in result.output and "ok 5" in result.output, result.output
    resume = CliRunner().invoke(app, ["runs", "resume", "plain"])
    assert "--run-id plain" in " ".join(resume.output.split()), resume.output
    missing = CliRunner().invoke(app, ["runs", "status", "nope"])
    assert missing.exit_code == 2 and "no run 'nope'" in missing.output, missing.output


def test_the_suite_does_not_read_the_users_nationbias_data(tmp_path: Path) -> None:
    """tests/stores/test_bundled.py with NATIONBIAS_DATA set in the shell (docs/data.md suggests it for
    another copy of the data): tests/conftest.py clears it, so the tests read what they set."""
    other = tmp_path / "other-copy"
    (other / "unsc").mkdir(parents=True)
    (other / "unsc" / "corpus.jsonl").write_text("{}\n")
    env = cli_env(tmp_path / "home", "http://127.0.0.1:9/v1", NATIONBIAS_DATA=str(other))
    inner = "not (embedded or browser or subprocess or build or slow)"
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/stores/test_bundled.py"]
    done = subprocess.run(
        [*command, "-m", inner], env=env, cwd=REPO, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert " passed" in done.stdout and " failed" not in done.stdout, done.stdout[-2000:]
