"""Exit codes scripts can trust: 0 when every sample is ok or invalid, 1 when errored samples exceed
--fail-on-error (a count or a fraction; default 0), 2 for bad input; the summary line says why."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from nationbias.evals.cli.main import app
from nationbias.graphs.model.retry import RetryPolicy
from tests.support.fixtures import FaultServerFactory
from tests.support.reliability import MODEL, rows

TOTAL = 10 * 5  # 10 drafts x the P5, one repeat
SUMMARY = re.compile(r"^summary: (\d+) done now, \d+ to go · ok (\d+) · invalid (\d+) · error (\d+) · ")


def _vote(run_id: str, *extra: str) -> list[str]:
    return ["run", "vote", "-m", MODEL, "--limit", "10", "--repeats", "1", "--run-id", run_id, *extra]


def _summary(stderr: str) -> re.Match[str]:
    found = [m for line in stderr.splitlines() if (m := SUMMARY.match(line))]
    assert len(found) == 1, stderr
    return found[0]


def test_errors_beyond_fail_on_error_exit_1_within_it_exit_0(
    fault_server: FaultServerFactory, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = fault_server(rate_500=0.7, seed=3)  # ~1 sample in 4 fails all four attempts
    # every attempt is still made (the same four), 10 ms apart: the backoff's length is
    # tests/graphs/test_retry.py's; waited in full here it left a core idle for about 20 s
    monkeypatch.setattr(RetryPolicy, "delay", lambda policy, attempt, retry_after: 0.01)
    runner = CliRunner(env={"NATIONBIAS_BASE_URL": server.base_url})
    first = runner.invoke(app, _vote("errors"))
    stored = rows(isolated_home, "errors")
    errors = sum(r["status"] == "error" for r in stored)
    assert len(stored) == TOTAL and 0 < errors < TOTAL, [r["status"] for r in stored]
    assert first.exit_code == 1, first.output
    assert f"error: {errors} of {TOTAL} samples errored, more than --fail-on-error 0" in first.stderr
    counts = _summary(first.stderr)
    assert int(counts.group(4)) == errors and int(counts.group(1)) == TOTAL
    assert first.stderr.rstrip().endswith("--run-id errors --retry-errors"), first.stderr

    # the same run again (nothing left to ask): the stored errors decide, against the threshold given
    asked = server.count()
    for threshold, code in [
        (str(errors), 0),
        (str(errors - 1), 1),
        (str((errors + 0.5) / TOTAL), 0),
        (str((errors - 0.5) / TOTAL), 1),
        ("1.0", 0),  # a decimal point makes a fraction: 1.0 is all the samples, not a count of one
        ("1", 1),  # an integer is a count: one errored sample tolerated, and more than one errored
        ("0.0", 1),
    ]:
        again = runner.invoke(app, _vote("errors", "--fail-on-error", threshold))
        assert again.exit_code == code, (threshold, again.output)
    assert server.count() == asked


def test_invalid_answers_are_findings_not_failures(fault_server: FaultServerFactory) -> None:
    server = fault_server(responder=lambda body: "I would rather not say.")
    result = CliRunner(env={"NATIONBIAS_BASE_URL": server.base_url}).invoke(app, _vote("invalid"))
    assert result.exit_code == 0, result.output
    counts = _summary(result.stderr)
    assert (int(counts.group(3)), int(counts.group(4))) == (TOTAL, 0), result.stderr
    assert " · exit 0 · resume: nationbias run vote " in result.stderr  # the command's own names


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("1.5", "has a decimal point, so it is a fraction of the samples, and a fraction cannot be above"),
        ("2.0", "has a decimal point, so it is a fraction of the samples, and a fraction cannot be above"),
        ("-1", "is neither a count (0, 5) nor a fraction"),
        ("half", "is neither a count (0, 5) nor a fraction"),
    ],
)
def test_a_bad_fail_on_error_is_bad_input(
    fault_server: FaultServerFactory, isolated_home: Path, value: str, says: str
) -> None:
    server = fault_server()
    result = CliRunner(env={"NATIONBIAS_BASE_URL": server.base_url}).invoke(
        app, _vote("bad", "--fail-on-error", value)
    )
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert f"Invalid value for '--fail-on-error': '{value}' {says}" in lines[0], result.stderr
    assert server.count() == 0 and not (isolated_home / "runs.sqlite").exists()
