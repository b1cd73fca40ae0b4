"""A native crash of the embedded backend through the real CLI: one clear line, exit 1, nothing lost.

The worker is tests/support/crashing_llama_worker.py: the real llama.cpp worker that really dies of
SIGILL or SIGSEGV (a real invalid read) on a chosen prompt, in the place llama.cpp runs.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from nationbias.stores.state.runstore import RunStore

REPO = Path(__file__).resolve().parents[2]
NATIONBIAS = Path(sys.executable).with_name("nationbias")  # the console script `uv run nationbias` runs
VOTE = [
    "run",
    "vote",
    "--model",
    "local:smollm2",
    "--limit",
    "1",
    "--repeats",
    "1",
    "--personas",
    "USA,FRA",  # two samples: one finished before the crash, one the rerun resumes
    "--concurrency",
    "2",
]


def nationbias(args: list[str], *, crash: tuple[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NATIONBIAS_LLAMA_THREADS": "1", "COLUMNS": "1000"}  # wide: no wrapped lines
    if crash is not None:
        env["NATIONBIAS_LLAMA_WORKER"] = "tests.support.crashing_llama_worker"
        env["NATIONBIAS_TEST_CRASH_SIGNAL"], env["NATIONBIAS_TEST_CRASH_AFTER"] = crash
    return subprocess.run(
        [str(NATIONBIAS), *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=800
    )


def error_line(done: subprocess.CompletedProcess[str]) -> str:
    """The one error line: exit status 1 (not 128 + signal), no traceback."""
    assert done.returncode == 1, (done.returncode, done.stderr[-2000:])
    lines = [line for line in done.stderr.splitlines() if "error:" in line]
    assert len(lines) == 1, done.stderr
    assert "Traceback" not in done.stderr
    return lines[0]


def test_sigill_mid_run_keeps_the_finished_sample_and_a_real_rerun_resumes() -> None:
    args = [*VOTE, "--run-id", "crashy"]
    done = nationbias(args, crash=("SIGILL", "1"))
    line = error_line(done)
    assert "llama.cpp worker process died of SIGILL (Illegal instruction) while answering a prompt" in line
    assert "portable llama.cpp build" in line and "uv sync --reinstall-package llama-cpp-python" in line
    assert "summary: 1 done now, 1 to go" in done.stderr and "--run-id crashy" in done.stderr

    kept = RunStore().samples_frame("crashy")
    assert len(kept) == 1  # the sample that died with the worker is not recorded
    assert kept["status"].isin(["ok", "invalid"]).all() and kept["raw"].map(bool).all()

    rerun = nationbias(args)  # the real worker
    assert rerun.returncode == 0, rerun.stderr[-2000:]
    assert "1 done now, 1 already done" in rerun.stdout
    frame = RunStore().samples_frame("crashy")
    assert len(frame) == 2 and frame["sample_id"].is_unique and frame["status"].ne("error").all()
    before = kept.set_index("sample_id")["raw"]
    assert frame.set_index("sample_id").loc[before.index, "raw"].equals(before)  # kept as it was


def test_a_real_segfault_on_the_first_prompt_is_the_same_clear_error() -> None:
    done = nationbias([*VOTE, "--run-id", "segv"], crash=("SIGSEGV", "0"))
    line = error_line(done)
    assert "died of SIGSEGV (Segmentation fault) while answering a prompt" in line
    assert "summary: 0 done now, 2 to go" in done.stderr and "--run-id segv" in done.stderr
    assert RunStore().samples_frame("segv").empty


def test_a_probe_that_crashes_stops_before_any_run_and_is_remembered() -> None:
    done = nationbias([*VOTE, "--run-id", "never"], crash=("SIGILL", "probe"))
    assert "died of SIGILL" in error_line(done)
    assert "never" not in set(RunStore().runs_frame().get("run_id", []))
    # The same build, the same worker: the remembered answer, no new child process needed.
    again = nationbias([*VOTE, "--run-id", "never"], crash=("SIGBUS", "probe"))
    line = error_line(again)
    assert "died of SIGILL" in line and "remembered from" in line and "nationbias models --recheck" in line
    models = nationbias(["models"], crash=("SIGBUS", "probe"))
    assert models.returncode == 0
    assert "no: the embedded model's llama.cpp worker process died of SIGILL" in models.stdout


def test_a_bus_error_in_another_test_is_the_same_clear_error() -> None:
    args = ["run", "directqa", "--model", "local:smollm2", "--limit", "1", "--repeats", "1"]
    assert "died of SIGBUS (Bus error)" in error_line(nationbias(args, crash=("SIGBUS", "0")))
