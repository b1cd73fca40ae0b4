"""The demo: wall time of ``nationbias demo`` in a subprocess with a fresh NATIONBIAS_HOME."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from benchmarks.common import REPO, Section, fmt_s, fresh_home, load_average

TARGET_S = 300.0
QUICK_ARGS = ["--drafts", "1", "--debias-drafts", "1", "--keywords", "1", "--repeats", "1"]


def time_demo(
    *, quick: bool, env: dict[str, str] | None = None
) -> tuple[float, subprocess.CompletedProcess[str]]:
    """Wall time of one ``nationbias demo`` in a subprocess with a fresh NATIONBIAS_HOME."""
    command = [sys.executable, "-m", "nationbias.evals.cli.main", "demo", *(QUICK_ARGS if quick else [])]
    with fresh_home("demo"):
        started = time.perf_counter()
        done = subprocess.run(
            command, cwd=REPO, capture_output=True, text=True, timeout=1800, env={**os.environ, **(env or {})}
        )
        return time.perf_counter() - started, done


def run(quick: bool = False) -> Section:
    section = Section("demo", "`nationbias demo` (embedded model, subprocess, fresh NATIONBIAS_HOME)")
    before = load_average()
    wall, done = time_demo(quick=quick)
    after = load_average()
    ok = done.returncode == 0
    section.add(
        "demo wall time" + (" (quick: smallest sizes)" if quick else ""),
        fmt_s(wall),
        "" if quick else f"< {TARGET_S / 60:g} min",
        None if quick else (ok and wall < TARGET_S),
        f"exit code {done.returncode}; load average before {before}, after {after}",
    )
    if not ok:
        section.notes.append(f"demo failed: {done.stderr.strip()[-800:]}")
    section.notes.append(
        "Measured only (not optimised here). The machine is shared: the load average (1/5/15 min) "
        "shows how many runnable processes competed for the 2 cores at the time."
    )
    return section
