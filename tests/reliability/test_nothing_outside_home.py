"""Nothing is written outside NATIONBIAS_HOME (stores/config/paths.py, ``libraries_inside_home``): `report`
(matplotlib's config and font cache) and a `--retriever dense` run (onnxruntime's device id and
database) leave an empty HOME empty; the libraries' files are under the home."""

from __future__ import annotations

import subprocess
from pathlib import Path

from typer.testing import CliRunner

from nationbias.evals.cli.main import app
from tests.support.fixtures import FaultServerFactory
from tests.support.reliability import MODEL, REPO, cli_command, cli_env, files_under

# What points a library elsewhere: left out, so each finds its default under HOME, as a user's would.
# CI too: onnxruntime writes its device id and database only where CI is unset, as on a user's machine.
LIBRARY_VARIABLES = ("MPLCONFIGDIR", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "CI")


def _cli(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cli_command(*args), env=env, cwd=REPO, capture_output=True, text=True, timeout=600)


def test_report_and_a_dense_run_write_nothing_under_home(
    isolated_home: Path, fault_server: FaultServerFactory, tmp_path: Path
) -> None:
    server = fault_server()
    vote = ["run", "vote", "-m", MODEL, "--limit", "1", "--repeats", "1", "--base-url", server.base_url]
    assert CliRunner().invoke(app, [*vote, "--run-id", "r1"]).exit_code == 0
    user_home = tmp_path / "user-home"
    user_home.mkdir()
    env = {k: v for k, v in cli_env(isolated_home, server.base_url).items() if k not in LIBRARY_VARIABLES}
    env["HOME"] = str(user_home)

    report = _cli(["report", "r1"], env)
    assert report.returncode == 0, report.stdout + report.stderr
    dense = _cli([*vote, "--debias", "--retriever", "dense", "--run-id", "d1"], env)
    assert dense.returncode == 0, dense.stdout + dense.stderr

    assert files_under(user_home) == {} and not list(user_home.iterdir())  # HOME stays empty
    kept = files_under(isolated_home / "libraries")
    assert any("/matplotlib/" in path for path in kept), kept
    assert any("onnxruntime" in path for path in kept), kept
