"""An endpoint that refuses every connection (a closed port): every command stops within seconds,
records no sample as failed, names the URL and the cause in one line, exits 1 and prints the
command that resumes; nothing about the fault reaches the user as a traceback."""

from __future__ import annotations

import re
import socket
from pathlib import Path

import pytest
from typer.testing import CliRunner

from nationbias.evals.cli.main import app
from nationbias.stores.state.runstore import RunStore
from tests.support.reliability import MODEL

STOP_WITHIN_S = 10.0  # the bound (from the first call, not the set-up); the breaker trips in ~0.5 s
RUNNING = re.compile(r" · ([\d.]+) s running · ")

COMMANDS: dict[str, list[str]] = {
    "vote": ["run", "vote"],  # all 66 drafts x P5 x 3 repeats: the 990-call study
    "debias": ["run", "vote", "--debias", "--limit", "5"],
    "directqa": ["run", "directqa"],
    "association": ["run", "association"],
    "study": ["study", "--limit", "2"],
    "ablate": ["ablate", "--limit", "2", "--k", "1", "2"],
}
FIRST_RUN = {"study": "-directqa", "ablate": "-debias-k1-rf-keyword"}


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])  # closed again when the block ends: nothing listens


@pytest.mark.timeout(300)
@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_closed_port_stops_the_run_within_seconds_with_the_url(command: str, isolated_home: Path) -> None:
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    run_id = f"dead-{command}"
    args = [*COMMANDS[command], "-m", MODEL, "--base-url", url, "--run-id", run_id]
    result = CliRunner().invoke(app, args)

    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    errors = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, result.stderr
    assert f"cannot reach the model endpoint {url}/chat/completions" in errors[0], errors[0]
    assert "Connection refused" in errors[0], errors[0]
    summary = [line for line in result.stderr.splitlines() if line.startswith("summary: ")]
    assert len(summary) == 1 and summary[0].endswith(f"--run-id {run_id}"), result.stderr
    assert "0 done now" in summary[0] and f"--base-url {url}" in summary[0], summary[0]
    running = RUNNING.search(summary[0])
    assert running and float(running.group(1)) < STOP_WITHIN_S, summary[0]

    # no sample was recorded as failed: a resume against a live server simply runs them all
    store = RunStore()
    assert store.samples_frame(run_id + FIRST_RUN.get(command, "")).empty
    assert set(store.runs_frame()["run_id"]) == {run_id + FIRST_RUN.get(command, "")}
