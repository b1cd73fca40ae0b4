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
from pathlib import Path

import pytest

from tests.support.fault_server import FaultConfig
from tests.support.fixtures import FaultServerFactory
from tests.support.reliability import REPO, cli_env, rows
from tests.support.signals import (
    TOTAL,
    a_second_signal_stops_at_once,
    first_signal_stores_the_calls_in_flight,
    launch,
    run_args,
)


@pytest.mark.timeout(300)
def test_first_ctrl_c_stores_the_calls_in_flight_and_the_resume_asks_only_the_rest(
    tmp_path: Path, fault_server: FaultServerFactory
) -> None:
    run_id, home, log = "ctrl-c", tmp_path / "home", tmp_path / "cli.log"
    server = fault_server(latency_s=0.5)  # calls stay in flight long enough
    env = cli_env(home, server.base_url)
    process = launch(run_args(run_id), env, log)
    output, stored, _ = first_signal_stores_the_calls_in_flight(
        process, server, home=home, run_id=run_id, log=log, signum=signal.SIGINT, exit_code=130
    )
    assert "interrupted: Ctrl-C: no new calls were made and the calls in flight were stored" in output
    asked_first = sum(server.prompt_counts().values())

    # the printed command resumes: only the remaining samples are asked (what it asks is the point,
    # not how long each call takes: nothing is interrupted now, so the calls need no latency)
    server.config = FaultConfig(latency_s=0.01)
    resume = subprocess.run(
        [sys.executable, "-c", "from nationbias.evals.cli.main import app; app()", *run_args(run_id)],
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
    output = a_second_signal_stops_at_once(
        fault_server, tmp_path, first=signal.SIGINT, second=signal.SIGINT, notice="Ctrl-C: no new calls",
        exit_code=130,
    )  # fmt: skip
    assert "second Ctrl-C: stopping now" in output, output
    assert "interrupted: Ctrl-C: the calls still in flight were cancelled" in output, output
