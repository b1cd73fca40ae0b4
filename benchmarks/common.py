"""What every benchmark shares: result rows, fresh state folders, a fault server process, machine facts."""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


@dataclass
class Row:
    """One measured number, with its target (if any) and whether it was met."""

    metric: str
    value: str
    target: str = ""
    ok: bool | None = None
    note: str = ""


@dataclass
class Section:
    """One benchmark's rows plus free-text findings (profile summaries, caveats) for RESULTS.md."""

    name: str
    title: str
    rows: list[Row] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def add(self, metric: str, value: str, target: str = "", ok: bool | None = None, note: str = "") -> None:
        self.rows.append(Row(metric, value, target, ok, note))


@contextlib.contextmanager
def fresh_home(tag: str) -> Iterator[Path]:
    """A new, empty NATIONBIAS_HOME for one phase; the previous value is restored afterwards."""
    previous = os.environ.get("NATIONBIAS_HOME")
    with tempfile.TemporaryDirectory(prefix=f"nb-bench-{tag}-") as folder:
        os.environ["NATIONBIAS_HOME"] = folder
        try:
            yield Path(folder)
        finally:
            if previous is None:
                os.environ.pop("NATIONBIAS_HOME", None)
            else:
                os.environ["NATIONBIAS_HOME"] = previous


@contextlib.contextmanager
def fault_server_process(latency_s: float) -> Iterator[str]:
    """``python -m tests.support.fault_server`` in its own process (no faults); yields its base URL."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.support.fault_server", "--port", "0", "--latency", str(latency_s)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert proc.stdout is not None
        base_url = proc.stdout.readline().strip()
        if not base_url.startswith("http"):
            raise RuntimeError(f"fault server did not print its URL (got {base_url!r})")
        _wait_ready(base_url)
        yield base_url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


def _wait_ready(base_url: str, timeout_s: float = 20.0) -> None:
    import httpx

    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{base_url}/models", timeout=1.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.05)
    raise RuntimeError(f"fault server at {base_url} did not answer within {timeout_s} s")


def load_average() -> str:
    try:
        one, five, fifteen = os.getloadavg()
    except OSError:
        return "n/a"
    return f"{one:.2f} / {five:.2f} / {fifteen:.2f}"


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _ram_gib() -> str:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
    except OSError:
        pass
    return "n/a"


def git_commit() -> str:
    try:
        sha = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return f"{sha}{' (+ uncommitted changes)' if dirty else ''}"


def machine() -> dict[str, str]:
    return {
        "date": dt.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"),
        "cores": str(os.cpu_count()),
        "ram": _ram_gib(),
        "cpu": _cpu_model(),
        "python": platform.python_version(),
        "commit": git_commit(),
        "load average (1/5/15 min)": load_average(),
    }


def fmt_s(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms" if seconds < 1 else f"{seconds:.2f} s"
