"""A real `nationbias run vote` against the fault server, signalled mid-run: the steps that
tests/reliability/test_sigint.py (Ctrl-C) and test_sigterm.py (SIGTERM, SIGHUP) share.

The first signal issues no new call, waits for the calls in flight and stores them; a second one
cancels what is still in flight and stops at once. Only the signal, its name in the messages and
the exit code differ between the two files.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tests.support.fault_server import FaultConfig, FaultServer
from tests.support.fixtures import FaultServerFactory
from tests.support.reliability import MODEL, REPO, ServerProcess, cli_env, rows, wait_for_samples

CONCURRENCY = 8
TOTAL = 20 * 5  # 20 drafts x the P5, one repeat
# A background job of a non-interactive shell (CI) inherits SIGINT as ignored, which would make a
# Ctrl-C test meaningless: the child installs Python's handler itself, as a terminal's process has it.
SIGINT_HONOURED = "import signal; signal.signal(signal.SIGINT, signal.default_int_handler); "


def run_args(run_id: str, *extra: str) -> list[str]:
    """The run every signal test interrupts: 20 drafts x the P5, eight calls in flight at a time."""
    sample = ["--limit", "20", "--repeats", "1", "--concurrency", str(CONCURRENCY)]
    return ["run", "vote", "-m", MODEL, *sample, *extra, "--run-id", run_id]


def launch(args: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[str]:
    """`nationbias ARGS` in a session of its own: a signal goes to it alone, as a scheduler's goes to
    its job (and never to pytest)."""
    command = [
        sys.executable,
        "-c",
        SIGINT_HONOURED + "from nationbias.evals.cli.main import app; app()",
        *args,
    ]
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


def first_signal_stores_the_calls_in_flight(
    process: subprocess.Popen[str],
    server: ServerProcess | FaultServer,
    *,
    home: Path,
    run_id: str,
    log: Path,
    signum: signal.Signals,
    exit_code: int,
) -> tuple[str, list[dict[str, Any]], str]:
    """Signal once at ten samples stored; every call the server answered is stored, the process exits
    ``exit_code`` with one summary line that ends with the resume option. Returns the output, the
    stored rows and the summary line."""
    wait_for_samples(process, home, run_id, 10)
    process.send_signal(signum)
    assert process.wait(timeout=60) == exit_code, log.read_text()[-3000:]
    answered = sum(server.prompt_counts().values())
    output = log.read_text()
    stored = rows(home, run_id)
    assert 10 <= len(stored) < TOTAL, output  # new calls stopped
    assert answered == len(stored), (answered, len(stored))  # every paid call is stored
    assert all(r["status"] == "ok" for r in stored)
    assert "Traceback" not in output, output
    summary = [line for line in output.splitlines() if line.startswith("summary: ")]
    assert len(summary) == 1 and f"exit {exit_code}" in summary[0], output
    assert summary[0].endswith(f"--run-id {run_id}"), summary[0]
    return output, stored, summary[0]


def a_second_signal_stops_at_once(
    fault_server: FaultServerFactory,
    tmp_path: Path,
    *,
    first: signal.Signals,
    second: signal.Signals,
    notice: str,
    exit_code: int,
    extra: tuple[str, ...] = (),
) -> str:
    """Once every lane waits on a hung call, the first signal would wait out a long grace period
    (its ``notice`` is printed and the process goes on); the second cancels the calls in flight and
    the process exits ``exit_code`` at once, keeping what was stored. Returns the output."""
    run_id, home, log = "twice", tmp_path / "home", tmp_path / "cli.log"
    server = fault_server(latency_s=0.05)
    process = launch(run_args(run_id, *extra), cli_env(home, server.base_url, NATIONBIAS_GRACE_S="600"), log)
    wait_for_samples(process, home, run_id, 5)
    server.config = FaultConfig(rate_timeout=1.0, hang_s=600.0)  # every call from now on hangs
    hanging = server.count()
    while server.count() < hanging + CONCURRENCY:  # every lane is waiting on a hung call
        assert process.poll() is None, log.read_text()[-3000:]
        time.sleep(0.05)
    stored = len(rows(home, run_id))
    process.send_signal(first)
    while notice not in log.read_text():
        assert process.poll() is None, log.read_text()[-3000:]
        time.sleep(0.05)
    assert process.poll() is None  # the first signal waits for the calls in flight
    process.send_signal(second)
    assert process.wait(timeout=60) == exit_code, log.read_text()[-3000:]
    output = log.read_text()
    assert "Traceback" not in output, output
    assert len(rows(home, run_id)) == stored  # nothing lost, nothing half-written
    return output
