"""Helpers for tests/reliability: the fault server and `nationbias` as real subprocesses, and the stores
read from outside (the way a researcher's second terminal would)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import httpx

REPO = Path(__file__).resolve().parents[2]
MODEL = "openai-compatible:fault-model"


@dataclass
class ServerProcess:
    """A fault server running as its own process (``python -m tests.support.fault_server``)."""

    process: subprocess.Popen[str]
    base_url: str

    @property
    def root_url(self) -> str:
        return self.base_url.removesuffix("/v1")

    def stats(self) -> dict[str, Any]:
        reply = httpx.get(f"{self.root_url}/stats", timeout=10)
        reply.raise_for_status()
        stats: dict[str, Any] = reply.json()
        return stats

    def prompt_counts(self) -> dict[str, int]:
        """Model calls so far per prompt key (sha256 of the messages, see ``fake_answers.prompt_key``).

        Requests whose body never fully arrived (a client SIGKILLed mid-send gets a 400 and no
        answer) are not model calls and are left out.
        """
        prompts = self.stats()["prompts"].items()
        counts = {key: p["total"] - p["by_outcome"].get("bad_request", 0) for key, p in prompts}
        return {key: n for key, n in counts.items() if n}


@contextmanager
def fault_server_process(*flags: str) -> Iterator[ServerProcess]:
    """Start the fault server CLI with ``flags``; its first stdout line is the base URL."""
    command = [sys.executable, "-m", "tests.support.fault_server", "--port", "0", *flags]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, cwd=REPO)
    try:
        assert process.stdout is not None
        base_url = process.stdout.readline().strip()
        assert base_url.startswith("http://127.0.0.1:"), f"fault server printed {base_url!r}"
        yield ServerProcess(process=process, base_url=base_url)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def cli_command(*args: str) -> list[str]:
    """`nationbias ARGS` run by this interpreter (the venv's), independent of PATH."""
    return [sys.executable, "-c", "from nationbias.evals.cli.main import app; app()", *args]


def cli_env(home: Path, base_url: str, **extra: str) -> dict[str, str]:
    """The environment of a CLI subprocess: its own NATIONBIAS_HOME and the server's URL."""
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(
        NATIONBIAS_HOME=str(home),
        NATIONBIAS_BASE_URL=base_url,
        PYTHONUNBUFFERED="1",
        COLUMNS="200",
        **extra,
    )
    return env


def launch(args: Sequence[str], env: Mapping[str, str], log: IO[str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        cli_command(*args), env=dict(env), cwd=REPO, stdout=log, stderr=subprocess.STDOUT, text=True
    )


def sample_count(home: Path, run_id: str) -> int:
    """Samples recorded for ``run_id`` so far, read by a separate connection (0 before the store exists)."""
    path = home / "runs.sqlite"
    if not path.exists():
        return 0
    try:
        with closing(sqlite3.connect(path, timeout=30)) as conn:
            row = conn.execute("SELECT COUNT(*) FROM samples WHERE run_id = ?", (run_id,)).fetchone()
    except sqlite3.OperationalError:  # the schema is not there yet
        return 0
    return int(row[0])


def wait_for_samples(
    process: subprocess.Popen[str], home: Path, run_id: str, at_least: int, *, timeout_s: float = 180
) -> int:
    """Poll the run store until ``at_least`` samples are in; fail if the process ends first."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        count = sample_count(home, run_id)
        if count >= at_least:
            return count
        if process.poll() is not None:
            raise AssertionError(f"{run_id}: the run ended (rc {process.returncode}) at {count} samples")
        time.sleep(0.005)
    raise AssertionError(f"{run_id}: fewer than {at_least} samples after {timeout_s}s")


def rows(home: Path, run_id: str) -> list[dict[str, Any]]:
    """Every sample row of ``run_id`` as stored, JSON columns decoded."""
    with closing(sqlite3.connect(home / "runs.sqlite")) as conn:
        conn.row_factory = sqlite3.Row
        found = conn.execute("SELECT * FROM samples WHERE run_id = ? ORDER BY sample_id", (run_id,))
        out = []
        for row in found:
            record = dict(row)
            for column in ("messages", "parsed", "extra"):
                record[column] = json.loads(record[column]) if record[column] is not None else None
            out.append(record)
    return out


def cache_entries(home: Path) -> list[dict[str, Any]]:
    """The cached responses (decoded), read straight from ``cache.sqlite``."""
    with closing(sqlite3.connect(home / "cache.sqlite")) as conn:
        return [json.loads(r[0]) for r in conn.execute("SELECT response FROM responses")]


def files_under(*roots: Path) -> dict[str, int]:
    """Every file (relative path -> size) under ``roots`` that exist."""
    found: dict[str, int] = {}
    for root in roots:
        if root.exists():
            for path in root.rglob("*"):
                if path.is_file():
                    found[str(path)] = path.stat().st_size
    return found
