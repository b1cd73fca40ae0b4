"""SIGTERM (what Slurm, `timeout`, Kubernetes and systemd send) and SIGHUP sent to a real `nationbias`
process mid-run are handled like the first Ctrl-C: no new call, the calls in flight are stored, the
summary line prints the command that resumes, exit 143 (129 for SIGHUP). A second signal stops at
once. A call the backend took down with it (the embedded model's worker, signalled with the whole
process group) is not stored and is counted in the summary."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from nationbias.graphs.model.errors import BackendFatalError
from nationbias.graphs.study.halt import Interrupted, RunHalted
from nationbias.graphs.study.runner import Task, run_tasks
from nationbias.stores.runstore import RunStore, SampleRow
from tests.support.fault_server import FaultConfig
from tests.support.fixtures import FaultServerFactory
from tests.support.reliability import (
    MODEL,
    REPO,
    cli_command,
    cli_env,
    fault_server_process,
    rows,
    wait_for_samples,
)

CONCURRENCY = 8
TOTAL = 20 * 5  # 20 drafts x the P5, one repeat


def _launch(args: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[str]:
    """In a session of its own: the signal goes to it alone, as a scheduler's goes to its job."""
    with log.open("a") as out:
        return subprocess.Popen(
            cli_command(*args), env=env, cwd=REPO, stdout=out, stderr=subprocess.STDOUT, text=True,
            start_new_session=True,
        )  # fmt: skip


def _args(run_id: str) -> list[str]:
    sample = ["--limit", "20", "--repeats", "1", "--concurrency", str(CONCURRENCY)]
    return ["run", "vote", "-m", MODEL, *sample, "--progress-every", "1", "--run-id", run_id]


@pytest.mark.timeout(180)
def test_sigterm_mid_run_stores_every_paid_call_and_prints_the_resume_command(tmp_path: Path) -> None:
    run_id, home, log = "sigterm", tmp_path / "home", tmp_path / "cli.log"
    with fault_server_process("--latency", "0.5") as server:  # calls stay in flight long enough
        process = _launch(_args(run_id), cli_env(home, server.base_url), log)
        wait_for_samples(process, home, run_id, 10)
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=60) == 143, log.read_text()[-3000:]
        answered = sum(server.prompt_counts().values())
    output = log.read_text()
    stored = rows(home, run_id)
    assert 10 <= len(stored) < TOTAL, output
    assert answered == len(stored), (answered, len(stored))  # every paid call is stored
    assert all(r["status"] == "ok" for r in stored)
    assert "Traceback" not in output, output
    assert "SIGTERM: no new calls; waiting up to 20 s for the calls in flight" in output, output
    assert "interrupted: SIGTERM: no new calls were made and the calls in flight were stored" in output
    summary = [line for line in output.splitlines() if line.startswith("summary: ")]
    assert len(summary) == 1 and "exit 143" in summary[0], output
    assert summary[0].endswith(f"--run-id {run_id}") and "nationbias run vote" in summary[0], summary[0]


@pytest.mark.timeout(180)
def test_sighup_then_a_second_signal_stops_at_once(tmp_path: Path, fault_server: FaultServerFactory) -> None:
    """Once the server hangs, SIGHUP would wait out the (long) grace period; a second signal cancels
    the calls in flight and the run ends at once, keeping what was stored; exit 129 (SIGHUP's)."""
    run_id, home, log = "sighup", tmp_path / "home", tmp_path / "cli.log"
    server = fault_server(latency_s=0.05)
    process = _launch(_args(run_id), cli_env(home, server.base_url, NATIONBIAS_GRACE_S="600"), log)
    wait_for_samples(process, home, run_id, 5)
    server.config = FaultConfig(rate_timeout=1.0, hang_s=600.0)  # every call from now on hangs
    hanging = server.count()
    while server.count() < hanging + CONCURRENCY:  # every lane is waiting on a hung call
        assert process.poll() is None, log.read_text()[-3000:]
        time.sleep(0.05)
    stored = len(rows(home, run_id))
    process.send_signal(signal.SIGHUP)
    while "SIGHUP: no new calls" not in log.read_text():
        assert process.poll() is None, log.read_text()[-3000:]
        time.sleep(0.05)
    assert process.poll() is None  # the first signal waits for the calls in flight
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=30) == 129, log.read_text()[-3000:]
    output = log.read_text()
    assert "second SIGTERM: stopping now" in output, output
    assert "interrupted: SIGHUP: the calls still in flight were cancelled" in output, output
    assert "Traceback" not in output, output
    assert len(rows(home, run_id)) == stored  # nothing lost, nothing half-written


def test_a_call_lost_with_the_backend_after_sigterm_is_not_stored_and_is_counted(tmp_path: Path) -> None:
    """The real runner and a real SIGTERM to this process: the call that finishes in the grace period
    is stored; the one whose backend died with the signal (as the embedded model's worker does when
    a scheduler signals the process group) is not stored, not half-stored, and counted as lost."""

    async def worker(task: Task) -> SampleRow:
        if task.item == "signals":
            os.kill(os.getpid(), signal.SIGTERM)
            await asyncio.sleep(0.3)  # in flight when the signal arrives: finishes in the grace period
        elif task.item == "dies":
            await asyncio.sleep(0.1)
            raise BackendFatalError("the embedded model's worker died of SIGTERM while answering a prompt")
        return SampleRow(test="t", item=task.item, persona="", repeat=0, status="ok", messages=[], raw="x")

    store = RunStore(tmp_path / "runs.sqlite")
    store.create_run("r", {"test": "t"})
    tasks = [Task(test="t", item=name) for name in ("signals", "dies", "later-1", "later-2")]

    async def main() -> None:
        await run_tasks(
            store=store, run_id="r", tasks=tasks, worker=worker, concurrency=2, show_progress=False, ramp_s=0
        )

    with pytest.raises(RunHalted) as caught:
        asyncio.run(main())
    fault, summary = caught.value.fault, caught.value.summary
    assert isinstance(fault, Interrupted) and fault.exit_code == 143
    assert summary.lost == 1 and summary.ok == 1 and summary.done == 1
    assert "1 call(s) in flight were lost" in str(fault), str(fault)
    assert store.done_ids("r") == {tasks[0].sample_id}  # the lost call left no row; no new call was made
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # given back after the run
    store.close()


def test_the_summary_line_counts_the_calls_lost_in_flight(capsys: pytest.CaptureFixture[str]) -> None:
    from nationbias.evals.cli.outcome import Outcome, summary_line
    from nationbias.graphs.study.runner import RunSummary

    outcome = Outcome(summaries=[RunSummary(run_id="r", total=10, ok=3, lost=2)], resume_id="r")
    summary_line(outcome, 143)
    line = capsys.readouterr().err.strip()
    assert line.startswith("summary: 3 done now, 7 to go · ok 3 · invalid 0 · error 0 · ")
    assert " · 2 lost in flight (not stored) · exit 143 · resume: --run-id r" in line, line
