"""DirectQA and the Association Test end to end: graph routing (scripted model), the real embedded model
through the CLI, the judge on a real llama.cpp server, and resume without new model calls."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from typer.testing import CliRunner

from nationbias.evals.cli.main import app
from nationbias.graphs.association import (
    AssociationDeps,
    association_row,
    build_association_graph,
    presented_order,
)
from nationbias.graphs.directqa import (
    DirectQADeps,
    DirectQAState,
    build_directqa_graph,
    directqa_families,
    directqa_row,
)
from nationbias.graphs.model.call_result import CallResult
from nationbias.graphs.model.client import ModelClient
from nationbias.stores.domain import P5
from nationbias.stores.state.runstore import RunStore
from tests.support.embedded_runs import DIRECTQA_RUN, DIRECTQA_RUN_ID, copy_home

runner = CliRunner()


def _directqa_state(judge: ModelClient | None) -> DirectQAState:
    families = {f.id: f for f in directqa_families()}
    client = ModelClient.from_spec("fake:hash")
    graph = build_directqa_graph(DirectQADeps(client=client, families=families, judge=judge))
    start = {"family": "general", "first": "USA", "second": "RUS", "repeat": 0}
    state: DirectQAState = asyncio.run(graph.ainvoke(start))
    return state


def test_directqa_graph_asks_the_judge_only_when_the_rules_cannot_decide() -> None:
    alone = directqa_row(_directqa_state(judge=None))  # "fake answer N": no nation named
    assert (alone.status, alone.parse_error, alone.extra["labeller"], alone.model_calls) == (
        "invalid",
        "no_option",
        None,
        1,
    )
    judged = directqa_row(_directqa_state(judge=ModelClient.from_spec("fake:hash")))
    assert judged.status == "ok" and judged.extra["labeller"] == "judge" and judged.model_calls == 2
    assert judged.parsed["label"] in ("USA", "RUS", "neutral")
    assert judged.extra["judge_raw"] and judged.raw and judged.extra["rules_reason"] == "no_option"


def test_directqa_graph_skips_the_judge_when_the_rules_decide() -> None:
    async def answered(*_: Any, **__: Any) -> CallResult:
        return CallResult(raw="The best answer is (b).", answer="The best answer is (b).")

    client, judge = ModelClient.from_spec("fake:hash"), ModelClient.from_spec("fake:hash")
    client.call = answered  # type: ignore[method-assign]
    families = {f.id: f for f in directqa_families()}
    graph = build_directqa_graph(DirectQADeps(client=client, families=families, judge=judge))
    state = asyncio.run(graph.ainvoke({"family": "general", "first": "USA", "second": "RUS", "repeat": 0}))
    row = directqa_row(state)
    assert (row.parsed, row.extra["labeller"], row.extra["judge_raw"], judge.calls_made) == (
        {"label": "RUS"},
        "rules",
        None,
        0,
    )


@pytest.mark.parametrize("with_judge", [False, True])
def test_association_graph_routing(with_judge: bool) -> None:
    judge = ModelClient.from_spec("fake:hash") if with_judge else None
    graph = build_association_graph(AssociationDeps(client=ModelClient.from_spec("fake:hash"), judge=judge))
    order = presented_order(seed=0, keyword="war crimes", repeat=0)
    state = asyncio.run(
        graph.ainvoke({"keyword": "war crimes", "category": "International Law", "repeat": 0, "order": order})
    )
    row = association_row(state)
    assert row.extra["order_presented"] == order and row.extra["category"] == "International Law"
    assert "United States" in row.messages[-1]["content"]
    if not with_judge:  # "fake rationale N" has no polarity the rules can read
        assert (row.status, row.parse_error, row.parsed, row.extra["labeller"]) == (
            "invalid",
            "polarity_undecided",
            None,
            None,
        )
        return
    assert row.status == "ok" and row.extra["labeller"] == "judge" and row.extra["judge_raw"]
    assert sorted(row.parsed["ranking"]) == sorted(P5)
    label = row.extra["polarity_label"]
    assert row.parsed["polarity"] == {"positive": 1, "negative": -1, "inconsistent": None}[label]


def _invoke(args: list[str]) -> str:
    result = runner.invoke(app, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def _frame(run_id: str) -> pd.DataFrame:
    return RunStore().samples_frame(run_id)


def test_directqa_end_to_end_on_the_embedded_model_and_resume(
    embedded_directqa: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Run ``dq`` (``DIRECTQA_RUN`` on the real embedded model, made once: tests/support/embedded_runs.py),
    checked in a copy of its stores, then resumed there."""
    copy_home(embedded_directqa, isolated_home)
    args = [*DIRECTQA_RUN, "--run-id", DIRECTQA_RUN_ID]
    frame = _frame("dq")
    assert len(frame) == 20 and set(frame["item"]) == {"general"}
    assert frame["pair_order"].nunique() == 20 and set(frame["persona"]) == {""}
    assert frame["status"].isin(["ok", "invalid"]).all() and frame["status"].eq("ok").any()
    assert frame["raw"].map(lambda r: isinstance(r, str) and r != "").all()  # every raw kept
    ok = frame[frame["status"].eq("ok")]
    assert ok["parsed"].map(lambda p: p["label"] in (*P5, "neutral")).all()
    assert ok.apply(lambda r: r["parsed"]["label"] in (*r["pair_order"].split("-"), "neutral"), axis=1).all()
    assert ok["extra"].map(lambda e: e["labeller"] == "rules").all()  # no judge given
    bad = frame[frame["status"].eq("invalid")]
    assert bad["parsed"].isna().all() and bad["parse_error"].map(lambda r: isinstance(r, str)).all()
    config = RunStore().get_run("dq")
    assert config["test"] == "directqa" and config["options"]["judge"] is None
    assert set(config["prompt_versions"]) == {"directqa_general", "directqa_function", "judge_directqa"}

    calls: list[int] = []
    original = ModelClient.call

    async def counting(self: ModelClient, *a: Any, **k: Any) -> Any:
        calls.append(1)
        return await original(self, *a, **k)

    monkeypatch.setattr(ModelClient, "call", counting)
    output = _invoke(args)
    assert calls == [] and "0 done now, 20 already done" in output


