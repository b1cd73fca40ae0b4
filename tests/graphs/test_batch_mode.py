"""Batch mode against a real local Files + Batches server: the same rows as online, in rounds.

The online reference runs against the fault server, whose answers come from the same
deterministic function as the batch server's (tests/support/fake_answers.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import nationbias
from nationbias.evals.study import Cell, ablate
from nationbias.stores.errors import InputError
from nationbias.stores.state.batches import BatchStore
from tests.support.batch_helpers import MODEL, comparable

FAST = {"show_progress": False, "repeats": 1}


@pytest.fixture(autouse=True)
def quick_polls(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NATIONBIAS_BATCH_POLL_S", "0.05")


def test_vote_in_batches_equals_online_and_retries_failed_lines(
    fault_server, batch_server, isolated_home: Path
) -> None:
    online, server = fault_server(), batch_server(delay_s=0.2, fail_once=0.3)
    nationbias.run("vote", model=MODEL, base_url=online.base_url, limit=3, run_id="online", **FAST)
    summary = nationbias.run(
        "vote", model=MODEL, base_url=server.base_url, limit=3, run_id="batched", batch=True, **FAST
    )

    assert summary.total == summary.ok + summary.invalid == 15
    assert comparable(isolated_home, "batched") == comparable(isolated_home, "online")
    assert server.app.state.chat_calls == 0  # nothing went to /chat/completions
    store = BatchStore()
    rounds = store.rounds("batched")
    assert rounds[0].requests == 15 and rounds[0].failed > 0  # fail_once hit some lines
    assert all(r.state == "ingested" for r in rounds) and len(rounds) == 2
    retried = {r["custom_id"] for r in store.requests("batched") if r["attempts"] == 1}
    assert retried and {r["custom_id"] for r in store.requests("batched", 2)} == retried
    assert all(r["status"] == "done" for r in store.requests("batched"))
    # a failed line is asked once more, every other line once: never a call twice without a reason
    assert {cid: n for cid, n in server.submitted.items() if n != 1} == dict.fromkeys(retried, 2)


def test_debias_k1_advances_one_call_per_round(fault_server, batch_server, isolated_home: Path) -> None:
    online, server = fault_server(), batch_server()
    options = {"k": 1, "limit": 1, **FAST}
    nationbias.run("debias", model=MODEL, base_url=online.base_url, run_id="online", **options)
    nationbias.run("debias", model=MODEL, base_url=server.base_url, run_id="batched", batch=True, **options)

    expected = comparable(isolated_home, "online")
    assert comparable(isolated_home, "batched") == expected
    calls = max(row["model_calls"] for row in expected)
    # retrieve is no call; each rehearse, reflect and the final vote is one round (5 with a
    # precedent in both pools; this draft's first sample has fewer)
    assert calls >= 3
    assert len(BatchStore().rounds("batched")) == calls
    assert max(server.submitted.values()) == 1


def test_ablation_grid_in_batches_equals_online(fault_server, batch_server, isolated_home: Path) -> None:
    online, server = fault_server(), batch_server()
    cells = [Cell(k, reflexion, "keyword") for k in (1, 2) for reflexion in (True, False)]
    options = {"model": MODEL, "cells": cells, "limit": 1, **FAST}
    ids_online = ablate(base_url=online.base_url, run_prefix="online", **options)
    ids_batch = ablate(base_url=server.base_url, run_prefix="batched", batch=True, **options)

    assert len(ids_batch) == 4
    for a, b in zip(ids_online, ids_batch, strict=True):
        assert comparable(isolated_home, b) == comparable(isolated_home, a)
        assert comparable(isolated_home, b)
    assert max(server.submitted.values()) == 1 and server.app.state.chat_calls == 0


@pytest.mark.parametrize(
    ("model", "options", "says"),
    [
        ("local:smollm2", {}, "has none"),
        (MODEL, {"no_cache": True}, "needs the response cache"),
    ],
)
def test_batch_refused_before_anything_is_written(
    model: str, options: dict[str, object], says: str, isolated_home: Path
) -> None:
    with pytest.raises(InputError, match=says):
        nationbias.run("vote", model=model, base_url="http://127.0.0.1:9/v1", batch=True, **options, **FAST)
    assert not (isolated_home / "runs.sqlite").exists()


def test_server_without_batches_is_refused_before_submission(fault_server, isolated_home: Path) -> None:
    plain = fault_server()
    with pytest.raises(InputError, match="offers no batch endpoint"):
        nationbias.run("vote", model=MODEL, base_url=plain.base_url, batch=True, limit=1, **FAST)
    assert plain.count() == 0 and not (isolated_home / "runs.sqlite").exists()


def test_a_kill_between_create_and_record_submits_nothing_twice(
    fault_server, batch_server, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The process dies right after the server created the batch, before its id was recorded: the
    resumed run finds that batch on the server (by its input file) instead of creating another."""
    online, server = fault_server(), batch_server()
    nationbias.run("vote", model=MODEL, base_url=online.base_url, limit=1, run_id="online", **FAST)

    def killed(*_: object, **__: object) -> None:
        raise KeyboardInterrupt  # as a SIGKILL would stop it, with nothing recorded

    with monkeypatch.context() as patch:
        patch.setattr(BatchStore, "submitted", killed)
        with pytest.raises(KeyboardInterrupt):
            nationbias.run(
                "vote", model=MODEL, base_url=server.base_url, limit=1, run_id="b", batch=True, **FAST
            )
    assert len(server.app.state.batches) == 1 and BatchStore().rounds("b")[0].batch_id is None

    nationbias.run("vote", model=MODEL, base_url=server.base_url, limit=1, run_id="b", batch=True, **FAST)
    assert len(server.app.state.batches) == 1 and max(server.submitted.values()) == 1
    assert comparable(isolated_home, "b") == comparable(isolated_home, "online")


def test_a_line_failing_past_the_limit_is_an_error_row_and_retry_errors_asks_again(
    fault_server, batch_server, isolated_home: Path
) -> None:
    online, server = fault_server(), batch_server(fail_once=0.5, fail_times=3)
    # the corpus's texts: the server fails a fixed half of the lines by their bodies' hash, and these
    # bodies leave some lines failing and some not
    options = {"model": MODEL, "limit": 1, "run_id": "b", "batch": True, "texts": "press", **FAST}
    nationbias.run(
        "vote", model=MODEL, base_url=online.base_url, limit=1, run_id="online", texts="press", **FAST
    )
    summary = nationbias.run("vote", base_url=server.base_url, **options)

    assert summary.error > 0  # like an online failure: an error row, never cached
    errors = [row["error"] for row in comparable(isolated_home, "b") if row["status"] == "error"]
    assert errors and all("batch: HTTP 500" in e and "failed in 3 batches" in e for e in errors)
    assert sorted(set(server.submitted.values())) == [1, 3]  # failed lines asked 3 times, others once

    summary = nationbias.run("vote", base_url=server.base_url, retry_errors=True, **options)
    assert summary.error == 0
    assert comparable(isolated_home, "b") == comparable(isolated_home, "online")
