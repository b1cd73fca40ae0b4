"""A report says what it shows: a run still in progress is reported as "in progress: N of M" on the
terminal and on the page; a run with no samples (stopped before its first answer) is one line and exit 2;
the same run named twice is reported once."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

from typer.testing import CliRunner

from nationbias.evals.cli.main import app
from nationbias.stores.state.runstore import RunStore
from tests.support.fixtures import FaultServerFactory
from tests.support.reliability import MODEL, rows

VOTE = ["run", "vote", "-m", MODEL, "--limit", "2", "--repeats", "1", "--personas", "USA"]
CLOSED = "http://127.0.0.1:9/v1"  # nothing listens: the run stops before its first answer


def test_a_run_in_progress_is_reported_as_such_and_a_run_named_twice_once(
    fault_server: FaultServerFactory, isolated_home: Path, tmp_path: Path
) -> None:
    server = fault_server()
    assert (
        CliRunner(env={"NATIONBIAS_BASE_URL": server.base_url})
        .invoke(app, [*VOTE, "--run-id", "r"])
        .exit_code
        == 0
    )
    assert RunStore().get_run("r")["samples_planned"] == 2
    first = rows(isolated_home, "r")[0]["sample_id"]
    with closing(sqlite3.connect(isolated_home / "runs.sqlite")) as conn, conn:
        conn.execute("DELETE FROM samples WHERE run_id = 'r' AND sample_id = ?", (first,))

    out = tmp_path / "report"
    with RunStore().lease("r", notify=print):  # a live process runs it (this one)
        result = CliRunner().invoke(app, ["report", "r", "r", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "run r: in progress: 1 of 2" in result.stderr
    page = (out / "index.html").read_text(encoding="utf-8")
    assert "run r: in progress: 1 of 2" in page
    assert f'<p class="subtitle">{MODEL} · vote · r</p>' in page  # named once

    result = CliRunner().invoke(
        app, ["report", "r", "--out", str(tmp_path / "stopped")]
    )  # no one runs it now
    assert result.exit_code == 0, result.output
    assert "run r: incomplete: 1 of 2" in result.stderr


def test_a_run_with_no_samples_is_one_line_and_exit_2(isolated_home: Path, tmp_path: Path) -> None:
    stopped = CliRunner(env={"NATIONBIAS_BASE_URL": CLOSED}).invoke(app, [*VOTE, "--run-id", "empty"])
    assert stopped.exit_code == 1, stopped.output  # the endpoint is unreachable: the run stopped
    assert rows(isolated_home, "empty") == []
    result = CliRunner().invoke(app, ["report", "empty", "--out", str(tmp_path / "report")])
    assert result.exit_code == 2 and isinstance(result.exception, SystemExit), result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "run 'empty' has no samples stored yet: nothing to report" in lines[0], lines
    assert not (tmp_path / "report").exists()
