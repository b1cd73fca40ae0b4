"""A full disk under NATIONBIAS_HOME: the run stops issuing calls at the first failed write, keeps
what it stored, says which file and why in one line, exits 1; after space is freed, rerunning the
same --run-id asks only for what was not stored (the fault server counts every call).

The home is on a real 16 MB tmpfs whose free space is cut to ~400 KB by a ballast file (where the
mount is refused, the CLI child runs under RLIMIT_FSIZE instead: tests/support/small_fs.py).
"""

from __future__ import annotations

import sqlite3
import subprocess
from contextlib import closing
from pathlib import Path

import pytest
from typer.testing import CliRunner

from nationbias.evals.cli.main import app
from tests.support.reliability import (
    MODEL,
    REPO,
    cli_command,
    cli_env,
    fault_server_process,
    rows,
)
from tests.support.small_fs import SmallFilesystem, small_filesystem

CONCURRENCY = 8
TOTAL = 66 * 5  # every non-adopted draft x the P5, one repeat: more than 400 KB of rows and cache
CAUSES = ("No space left on device", "disk I/O error")  # tmpfs: ENOSPC; RLIMIT_FSIZE: EFBIG


def _run(fs: SmallFilesystem, home: Path, base_url: str, args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        cli_command(*args),
        env=cli_env(home, base_url),
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=fs.preexec(),
    )


def _cache_size(home: Path) -> int:
    path = home / "cache.sqlite"
    if not path.exists():
        return 0
    with closing(sqlite3.connect(path)) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0])


@pytest.mark.timeout(600)
@pytest.mark.parametrize("cache", [True, False], ids=["cache-and-run-store", "run-store-only"])
def test_full_disk_stops_at_the_first_failed_write_and_resume_pays_only_for_the_rest(
    tmp_path: Path, cache: bool
) -> None:
    run_id = "full-disk"
    args = ["run", "vote", "-m", MODEL, "--repeats", "1", "--concurrency", str(CONCURRENCY)]
    args += ["--run-id", run_id] + ([] if cache else ["--no-cache"])
    with (
        fault_server_process("--latency", "0.02") as server,
        small_filesystem(tmp_path / "small") as fs,
    ):
        home = fs.root / "home"
        first = _run(fs, home, server.base_url, args)
        output = first.stdout + first.stderr
        asked_first = sum(server.prompt_counts().values())
        stored_first = rows(home, run_id)
        kept = _cache_size(home) if cache else len(stored_first)

        # one line naming the file and the cause, no traceback, exit 1, the command that resumes
        assert first.returncode == 1, output
        assert "Traceback" not in output, output
        failed = [line for line in output.splitlines() if line.startswith("error: cannot write ")]
        assert len(failed) == 1, output
        assert str(home) in failed[0] and any(cause in failed[0] for cause in CAUSES), failed[0]
        summary = [line for line in output.splitlines() if line.startswith("summary: ")]
        assert len(summary) == 1 and f"--run-id {run_id}" in summary[0] and "exit 1" in summary[0]

        # calls stopped at the first failed write: what was paid for and not kept was in flight
        assert 0 < len(stored_first) < TOTAL and asked_first < TOTAL // 2, (asked_first, fs.kind)
        assert all(r["status"] == "ok" for r in stored_first)  # a failed write is no sample error
        assert asked_first - kept <= CONCURRENCY, (asked_first, kept)

        # space freed: the same command completes and asks only for what was not kept
        fs.free()
        second = _run(fs, home, server.base_url, args)
        assert second.returncode == 0, second.stdout + second.stderr
        asked_second = sum(server.prompt_counts().values()) - asked_first
        final = rows(home, run_id)
        assert len(final) == TOTAL == len({r["sample_id"] for r in final})
        assert all(r["status"] == "ok" for r in final)
        assert asked_second == TOTAL - kept, (asked_second, TOTAL, kept)


@pytest.mark.timeout(600)
def test_full_disk_under_the_debias_checkpoints_resumes_each_sample_where_it_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With ``--no-cache`` the checkpoints are the only record of a debias sample's paid calls: a failed
    checkpoint commit stops the run, and the resume redoes at most the nodes that were not stored
    (the calls in flight, and the nodes of the one failed commit: at most a call per lane each)."""
    run_id = "full-disk-debias"
    args = ["run", "vote", "-m", MODEL, "--debias", "--k", "1", "--limit", "12", "--repeats", "1"]
    args += ["--no-cache", "--concurrency", str(CONCURRENCY), "--run-id", run_id]
    with fault_server_process("--latency", "0.02") as server:
        # the uninterrupted reference in this process (the full disk needs the child, the reference not)
        reference_home = tmp_path / "reference"
        monkeypatch.setenv("NATIONBIAS_HOME", str(reference_home))
        monkeypatch.setenv("NATIONBIAS_BASE_URL", server.base_url)
        reference = CliRunner().invoke(app, args)
        assert reference.exit_code == 0, reference.output
        asked_reference = sum(server.prompt_counts().values())
        with small_filesystem(tmp_path / "small", room_kb=300) as fs:
            home = fs.root / "home"
            first = _run(fs, home, server.base_url, args)
            output = first.stdout + first.stderr
            assert first.returncode == 1, output
            assert "Traceback" not in output, output
            failed = [line for line in output.splitlines() if line.startswith("error: cannot write ")]
            assert len(failed) == 1 and str(home) in failed[0], output
            assert len(rows(home, run_id)) < 60
            fs.free()
            second = _run(fs, home, server.base_url, args)
            assert second.returncode == 0, second.stdout + second.stderr
            final = rows(home, run_id)
        asked = sum(server.prompt_counts().values()) - asked_reference
    assert len(final) == 60 and all(r["status"] == "ok" for r in final)
    want = {r["sample_id"]: r["raw"] for r in rows(reference_home, run_id)}
    assert {r["sample_id"]: r["raw"] for r in final} == want
    assert asked_reference <= asked <= asked_reference + 2 * CONCURRENCY, (asked, asked_reference)
