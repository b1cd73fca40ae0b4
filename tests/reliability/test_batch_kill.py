"""A batch run SIGKILLed while its batch runs on the server, resumed, SIGKILLed again in the middle
of ingesting the results, resumed: the server saw no custom id twice, and no result was lost."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import nationbias
from tests.support.batch_helpers import MODEL, comparable
from tests.support.batch_server import BatchServer
from tests.support.reliability import REPO, cli_env, launch

RUN = ["run", "vote", "-m", MODEL, "--limit", "2", "--repeats", "1", "--batch", "--run-id", "killed"]


def _count(path: Path, sql: str) -> int:
    if not path.exists():
        return 0
    try:
        with closing(sqlite3.connect(path, timeout=30)) as conn:
            return int(conn.execute(sql).fetchone()[0])
    except sqlite3.OperationalError:  # the table is not there yet
        return 0


def _kill_when(process, ready: Callable[[], bool], log: Path, timeout_s: float = 240) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout_s
    while not ready():
        assert process.poll() is None, f"the run ended before the kill:\n{log.read_text()}"
        assert time.monotonic() < deadline, log.read_text()
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait(30)


def test_killed_twice_resumes_without_resubmitting_or_losing(
    fault_server, batch_server, tmp_path: Path, isolated_home: Path
) -> None:
    online = fault_server()
    options = {"limit": 2, "repeats": 1, "show_progress": False}
    nationbias.run("vote", model=MODEL, base_url=online.base_url, run_id="online", **options)
    server: BatchServer = batch_server(delay_s=1e9)  # never done until the test says so
    home, log = tmp_path / "killed-home", tmp_path / "cli.log"
    env = cli_env(home, server.base_url, NATIONBIAS_BATCH_POLL_S="0.1")

    # 1. killed while its batch runs on the server
    with log.open("w") as out:
        process = launch(RUN, env, out)
        _kill_when(process, lambda: bool(server.app.state.batches), log)
    assert sum(server.submitted.values()) == 10

    # 2. resumed (`runs resume`): it finds its batch, waits, and is killed halfway through ingesting
    server.app.config.delay_s = 0.0
    slow = {**env, "NATIONBIAS_BATCH_INGEST_DELAY_S": "0.5"}
    cache = home / "cache.sqlite"
    with log.open("a") as out:
        process = launch(["runs", "resume", "killed"], slow, out)
        _kill_when(process, lambda: _count(cache, "SELECT COUNT(*) FROM responses") >= 2, log)
    assert 2 <= _count(cache, "SELECT COUNT(*) FROM responses") < 10  # killed mid-ingest
    assert _count(home / "runs.sqlite", "SELECT COUNT(*) FROM samples") == 0

    # 3. resumed again (the same command and --run-id): it ingests again and completes
    with log.open("a") as out:
        assert launch(RUN, env, out).wait(300) == 0, log.read_text()

    assert len(server.app.state.batches) == 1 and max(server.submitted.values()) == 1
    assert comparable(home, "killed") == comparable(isolated_home, "online")


def test_ctrl_c_leaves_the_batch_running_and_says_how_to_resume(batch_server, tmp_path: Path) -> None:
    server: BatchServer = batch_server(delay_s=1e9)
    home, log = tmp_path / "home", tmp_path / "cli.log"
    env = cli_env(home, server.base_url, NATIONBIAS_BATCH_POLL_S="0.1")
    code = "import signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
    command = [sys.executable, "-c", code + "from nationbias.evals.cli.main import app; app()", *RUN]
    with log.open("w") as out:
        process = subprocess.Popen(command, env=env, cwd=REPO, stdout=out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 240
        while not server.app.state.batches:
            assert process.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.05)
        time.sleep(0.5)  # polling now
        process.send_signal(signal.SIGINT)
        assert process.wait(60) == 130, log.read_text()
    said = " ".join(log.read_text().split())
    assert "keeps running on the server; resume: nationbias runs resume killed" in said

    server.app.config.delay_s = 0.0
    with log.open("a") as out:
        assert launch(["runs", "resume", "killed"], env, out).wait(300) == 0, log.read_text()
    assert len(server.app.state.batches) == 1 and max(server.submitted.values()) == 1
    assert _count(home / "runs.sqlite", "SELECT COUNT(*) FROM samples") == 10
