"""Two `nationbias run vote` processes writing one run store and one cache at once (same drafts, so the
same cache keys): no "database is locked", every sample of both runs stored, one cache entry per call."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.fixtures import FaultServerFactory
from tests.support.reliability import MODEL, cache_entries, cli_env, launch, rows

RUNS = ("writer-a", "writer-b")
ARGS = ["run", "vote", "-m", MODEL, "--limit", "30", "--repeats", "2", "--concurrency", "16"]  # 300 samples


@pytest.mark.timeout(300)
def test_two_processes_share_one_home(fault_server: FaultServerFactory, tmp_path: Path) -> None:
    server = fault_server(latency_s=0.02)
    home = tmp_path / "shared-home"
    env = cli_env(home, server.base_url)
    logs = {run_id: tmp_path / f"{run_id}.log" for run_id in RUNS}
    handles = {run_id: logs[run_id].open("w") for run_id in RUNS}
    try:
        processes = {run_id: launch([*ARGS, "--run-id", run_id], env, handles[run_id]) for run_id in RUNS}
        codes = {run_id: p.wait(timeout=240) for run_id, p in processes.items()}
    finally:
        for handle in handles.values():
            handle.close()
    output = {run_id: log.read_text() for run_id, log in logs.items()}
    assert codes == dict.fromkeys(RUNS, 0), output
    assert not [run_id for run_id, text in output.items() if "locked" in text.lower()], output

    for run_id in RUNS:
        stored = rows(home, run_id)
        assert len(stored) == len({r["sample_id"] for r in stored}) == 300
        assert {r["status"] for r in stored} == {"ok"}
    a, b = ({(r["sample_id"], r["raw"]) for r in rows(home, run_id)} for run_id in RUNS)
    assert a == b  # same prompts, same answers, whichever process asked
    assert len(cache_entries(home)) == 300  # one per (draft, persona, repeat), however they raced
    assert server.count() <= 600  # at worst both asked everything; never more
