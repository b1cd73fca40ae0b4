"""The test suite against its budgets, measured by running the README's two test commands.

The inner loop must finish in under 90 s (the median of three runs) and the full command in at most
10 minutes, on 2 cores. Tests added later keep to the same budget: this is the check, run side by side
in one session (never a timed assertion in a test). The commands are read from the README, so what is
measured is what a developer types.
"""

from __future__ import annotations

import re
import resource
import shlex
import statistics
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from benchmarks.common import REPO, Section, fmt_s, load_average

README = REPO / "README.md"
INNER_BUDGET_S = 90.0
FULL_BUDGET_S = 600.0
RUNS = 3
# --quick proves the harness on one small file (the inner-loop command, narrowed), once.
QUICK_TARGET = "tests/evals/test_metrics.py"
DURATION = re.compile(r"^[\d.]+s (call|setup|teardown) +\S")
SUMMARY = re.compile(
    r"^(?:=+ )?(?P<counts>\d+ \w+(?:, \d+ \w+)*) in [\d.]+s(?: \([\d:]+\))?(?: =+)?$", re.MULTILINE
)


@dataclass(frozen=True)
class SuiteRun:
    """One run of a test command: wall and CPU (pytest, its workers and their reaped children)."""

    wall_s: float
    cpu_s: float
    counts: dict[str, int]
    load: str
    returncode: int
    slowest: tuple[str, ...] = ()


def readme_commands(readme: Path = README) -> tuple[list[str], list[str]]:
    """The README's full test command and its inner loop, as argument lists after ``uv sync &&``."""
    found = [
        line.strip().rsplit("&&", 1)[-1].strip()
        for line in readme.read_text(encoding="utf-8").splitlines()
        if line.strip().split("&&")[-1].strip().startswith("uv run pytest")
    ]
    full = [shlex.split(c) for c in found if " -m " not in c]
    inner = [shlex.split(c) for c in found if " -m " in c]
    if len(full) != 1 or len(inner) != 1:
        raise ValueError(f"{readme}: expected one full test command and one inner loop, found {found}")
    return full[0], inner[0]


def parse_counts(output: str) -> dict[str, int]:
    """pytest's last summary line as counts: ``1186 passed, 1 xfailed`` → {"passed": 1186, "xfailed": 1}."""
    matches = list(SUMMARY.finditer(output))
    if not matches:
        raise ValueError(f"no pytest summary line in the output's end: {output[-500:]!r}")
    counts: dict[str, int] = {}
    for part in matches[-1]["counts"].split(","):
        number, _, kind = part.strip().partition(" ")
        counts[kind] = int(number)
    return counts


def run_once(command: list[str], *, timeout_s: float) -> SuiteRun:
    load = load_average()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=timeout_s)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return SuiteRun(wall, cpu, parse_counts(done.stdout), load, done.returncode, slowest(done.stdout))


def slowest(output: str, n: int = 5) -> tuple[str, ...]:
    """The first ``n`` lines of pytest's ``--durations`` table, where the command asks for one."""
    _, found, table = output.partition("slowest ")
    lines = table.splitlines()[1:] if found else []
    return tuple(line.strip() for line in lines if DURATION.match(line.strip()))[:n]


def _describe(counts: dict[str, int]) -> str:
    return ", ".join(f"{n} {kind}" for kind, n in counts.items())


def _clean(run: SuiteRun) -> bool:
    """Passed, nothing failed or skipped (CI runs everything, so nothing may skip)."""
    return run.returncode == 0 and not {"failed", "error", "errors", "skipped"} & set(run.counts)


def run(quick: bool = False) -> Section:
    section = Section("suite", "The test suite against its budgets")
    full, inner = readme_commands()
    if quick:
        inner, runs = [*inner, QUICK_TARGET], 1
    else:
        runs = RUNS
    inner_runs = [run_once(inner, timeout_s=1800) for _ in range(runs)]
    median = statistics.median(r.wall_s for r in inner_runs)
    walls = ", ".join(fmt_s(r.wall_s) for r in inner_runs)
    section.add(
        f"inner loop, median of {runs}",
        fmt_s(median),
        f"< {fmt_s(INNER_BUDGET_S)}",
        None if quick else (median < INNER_BUDGET_S and all(map(_clean, inner_runs))),
        f"runs {walls}; CPU {', '.join(fmt_s(r.cpu_s) for r in inner_runs)}; "
        f"{_describe(inner_runs[-1].counts)}; load before each: {'; '.join(r.load for r in inner_runs)}",
    )
    if not quick:
        whole = run_once(full, timeout_s=3600)
        section.add(
            "the README's test command",
            fmt_s(whole.wall_s),
            f"<= {fmt_s(FULL_BUDGET_S)}",
            whole.wall_s <= FULL_BUDGET_S and _clean(whole),
            f"CPU {fmt_s(whole.cpu_s)}; {_describe(whole.counts)}; load before: {whole.load}",
        )
        section.notes.append(
            "The full command's slowest tests: " + "; ".join(f"`{t}`" for t in whole.slowest)
        )
    section.notes.append(
        "Commands, from the README: `"
        + shlex.join(inner)
        + "`"
        + ("" if quick else " and `" + shlex.join(full) + "`")
        + ". CPU is pytest's, its workers' and the children they reaped (the llama.cpp workers, the CLIs)."
    )
    return section
