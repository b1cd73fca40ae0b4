"""A lease is fenced (stores/state/lease.py): a run paused with SIGSTOP past the stale limit, its lease taken
over by the same command started again, finds out when it is continued, before its next call, and
stops with exit 2 naming the run and the process that holds it. The server is asked at most once
more than there are samples (the one call in flight at the pause, at concurrency 1), and that answer
is in the response cache, not dropped."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import time
from contextlib import closing
from pathlib import Path

import pytest

from tests.support.fault_server import FaultConfig
from tests.support.fixtures import FaultServerFactory
from tests.support.reliability import MODEL, REPO, cli_command, cli_env, rows, wait_for_samples

TOTAL = 8 * 5  # 8 drafts x the P5, one repeat
STALE_S = 2.0


def _launch(run_id: str, env: dict[str, str], log: Path) -> subprocess.Popen[str]:
    args = ["run", "vote", "-m", MODEL, "--limit", "8", "--repeats", "1", "--concurrency", "1"]
    with log.open("a") as out:
        return subprocess.Popen(
            cli_command(*args, "--run-id", run_id),
            env=env,
            cwd=REPO,
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
        )


def _holder(home: Path, run_id: str) -> int | None:
    with closing(sqlite3.connect(home / "runs.sqlite", timeout=30)) as conn:
        row = conn.execute("SELECT pid FROM leases WHERE run_id = ?", (run_id,)).fetchone()
    return None if row is None else int(row[0])


@pytest.mark.timeout(180)
def test_a_paused_run_whose_lease_was_taken_over_stops_before_its_next_call(
    tmp_path: Path, fault_server: FaultServerFactory
) -> None:
    run_id, home = "paused", tmp_path / "home"
    server = fault_server(latency_s=0.2)
    env = cli_env(home, server.base_url, NATIONBIAS_LEASE_STALE_S=str(STALE_S))
    paused_log, taker_log = tmp_path / "paused.log", tmp_path / "taker.log"
    paused = _launch(run_id, env, paused_log)
    wait_for_samples(paused, home, run_id, 5)
    paused.send_signal(signal.SIGSTOP)  # Ctrl-Z, a suspended VM
    try:
        time.sleep(STALE_S + 1.0)  # its heartbeat goes stale
        taker = _launch(run_id, env, taker_log)
        deadline = time.monotonic() + 60
        while _holder(home, run_id) != taker.pid:
            assert taker.poll() is None and time.monotonic() < deadline, taker_log.read_text()
            time.sleep(0.01)
    finally:
        paused.send_signal(signal.SIGCONT)
    assert paused.wait(timeout=60) == 2, paused_log.read_text()
    server.config = FaultConfig(latency_s=0.01)
    assert taker.wait(timeout=120) == 0, taker_log.read_text()

    said = paused_log.read_text()
    errors = [line for line in said.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, said
    assert f"run '{run_id}' was taken over by process {taker.pid} on host" in errors[0], errors[0]
    assert "Traceback" not in said, said
    assert f"taking over the lease of process {paused.pid}" in taker_log.read_text()

    calls = sum(server.prompt_counts().values())
    stored = rows(home, run_id)
    assert len(stored) == TOTAL and all(r["status"] == "ok" for r in stored)
    assert TOTAL <= calls <= TOTAL + 1, calls  # only the call in flight at the pause is asked twice
    with closing(sqlite3.connect(home / "cache.sqlite")) as conn:
        cached = conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0]
    assert cached == TOTAL  # the paused process's last answer was cached, not dropped
