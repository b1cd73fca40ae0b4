"""A resume asks the same question: any change to what defines the samples (personas, years, the body, a
smaller sample) is refused before anything is asked, exit 2, naming the setting; a larger --limit is
intended: its new targets are leak-audited and recorded in the stored config."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from nationbias.evals.cli.main import app
from nationbias.stores.state.runstore import RunStore
from tests.support.fixtures import FaultServerFactory
from tests.support.reliability import MODEL, rows

BASE = ["run", "vote", "-m", MODEL, "--repeats", "1", "--personas", "USA", "--run-id", "q"]


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (["--limit", "3", "--personas", "RUS"], "personas='USA', not 'RUS'"),
        (["--limit", "3", "--years", "2013-2015"], "years=None, not [2013, 2015]"),
        (["--limit", "2"], "limit=3, not 2 (the sample may only grow)"),
    ],
)
def test_a_resume_that_changes_the_question_is_refused(
    fault_server: FaultServerFactory, isolated_home: Path, change: list[str], named: str
) -> None:
    server = fault_server()
    runner = CliRunner(env={"NATIONBIAS_BASE_URL": server.base_url})
    assert runner.invoke(app, [*BASE, "--limit", "3"]).exit_code == 0
    asked = server.count()
    result = runner.invoke(app, [*BASE, *change])
    assert result.exit_code == 2 and isinstance(result.exception, SystemExit), result.output
    assert f"run 'q' was started with {named}: use a new --run-id" in " ".join(result.stderr.split())
    assert server.count() == asked and len(rows(isolated_home, "q")) == 3  # nothing asked, nothing mixed in


def test_a_grown_limit_audits_and_records_the_new_targets(
    fault_server: FaultServerFactory, isolated_home: Path
) -> None:
    server = fault_server()
    runner = CliRunner(env={"NATIONBIAS_BASE_URL": server.base_url})
    assert runner.invoke(app, [*BASE, "--limit", "3"]).exit_code == 0
    first = RunStore().get_run("q")
    assert first["leak_audit"]["targets"] == 3 and first["sample"]["limit"] == 3
    result = runner.invoke(app, [*BASE, "--limit", "6"])
    assert result.exit_code == 0, result.output
    config = RunStore().get_run("q")
    stored = {r["item"] for r in rows(isolated_home, "q")}
    assert len(stored) == 6 and config["sample"]["limit"] == 6
    assert config["leak_audit"]["targets"] == 6  # every target the run asks was audited
    assert {r["id"] for r in config["leak_audit"]["rows"]} == stored
    assert (config["data_sha256"], config["prompt_versions"]) == (
        first["data_sha256"],
        first["prompt_versions"],
    )
