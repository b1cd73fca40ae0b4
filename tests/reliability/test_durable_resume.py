"""Durable runs: a vote + debias study SIGKILLed five times at seeded random moments and resumed
with the same run ids loses nothing, duplicates nothing, pays for no completed call twice, and ends
with exactly the results of an uninterrupted run."""

from __future__ import annotations

import random
import signal
import time
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from typer.testing import CliRunner

from nationbias.evals.cli.main import app
from nationbias.evals.results import RESULT_TABLES, results
from nationbias.stores.state.runstore import RunStore
from tests.support.reliability import (
    MODEL,
    cli_env,
    fault_server_process,
    launch,
    rows,
    sample_count,
    wait_for_samples,
)

CONCURRENCY = 16
SEED = 20240607
# vote: 66 drafts x 5 P5 x 2 repeats = 660 samples; debias (k=1): 12 drafts x 5 P5 = 60 samples
STAGES: list[tuple[str, list[str], int, int]] = [
    ("durable-vote", ["--repeats", "2"], 660, 3),
    ("durable-debias", ["--debias", "--k", "1", "--limit", "12", "--repeats", "1"], 60, 2),
]


def _args(run_id: str, extra: list[str]) -> list[str]:
    return ["run", "vote", "-m", MODEL, *extra, "--concurrency", str(CONCURRENCY), "--run-id", run_id]


def _comparable(row: dict[str, Any]) -> dict[str, Any]:
    """A sample without what legitimately differs between runs (timings, cache hits)."""
    extra = row["extra"] or {}
    calls = [(c["node"], c["precedent"], c["messages"], c["raw"]) for c in extra.get("calls", [])]
    keep = ("sample_id", "status", "messages", "raw", "parsed", "parse_error", "error", "model_calls")
    return {
        **{k: row[k] for k in keep},
        "tokens": (row["prompt_tokens"], row["completion_tokens"]),
        "extra": {k: v for k, v in extra.items() if k not in ("cached", "calls")},
        "calls": calls,
    }


def _tables(home: Path, run_id: str) -> dict[str, pd.DataFrame]:
    store = RunStore(home / "runs.sqlite")
    try:
        return results(run_id, store=store)
    finally:
        store.close()


