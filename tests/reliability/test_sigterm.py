"""SIGTERM (what Slurm, `timeout`, Kubernetes and systemd send) and SIGHUP sent to a real `nationbias`
process mid-run are handled like the first Ctrl-C: no new call, the calls in flight are stored, the
summary line prints the command that resumes, exit 143 (129 for SIGHUP). A second signal stops at
once. A call the backend took down with it (the embedded model's worker, signalled with the whole
process group) is not stored and is counted in the summary."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import pytest

from nationbias.graphs.model.errors import BackendFatalError
from nationbias.graphs.study import runner
from nationbias.graphs.study.halt import Interrupted, RunHalted
from nationbias.graphs.study.runner import Task, run_tasks
from nationbias.stores.state.runstore import RunStore, SampleRow
from tests.support.fixtures import FaultServerFactory
from tests.support.reliability import cli_env, fault_server_process
from tests.support.signals import (
    a_second_signal_stops_at_once,
    first_signal_stores_the_calls_in_flight,
    launch,
    run_args,
)

PROGRESS = ("--progress-every", "1")  # progress lines on the console while the signal arrives


@pytest.mark.timeout(180)
def test_sigterm_mid_run_stores_every_paid_call_and_prints_the_resume_command(tmp_path: Path) -> None:
    run_id, home, log = "sigterm", tmp_path / "home", tmp_path / "cli.log"
    with fault_server_process("--latency", "0.5") as server:  # calls stay in flight long enough
        process = launch(run_args(run_id, *PROGRESS), cli_env(home, server.base_url), log)
        output, _, summary = first_signal_stores_the_calls_in_flight(
            process, server, home=home, run_id=run_id, log=log, signum=signal.SIGTERM, exit_code=143
        )
    assert "SIGTERM: no new calls; waiting up to 20 s for the calls in flight" in output, output
    assert "interrupted: SIGTERM: no new calls were made and the calls in flight were stored" in output
    assert "nationbias run vote" in summary, summary


@pytest.mark.timeout(180)
def test_sighup_then_a_second_signal_stops_at_once(tmp_path: Path, fault_server: FaultServerFactory) -> None:
    """Once the server hangs, SIGHUP would wait out the (long) grace period; a second signal cancels
    the calls in flight and the run ends at once, keeping what was stored; exit 129 (SIGHUP's)."""
    output = a_second_signal_stops_at_once(
        fault_server, tmp_path, first=signal.SIGHUP, second=signal.SIGTERM, notice="SIGHUP: no new calls",
        exit_code=129, extra=PROGRESS,
    )  # fmt: skip
    assert "second SIGTERM: stopping now" in output, output
    assert "interrupted: SIGHUP: the calls still in flight were cancelled" in output, output


def test_a_call_lost_with_the_backend_after_sigterm_is_not_stored_and_is_counted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
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

    monkeypatch.setattr(runner, "RAMP_S", 0.0)  # both lanes take their first task before the signal
    store = RunStore(tmp_path / "runs.sqlite")
    store.create_run("r", {"test": "t"})
    tasks = [Task(test="t", item=name) for name in ("signals", "dies", "later-1", "later-2")]

    async def main() -> None:
        await run_tasks(
            store=store, run_id="r", tasks=tasks, worker=worker, concurrency=2, show_progress=False
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
