"""One process per run (stores/state/lease.py): the same run id started twice by real processes spends
each call once and the second refuses at once (exit 2, naming the run and the holder); a lease left
by a killed process, or one whose heartbeat stopped, is taken over with a line saying so; the
library (``nationbias.run``) honours the same lease."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import time
from contextlib import closing
from pathlib import Path

import pytest

import nationbias
from nationbias.stores.state.lease import SCHEMA, RunBusyError, RunLease
from nationbias.stores.state.runstore import RunStore
from nationbias.stores.state.sqlite import connect
from tests.support.fault_server import FaultConfig
from tests.support.fixtures import FaultServerFactory
from tests.support.reliability import (
    MODEL,
    REPO,
    cli_command,
    cli_env,
    rows,
    wait_for_samples,
)

TOTAL = 10 * 5  # 10 drafts x the P5, one repeat


def _args(run_id: str) -> list[str]:
    sample = ["--limit", "10", "--repeats", "1", "--concurrency", "4"]
    return ["run", "vote", "-m", MODEL, *sample, "--progress-every", "1", "--run-id", run_id]


def _launch(args: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[str]:
    with log.open("a") as out:
        return subprocess.Popen(
            cli_command(*args), env=env, cwd=REPO, stdout=out, stderr=subprocess.STDOUT, text=True
        )


@pytest.mark.timeout(180)
def test_the_same_run_started_twice_spends_each_call_once_and_the_second_refuses_at_once(
    tmp_path: Path, fault_server: FaultServerFactory
) -> None:
    run_id, home = "twice", tmp_path / "home"
    server = fault_server(latency_s=0.5)  # the winner's run outlasts the loser's start
    env = cli_env(home, server.base_url)
    first = _launch(_args(run_id), env, tmp_path / "first.log")
    time.sleep(0.5)
    second = _launch(_args(run_id), env, tmp_path / "second.log")
    while first.poll() is None and second.poll() is None:
        time.sleep(0.02)
    # one has ended (the loser refuses at once): the other's remaining calls need no latency
    server.config = FaultConfig(latency_s=0.01)
    codes = {first.wait(timeout=120), second.wait(timeout=120)}
    calls = sum(server.prompt_counts().values())
    assert codes == {0, 2}, (
        codes,
        (tmp_path / "first.log").read_text(),
        (tmp_path / "second.log").read_text(),
    )
    winner, loser = (first, second) if first.returncode == 0 else (second, first)
    refused = (tmp_path / ("second.log" if loser is second else "first.log")).read_text()
    assert calls == TOTAL == len(rows(home, run_id))  # every sample asked once, stored once
    errors = [line for line in refused.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, refused
    assert f"run '{run_id}' is being run by process {winner.pid} on host" in errors[0], errors[0]
    assert "Traceback" not in refused and "summary:" not in refused, refused


@pytest.mark.timeout(180)
def test_the_lease_of_a_killed_process_is_taken_over_with_a_line(
    tmp_path: Path, fault_server: FaultServerFactory
) -> None:
    run_id, home = "killed", tmp_path / "home"
    server = fault_server(latency_s=0.3)  # the kill lands mid-run
    env = cli_env(home, server.base_url)
    killed = _launch(_args(run_id), env, tmp_path / "killed.log")
    wait_for_samples(killed, home, run_id, 4)
    killed.send_signal(signal.SIGKILL)  # no handler runs: the lease stays behind
    killed.wait(timeout=30)
    with closing(sqlite3.connect(home / "runs.sqlite")) as conn:
        assert conn.execute("SELECT pid FROM leases WHERE run_id = ?", (run_id,)).fetchone() == (killed.pid,)
    server.config = FaultConfig(latency_s=0.01)  # the resume is about the lease, not the timing
    log = tmp_path / "resumed.log"
    resumed = _launch(_args(run_id), env, log)
    assert resumed.wait(timeout=120) == 0, log.read_text()[-3000:]
    output = log.read_text()
    assert f"run {run_id}: taking over the lease of process {killed.pid} on host" in output, output
    assert f"process {killed.pid} no longer exists on this host" in output, output
    assert len(rows(home, run_id)) == TOTAL
    with closing(sqlite3.connect(home / "runs.sqlite")) as conn:  # given back at the end
        assert conn.execute("SELECT COUNT(*) FROM leases").fetchone() == (0,)


def _plant(path: Path, run_id: str, *, host: str, pid: int, age_s: float) -> None:
    """A lease row as another process would have left it."""
    connect(path, SCHEMA).close()
    with closing(sqlite3.connect(path)) as conn, conn:
        now = time.time()
        conn.execute(
            "INSERT INTO leases VALUES (?,?,?,?,?,?)", (run_id, host, pid, "tok", now - age_s, now - age_s)
        )


def test_a_lease_with_an_old_heartbeat_is_stale_and_a_fresh_one_from_another_host_is_not(
    tmp_path: Path,
) -> None:
    path = tmp_path / "runs.sqlite"
    _plant(path, "old", host="node-elsewhere", pid=4242, age_s=3600)
    heard: list[str] = []
    with RunLease(path, "old", notify=heard.append):
        pass
    assert len(heard) == 1 and "process 4242 on host node-elsewhere" in heard[0], heard
    assert "its heartbeat is 3600 s old, more than the 60 s limit" in heard[0], heard

    _plant(path, "busy", host="node-elsewhere", pid=4242, age_s=1)
    with pytest.raises(RunBusyError, match=r"run 'busy' is being run by process 4242 on host node-elsewhere"):
        RunLease(path, "busy", notify=heard.append).acquire()


def test_the_heartbeat_is_renewed_while_the_run_lives(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite"
    connect(path, SCHEMA).close()
    with closing(sqlite3.connect(path, isolation_level=None)) as conn:
        with RunLease(path, "beat", notify=print, heartbeat_s=0.05):
            first = conn.execute("SELECT heartbeat FROM leases").fetchone()[0]
            deadline = time.monotonic() + 10
            while conn.execute("SELECT heartbeat FROM leases").fetchone()[0] == first:
                assert time.monotonic() < deadline, "the heartbeat never moved"
                time.sleep(0.02)
        assert conn.execute("SELECT COUNT(*) FROM leases").fetchone() == (0,)


def test_the_library_honours_the_lease(isolated_home: Path) -> None:
    """``nationbias.run`` on a run another holder runs refuses before asking anything."""
    refused = pytest.raises(RunBusyError, match="run 'lib' is being run by process")
    with RunStore().lease("lib", notify=print), refused:
        nationbias.run("vote", model="fake:hash", limit=1, repeats=1, run_id="lib", show_progress=False)
    assert RunStore().runs_frame().empty  # nothing was recorded
    summary = nationbias.run("vote", model="fake:hash", limit=1, repeats=1, run_id="lib", show_progress=False)
    assert summary.ok + summary.invalid == summary.total > 0