@pytest.mark.timeout(600)
def test_sigkilled_study_resumes_to_the_uninterrupted_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(SEED)
    with fault_server_process("--latency", "0.03") as server:
        # 1. the uninterrupted reference, in its own NATIONBIAS_HOME
        baseline_home = tmp_path / "baseline"
        monkeypatch.setenv("NATIONBIAS_HOME", str(baseline_home))
        monkeypatch.setenv("NATIONBIAS_BASE_URL", server.base_url)
        for run_id, extra, _, _ in STAGES:
            result = CliRunner().invoke(app, _args(run_id, extra))
            assert result.exit_code == 0, result.output
        reference = server.prompt_counts()  # with the cache on, each distinct call is asked once

        # 2. the same study, SIGKILLed at seeded moments and resumed with the same run ids
        home = tmp_path / "durable"
        env = cli_env(home, server.base_url)
        snapshots = [reference]
        killed_segments: list[int] = []
        kills = 0
        with (tmp_path / "cli.log").open("w") as log:
            for run_id, extra, total, n_kills in STAGES:
                thresholds = sorted(rng.sample(range(total // 20, total * 9 // 10), n_kills))
                for threshold in [*thresholds, None]:
                    before = sample_count(home, run_id)
                    process = launch(_args(run_id, extra), env, log)
                    if threshold is None:
                        assert process.wait(timeout=300) == 0, (tmp_path / "cli.log").read_text()[-3000:]
                    else:
                        wait_for_samples(process, home, run_id, max(threshold, before + 1))
                        time.sleep(rng.uniform(0.0, 0.03))
                        process.send_signal(signal.SIGKILL)
                        assert process.wait(timeout=30) == -signal.SIGKILL
                        killed_segments.append(len(snapshots))
                        kills += 1
                        time.sleep(0.3)  # let the server admit whatever was already on the wire
                    snapshots.append(server.prompt_counts())
        assert kills == 5
        final = snapshots[-1]

    # zero lost, zero duplicated: exactly the expected samples, each once, none failed
    for run_id, extra, total, _ in STAGES:
        got, want = rows(home, run_id), rows(baseline_home, run_id)
        assert len(got) == total == len({r["sample_id"] for r in got})
        assert [r["sample_id"] for r in got] == [r["sample_id"] for r in want]
        assert not [r["sample_id"] for r in got if r["status"] == "error"]
        # the per-sample values and the result tables equal those of the uninterrupted run
        for mine_row, their_row in zip(map(_comparable, got), map(_comparable, want), strict=True):
            differ = sorted(k for k in mine_row if mine_row[k] != their_row[k])
            assert not differ, (mine_row["sample_id"], {k: (mine_row[k], their_row[k]) for k in differ})
        test = "debias" if "--debias" in extra else "vote"
        mine, theirs = _tables(home, run_id), _tables(baseline_home, run_id)
        assert set(mine) == set(RESULT_TABLES[test])
        for name in RESULT_TABLES[test]:
            left, right = mine[name], theirs[name]
            if name == "metadata":
                left, right = left.drop(columns="created"), right.drop(columns="created")
            pd.testing.assert_frame_equal(left, right, obj=f"{run_id} {name}")

    # no call paid twice: per prompt, the interrupted study asked exactly what the reference asked,
    # plus what a kill caught in flight: per kill at most once per distinct call sharing the prompt
    # (the two repeats of a vote send the same messages) and at most CONCURRENCY calls in all
    asked = {key: final.get(key, 0) - reference.get(key, 0) for key in final}
    asked = {key: n for key, n in asked.items() if n}
    unexpected = {k: [snap.get(k, 0) for snap in snapshots] for k in set(asked) - set(reference)}
    assert not unexpected, f"prompts the reference never asked: {unexpected} (kills at {killed_segments})"
    assert set(asked) == set(reference)
    extra_asks = {key: asked[key] - reference[key] for key in reference if asked[key] != reference[key]}
    assert all(n > 0 for n in extra_asks.values()), "a prompt was asked less often than the reference"
    for key, n in extra_asks.items():
        in_flight_at = [s for s in killed_segments if snapshots[s].get(key, 0) > snapshots[s - 1].get(key, 0)]
        bound = len(in_flight_at) * reference[key]
        assert n <= bound, f"prompt {key[:12]} asked {n} extra time(s), in flight at kills {in_flight_at}"
    assert sum(extra_asks.values()) <= kills * CONCURRENCY


@pytest.mark.timeout(300)
def test_sigkilled_debias_without_cache_resumes_each_sample_at_its_last_node(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With ``--no-cache`` the per-node checkpoints are the only record of paid calls: a kill costs
    at most one call per sample in flight (the one on the wire), not each sample's earlier calls."""
    run_id, extra = (
        "nocache-debias",
        ["--debias", "--k", "1", "--limit", "10", "--repeats", "1", "--no-cache"],
    )
    rng = random.Random(SEED + 1)
    with fault_server_process("--latency", "0.1") as server:
        monkeypatch.setenv("NATIONBIAS_HOME", str(tmp_path / "baseline"))
        monkeypatch.setenv("NATIONBIAS_BASE_URL", server.base_url)
        result = CliRunner().invoke(app, _args(run_id, extra))
        assert result.exit_code == 0, result.output
        reference = server.prompt_counts()

        home = tmp_path / "durable"
        env = cli_env(home, server.base_url)
        total, kills = 50, 2
        with (tmp_path / "cli.log").open("w") as log:
            for threshold in [*sorted(rng.sample(range(5, 40), kills)), None]:
                before = sample_count(home, run_id)
                process = launch(_args(run_id, extra), env, log)
                if threshold is None:
                    assert process.wait(timeout=120) == 0, (tmp_path / "cli.log").read_text()[-3000:]
                    break
                wait_for_samples(process, home, run_id, max(threshold, before + 1))
                time.sleep(rng.uniform(0.0, 0.1))
                process.send_signal(signal.SIGKILL)
                assert process.wait(timeout=30) == -signal.SIGKILL
                time.sleep(0.3)
        final = server.prompt_counts()

    got, want = rows(home, run_id), rows(tmp_path / "baseline", run_id)
    assert len(got) == total == len({r["sample_id"] for r in got})
    assert not [r["sample_id"] for r in got if r["status"] == "error"]
    for mine_row, their_row in zip(map(_comparable, got), map(_comparable, want), strict=True):
        assert mine_row == their_row
    # Per kill, at most the calls on the wire (one per sample in flight, CONCURRENCY in all; a request
    # already in the socket's buffer still reaches the server after the kill) plus the nodes of the
    # event-loop turn whose group commit the kill caught (stores/state/sqlite.py: at most one node per sample
    # in flight). Without the per-node checkpoints every sample in flight would ask all its earlier
    # calls again (up to seven for debias with k=1).
    extra_asks = sum(final.values()) - 2 * sum(reference.values())
    bound = kills * 2 * CONCURRENCY
    assert 0 <= extra_asks <= bound, f"{extra_asks} calls asked again after {kills} kills (bound {bound})"
