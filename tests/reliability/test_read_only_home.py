"""A read-only NATIONBIAS_HOME (a real read-only bind mount, which stops root too): the commands that
only read (`runs list`, `runs export`, `report --out` elsewhere, `cache stats`) work; a run stops
before its first call with one line naming "read-only" (exit 2); nothing advises deleting the store,
and not a byte of the home changes."""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

from tests.support.fixtures import FaultServerFactory
from tests.support.reliability import MODEL, REPO, cli_command, cli_env, files_under

VOTE = ["run", "vote", "-m", MODEL, "--limit", "2", "--repeats", "1"]


def _read_only(home: Path, args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``nationbias ARGS`` in a mount namespace where ``home`` is bind-mounted read-only onto itself
    (as root; otherwise in a user namespace that maps this user to root, where the mount is allowed)."""
    namespace = ["unshare", "--mount"] + ([] if os.geteuid() == 0 else ["--map-root-user"])
    script = f'mount --bind -o ro {shlex.quote(str(home))} {shlex.quote(str(home))} && exec "$@"'
    command = [*namespace, "sh", "-c", script, "sh", *cli_command(*args)]
    return subprocess.run(command, env=env, cwd=REPO, capture_output=True, text=True, timeout=300)


def test_a_read_only_home_serves_reads_and_a_run_stops_naming_read_only(
    isolated_home: Path, fault_server: FaultServerFactory, tmp_path: Path
) -> None:
    server = fault_server()
    env = cli_env(isolated_home, server.base_url)
    # made by a process that has ended, as a user's home is: no -wal or -shm file left beside a store
    made = subprocess.run(cli_command(*VOTE, "--run-id", "r1"), env=env, cwd=REPO, capture_output=True)
    assert made.returncode == 0, made.stderr
    assert not list(isolated_home.glob("*.sqlite-*")), list(isolated_home.iterdir())
    before = files_under(isolated_home)
    asked = sum(server.prompt_counts().values())

    listed = _read_only(isolated_home, ["runs", "list"], env)
    assert listed.returncode == 0 and "r1" in listed.stdout, listed.stderr
    exported = _read_only(isolated_home, ["runs", "export", "r1"], env)
    assert exported.returncode == 0 and len(exported.stdout.splitlines()) == 1 + 10, exported.stderr
    stats = _read_only(isolated_home, ["cache", "stats"], env)
    assert stats.returncode == 0 and ": 10 responses" in stats.stdout, stats.stdout + stats.stderr
    out = tmp_path / "report"
    report = _read_only(isolated_home, ["report", "r1", "--out", str(out)], env)
    assert report.returncode == 0 and (out / "index.html").is_file(), report.stdout + report.stderr

    run = _read_only(isolated_home, [*VOTE, "--run-id", "r2"], env)
    assert run.returncode == 2, run.stdout + run.stderr
    errors = [line for line in run.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and "read-only" in errors[0], run.stderr
    assert "Traceback" not in run.stderr
    for result in (listed, exported, stats, report, run):
        assert "delete" not in result.stdout + result.stderr
    assert sum(server.prompt_counts().values()) == asked  # nothing was asked
    assert files_under(isolated_home) == before  # not a byte changed
