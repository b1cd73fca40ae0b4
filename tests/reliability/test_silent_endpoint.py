"""An endpoint that accepts the connection and never answers (a load balancer with no healthy
backend), met by a real `nationbias` process over a real socket: the run stops within about two
timeouts with one line naming the URL, exits 1 and prints the command that resumes."""

from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path

import pytest

from tests.support.reliability import MODEL, REPO, cli_command, cli_env
from tests.support.silent_server import SilentServer

# the test owns both sides (the silent server never answers), so the timeout only sets how long the
# run waits: 3 s keeps the two timeouts well apart from a loaded machine's scheduling delays
TIMEOUT_S = 3
RUNNING = re.compile(r" · ([\d.]+) s running · ")


@pytest.mark.timeout(120)
def test_a_silent_endpoint_stops_the_run_within_two_timeouts_naming_the_url(tmp_path: Path) -> None:
    run_id = "silent"
    with SilentServer() as server:
        args = ["run", "vote", "-m", MODEL, "--limit", "2", "--repeats", "1", "--concurrency", "4"]
        args += ["--timeout", str(TIMEOUT_S), "--progress-every", "1", "--run-id", run_id]
        done = subprocess.run(
            cli_command(*args),
            env=cli_env(tmp_path / "home", server.base_url),
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=90,
        )
        ended = time.monotonic()
        accepted, first = server.accepted, server.first_accept

    assert done.returncode == 1, (done.returncode, done.stderr[-3000:])
    assert accepted >= 1 and first is not None  # the calls did connect: the server was silent, not closed
    assert ended - first < 60, ended - first  # the bound, from the first call to the exit
    assert "Traceback" not in done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, done.stderr
    url = f"{server.base_url}/chat/completions"
    assert (
        f"the model endpoint {url} accepted the connection, never answered within {TIMEOUT_S} s" in errors[0]
    )
    assert "--timeout" in errors[0]  # what to try
    summary = [line for line in done.stderr.splitlines() if line.startswith("summary: ")]
    assert len(summary) == 1 and "0 done now" in summary[0] and "exit 1" in summary[0], done.stderr
    assert summary[0].endswith(f"--run-id {run_id}") and f"--timeout {TIMEOUT_S}" in summary[0], summary[0]
    running = RUNNING.search(summary[0])
    assert running and float(running.group(1)) < 4 * TIMEOUT_S, summary[0]  # about two timeouts; a margin
