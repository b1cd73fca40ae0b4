"""Ctrl-C sent to a real `nationbias` process mid-run: the first SIGINT issues no new call, waits for
the calls in flight and stores them, exits 130 and prints the command that resumes; the resume
asks only for the remaining samples. A second SIGINT stops at once.

The child gets its own session, and Python's SIGINT handler explicitly: a background job of a
non-interactive shell (CI) inherits SIGINT as ignored, which would make the test meaningless.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.fault_server import FaultConfig
from tests.support.fixtures import FaultServerFactory
from tests.support.reliability import MODEL, REPO, cli_env, fault_server_process, rows, wait_for_samples

CONCURRENCY = 8
TOTAL = 20 * 5  # 20 drafts x the P5, one repeat
SIGINT_HONOURED = "import signal; signal.signal(signal.SIGINT, signal.default_int_handler); "


def _launch(args: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[str]:
    code = SIGINT_HONOURED + "from nationbias.evals.cli.main import app; app()"
    command = [sys.executable, "-c", code, *args]
    with log.open("a") as out:
        return subprocess.Popen(
            command,
            env=env,
            cwd=REPO,
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )


def _args(run_id: str) -> list[str]:
    sample = ["--limit", "20", "--repeats", "1", "--concurrency", str(CONCURRENCY)]
    return ["run", "vote", "-m", MODEL, *sample, "--run-id", run_id]


@pytest.mark.timeout(300)
def test_first_ctrl_c_stores_the_calls_in_flight_and_the_resume_asks_only_the_rest(tmp_path: Path) -> None:
    run_id, home, log = "ctrl-c", tmp_path / "home", tmp_path / "cli.log"
    with fault_server_process("--latency", "0.5") as server:  # calls stay in flight long enough
        env = cli_env(home, server.base_url)
        process = _launch(_args(run_id), env, log)
        wait_for_samples(process, home, run_id, 10)
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=60) == 130, log.read_text()[-3000:]
        output = log.read_text()
        asked_first = sum(server.prompt_counts().values())
        stored = rows(home, run_id)

        # every call made was stored (the ones in flight included), and new calls stopped
        assert 10 <= len(stored) < TOTAL, output
        assert asked_first == len(stored), (asked_first, len(stored))
        assert all(r["status"] == "ok" for r in stored)
        assert "Traceback" not in output, output
        assert "interrupted: Ctrl-C: no new calls were made and the calls in flight were stored" in output
        summary = [line for line in output.splitlines() if line.startswith("summary: ")]
        assert len(summary) == 1 and "exit 130" in summary[0], output
        assert summary[0].endswith(f"--run-id {run_id}"), summary[0]

        # the printed command resumes: only the remaining samples are asked
        resume = subprocess.run(
            [sys.executable, "-c", "from nationbias.evals.cli.main import app; app()", *_args(run_id)],
            env=env,
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert resume.returncode == 0, resume.stdout + resume.stderr
        asked_second = sum(server.prompt_counts().values()) - asked_first
        assert asked_second == TOTAL - len(stored)
        final = rows(home, run_id)
        assert len(final) == TOTAL and all(r["status"] == "ok" for r in final)


@pytest.mark.timeout(300)
def test_second_ctrl_c_stops_at_once(tmp_path: Path, fault_server: FaultServerFactory) -> None:
    """Once the server hangs, the first Ctrl-C would wait out the (long) grace period; the second
    one cancels the calls in flight and exits 130 at once, keeping what was stored."""
    run_id, home, log = "ctrl-c-twice", tmp_path / "home", tmp_path / "cli.log"
    server = fault_server(latency_s=0.05)
    process = _launch(_args(run_id), cli_env(home, server.base_url, NATIONBIAS_GRACE_S="600"), log)
    wait_for_samples(process, home, run_id, 5)
    server.config = FaultConfig(rate_timeout=1.0, hang_s=600.0)  # every call from now on hangs
    hanging = server.count()
    while server.count() < hanging + CONCURRENCY:  # every lane is waiting on a hung call
        assert process.poll() is None, log.read_text()[-3000:]
        time.sleep(0.05)
    stored = len(rows(home, run_id))
    process.send_signal(signal.SIGINT)
    while "Ctrl-C: no new calls" not in log.read_text():
        assert process.poll() is None, log.read_text()[-3000:]
        time.sleep(0.05)
    assert process.poll() is None  # the first Ctrl-C waits for the calls in flight
    process.send_signal(signal.SIGINT)
    assert process.wait(timeout=60) == 130, log.read_text()[-3000:]
    output = log.read_text()
    assert "second Ctrl-C: stopping now" in output, output
    assert "interrupted: Ctrl-C: the calls still in flight were cancelled" in output, output
    assert "Traceback" not in output, output
    assert len(rows(home, run_id)) == stored  # nothing lost, nothing half-written
