"""An Assembly vote study at scale: 20,000 samples against a 500 ms OpenAI-compatible server, c=256.

Each phase runs the library in its own process (``python -m benchmarks.assembly_scale child ...``), so
its peak resident memory is the study's alone and a kill -9 is a real one. Measured in one run:
efficiency (the bound ``calls × latency ÷ concurrency`` over the runner's wall time, start-up
excluded), peak RSS, a rerun answered from the response cache (whole process), the report's render
time (whole ``nationbias report`` process), and a study killed -9 part-way and resumed: every sample
stored once, and the server's count of calls against the samples (only calls in flight at the kill
may be asked again). The full Assembly (every state × every roll call) is projected from these.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from benchmarks.common import REPO, Section, fault_server_process, fmt_s, fresh_home

LATENCY_S = 0.5
CONCURRENCY = 256
SAMPLES = 20_000
YEARS = "2005-2019"
TARGETS = {"efficiency": 0.85, "rss_mb": 2048.0, "cached_s": 60.0, "report_s": 60.0}
FULL_SAMPLES = 870_107  # every recorded yes/no/abstain vote, 1946-2020 (stores/corpora/unga.py)


def study_size(samples: int) -> tuple[int, int]:
    """The fewest roll calls (seed 0, every state present) giving at least ``samples`` samples."""
    from nationbias.graphs.study.sampling import SampleOptions, load_items, select_drafts, vote_tasks

    base = SampleOptions(body="unga", years=(2005, 2019), personas="all", repeats=1)
    corpus = load_items(base)
    limit = samples // 150
    while True:
        options = SampleOptions(body="unga", years=(2005, 2019), personas="all", repeats=1, limit=limit)
        total = len(vote_tasks("vote", select_drafts(corpus, options), options))
        if total >= samples:
            return limit, total
        limit += max(1, (samples - total) // 170)


def child(base_url: str, run_id: str, limit: int) -> None:
    """One study in this process; prints its summary and peak RSS as JSON."""
    import nationbias
    from nationbias.graphs.study.runner import frozen_gc

    with frozen_gc():  # as the CLI runs a study
        summary = nationbias.run(
            "vote", model="openai-compatible:bench", base_url=base_url, body="unga", years=YEARS,
            personas="all", limit=limit, repeats=1, concurrency=CONCURRENCY, run_id=run_id,
            show_progress=False,
        )  # fmt: skip
    rss_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"wall_s": summary.wall_s, "total": summary.total, "ok": summary.ok, "rss_kb": rss_kb}))


def _child(base_url: str, run_id: str, limit: int) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "benchmarks.assembly_scale", "child", base_url, run_id, str(limit)]
    return subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, text=True, env=dict(os.environ))


def _finish(proc: subprocess.Popen[str]) -> dict[str, Any]:
    out, _ = proc.communicate()
    if proc.returncode != 0:
        raise RuntimeError(f"study process exited {proc.returncode}")
    return dict(json.loads(out.strip().splitlines()[-1]))


def _server_total(base_url: str) -> int:
    return int(httpx.get(f"{base_url.removesuffix('/v1')}/stats", timeout=10).json()["total"])


def _report(home: Path, out: str) -> float:
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "nationbias.evals.cli.main", "report", "scale", "--out", str(home / out)],
        cwd=REPO, check=True, capture_output=True,
    )  # fmt: skip
    return time.perf_counter() - started


def _stored(run_id: str) -> tuple[int, int]:
    from nationbias.stores.state.runstore import RunStore

    frame = RunStore().samples_frame(run_id)
    return len(frame), int(frame["sample_id"].duplicated().sum())


def run(quick: bool = False) -> Section:
    section = Section(
        "assembly_scale", f"An Assembly vote study at scale ({LATENCY_S * 1000:.0f} ms, c={CONCURRENCY})"
    )
    limit, total = study_size(2_000 if quick else SAMPLES)
    with fault_server_process(LATENCY_S) as base_url, fresh_home("assembly") as home:
        before = _server_total(base_url)
        first = _finish(_child(base_url, "scale", limit))
        calls = _server_total(base_url) - before
        bound = calls * LATENCY_S / CONCURRENCY
        efficiency = bound / first["wall_s"]
        rss_mb = first["rss_kb"] / 1024
        started = time.perf_counter()
        _finish(_child(base_url, "scale-cached", limit))
        cached_s = time.perf_counter() - started
        cached_calls = _server_total(base_url) - before - calls
        report_cold_s = _report(home, "report-cold")  # fits the run's Assembly baselines and stores them
        report_s = _report(home, "report")
        size_mb = sum(p.stat().st_size for p in Path(home).glob("runs.sqlite*")) / 2**20
    with fault_server_process(LATENCY_S) as base_url, fresh_home("assembly-kill"):
        proc = _child(base_url, "killed", limit)
        while _server_total(base_url) < total // 2:
            time.sleep(0.2)
        proc.kill()  # SIGKILL: no handler runs
        proc.wait()
        stored_at_kill, _ = _stored("killed")
        resumed = _finish(_child(base_url, "killed", limit))
        asked = _server_total(base_url)
        stored, duplicated = _stored("killed")
    section.add("samples", f"{first['total']:,}", note=f"{limit} roll calls of {YEARS} × every state present")
    section.add("efficiency (bound ÷ wall)", f"{efficiency:.3f}", f"≥ {TARGETS['efficiency']}",
                efficiency >= TARGETS["efficiency"],
                f"{calls:,} calls; wall {fmt_s(first['wall_s'])} vs bound {fmt_s(bound)}")  # fmt: skip
    section.add("peak RSS of the study process", f"{rss_mb:.0f} MB", f"< {TARGETS['rss_mb']:.0f} MB",
                rss_mb < TARGETS["rss_mb"], "ru_maxrss, data loading included")  # fmt: skip
    section.add("cached rerun, whole process", fmt_s(cached_s), f"< {TARGETS['cached_s']:.0f} s",
                cached_s < TARGETS["cached_s"], f"{cached_calls} calls reached the server")  # fmt: skip
    section.add("report for the run, whole process", fmt_s(report_s), f"< {TARGETS['report_s']:.0f} s",
                report_s < TARGETS["report_s"], "the run's Assembly baselines already stored")  # fmt: skip
    section.add("first report, whole process", fmt_s(report_cold_s), note="fits the 15 yearly Assembly "
                "models once per data copy, roll calls and states, and stores their predictions")  # fmt: skip
    lost = total - stored
    section.add("kill -9 at half, resume: samples lost / stored twice", f"{lost} / {duplicated}", "0 / 0",
                lost == 0 and duplicated == 0 and resumed["total"] == total,
                f"{stored_at_kill:,} stored at the kill; the server answered {asked:,} calls for {total:,} "
                f"samples ({asked - total} asked again: in flight at the kill, ≤ {CONCURRENCY})")  # fmt: skip
    per_call = first["wall_s"] / calls
    mb_per_sample = size_mb / total
    section.notes.append(
        f"Projection for the full Assembly ({FULL_SAMPLES:,} samples, one call each): at c={CONCURRENCY} "
        f"and {LATENCY_S * 1000:.0f} ms, {fmt_s(FULL_SAMPLES * per_call)} (measured "
        f"{per_call * 1000:.2f} ms of wall per call); a provider limit of R requests/minute caps it at "
        f"{FULL_SAMPLES:,}/R minutes (e.g. {FULL_SAMPLES / 10_000:.0f} min at 10,000 RPM). Run store: "
        f"{mb_per_sample * 1000:.2f} MB per 1,000 samples here, so about "
        f"{mb_per_sample * FULL_SAMPLES / 1024:.1f} GB for the full study; the report reads the samples "
        f"once, so its time grows about linearly: about {fmt_s(report_s * FULL_SAMPLES / total)}."
    )
    return section


if __name__ == "__main__":
    if sys.argv[1:2] == ["child"]:
        child(sys.argv[2], sys.argv[3], int(sys.argv[4]))