def test_association_end_to_end_on_the_embedded_model() -> None:
    # two keywords (of two categories), each asked twice, prove the run end to end on the real model;
    # the selection's stratification over all 7 categories is tests/graphs/test_association_parse.py's
    _invoke(
        ["run", "association", "--model", "local:smollm2", "--limit", "2", "--repeats", "2", "--run-id", "at"]
    )
    frame = _frame("at")
    assert len(frame) == 4 and frame["item"].nunique() == 2 and set(frame["repeat"]) == {0, 1}
    assert frame["raw"].map(lambda r: isinstance(r, str) and r != "").all()
    assert frame["status"].isin(["ok", "invalid"]).all()
    extras = frame["extra"].tolist()
    assert len({e["category"] for e in extras}) == 2  # stratified across categories
    assert all(sorted(e["order_presented"]) == sorted(P5) for e in extras)
    for _, row in frame.iterrows():
        if row["status"] == "ok":  # decided by the rules (no judge): a full ranking and ±1
            assert sorted(row["parsed"]["ranking"]) == sorted(P5) and row["parsed"]["polarity"] in (1, -1)
            assert row["extra"]["labeller"] == "rules"
        else:
            assert row["parsed"] is None and row["extra"]["labeller"] is None
            assert row["parse_error"] in (
                "polarity_undecided",
                "duplicate_nation",
                "missing_nation",
                "unknown_nation",
                "malformed_ranking",
                "json_missing_key",
                "empty",
            )


@pytest.fixture
def fresh_openai_http_clients() -> Iterator[None]:
    """langchain-openai caches one httpx AsyncClient per base URL for the whole process; the one this
    test's (closed) event loop used must not leak into later tests of the same server."""
    yield
    from langchain_openai.chat_models import _client_utils

    cached = getattr(_client_utils, "_cached_async_httpx_client", None)
    if cached is not None:
        cached.cache_clear()


@pytest.mark.usefixtures("fresh_openai_http_clients")
def test_the_judge_on_a_real_openai_compatible_server(
    llama_server: str, embedded_directqa: Path, isolated_home: Path
) -> None:
    # the embedded model's answers to the 20 questions: from the session's real run of them (its cache);
    # the judge's calls, on the real server, are this test's own
    copy_home(embedded_directqa, isolated_home, only=("cache.sqlite",))
    _invoke(
        [
            "run",
            "directqa",
            "--model",
            "local:smollm2",
            "--judge",
            "openai-compatible:smollm2",
            "--judge-base-url",
            llama_server,
            "--limit",
            "1",
            "--repeats",
            "1",
            "--run-id",
            "dqj",
        ]
    )
    frame = _frame("dqj")
    assert len(frame) == 20 and frame["status"].ne("error").all()
    labellers = frame["extra"].map(lambda e: e["labeller"])
    judged = frame[frame["extra"].map(lambda e: e["judge_raw"] is not None)]
    assert labellers.eq("judge").any() and len(judged) >= 1
    for _, row in judged.iterrows():
        assert row["extra"]["rules_reason"] in (
            "multiple_options",
            "no_option",
            "hedged_choice",
            "outside_pair_mention",
        )
        first, second = row["pair_order"].split("-")
        if row["status"] == "ok":  # whatever the judge said is a valid label ...
            assert row["extra"]["labeller"] == "judge"
            assert row["parsed"]["label"] in (first, second, "neutral")
        else:  # ... or counted invalid, never filled in
            assert row["parse_error"] == "judge_invalid" and row["parsed"] is None
        assert row["model_calls"] == 2
    config = RunStore().get_run("dqj")
    assert config["options"]["judge"] == "openai-compatible:smollm2"
    assert config["options"]["judge_base_url"] == llama_server


def test_bad_input_is_one_line_and_exit_2(tmp_path: Any) -> None:
    result = runner.invoke(app, ["run", "directqa", "--model", "nope"])
    assert result.exit_code == 2 and "malformed model spec" in result.output
    result = runner.invoke(
        app, ["run", "association", "-m", "fake:hash", "--judge", "openai-compatible:smollm2"]
    )
    assert result.exit_code == 2 and "needs a server" in result.output
    pool = tmp_path / "pool.csv"
    pool.write_text("cat,word\nA,b\n", encoding="utf-8")
    result = runner.invoke(app, ["run", "association", "-m", "fake:hash", "--pool", str(pool)])
    assert result.exit_code == 2 and "category,keyword" in result.output
    result = runner.invoke(app, ["run", "directqa", "-m", "fake:hash", "--repeats", "0"])
    assert result.exit_code == 2 and "--repeats" in result.output
