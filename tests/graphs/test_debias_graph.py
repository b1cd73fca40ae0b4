"""Graph logic of the debiasing method, with a scripted model (the only place a fake model is used)."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from nationbias.graphs.debias import DebiasContext, DebiasOptions, build_debias_graph, history_text
from nationbias.graphs.model.client import ModelClient
from nationbias.retrievers import Precedent
from nationbias.stores.corpora.augment import augmented_for
from nationbias.stores.records import Record
from nationbias.stores.state.checkpoints import InlineSqliteSaver


class FixedRetriever:
    """Returns the 2k most recent earlier drafts and adopted texts: enough to drive the loop."""

    def retrieve(self, target: Record, pool: Sequence[Record], k: int) -> list[Precedent]:
        earlier = [r for r in pool if r.date < target.date]
        adopted = [r for r in earlier if r.adopted][-k:] if k else []
        drafts = [r for r in earlier if not r.adopted][-k:] if k else []
        chosen = sorted(adopted + drafts, key=lambda r: r.date)
        return [
            Precedent(
                record=r, score=1.0, reason="test", pool="adopted" if r.adopted else "non-adopted", rank=i
            )
            for i, r in enumerate(chosen)
        ]


def _deps(corpus: Any, *, k: int, reflexion: bool) -> DebiasContext:
    return DebiasContext(
        client=ModelClient.from_spec("fake:hash"),
        records={r.id: r for r in corpus.records},
        pool=[r for r in corpus.records if r.adopted or r.is_non_adopted_draft],
        augmented=augmented_for(corpus),
        retriever=FixedRetriever(),
        options=DebiasOptions(k=k, reflexion=reflexion),
    )


def _start(corpus: Any) -> dict[str, Any]:
    target = corpus.drafts[-1]
    return {"target_id": target.id, "persona": "RUS", "repeat": 0, "calls": [], "visited": [], "error": None}


def _run(corpus: Any, *, k: int, reflexion: bool) -> dict[str, Any]:
    deps = _deps(corpus, k=k, reflexion=reflexion)
    graph = build_debias_graph()
    start = _start(corpus)
    result: dict[str, Any] = asyncio.run(
        graph.ainvoke(start, {"recursion_limit": deps.options.recursion_limit}, context=deps)
    )
    return result


@pytest.mark.parametrize("reflexion", [True, False])
@pytest.mark.parametrize("k", [0, 1, 2])
def test_node_sequence(corpus: Any, k: int, reflexion: bool) -> None:
    state = _run(corpus, k=k, reflexion=reflexion)
    loop = ["rehearse", "reflect", "update_history"] if reflexion else ["rehearse", "update_history"]
    assert state["visited"] == ["retrieve", *(loop * (2 * k)), "final_vote"]
    assert len(state["history"]) == 2 * k
    assert len(state["calls"]) == len(loop[:-1]) * 2 * k + 1
    assert all(c["raw"] for c in state["calls"])  # every raw response kept


def test_history_holds_votes_and_reflections_only_with_reflexion(corpus: Any) -> None:
    with_reflexion = _run(corpus, k=1, reflexion=True)
    without = _run(corpus, k=1, reflexion=False)
    assert all("reflection" in h for h in with_reflexion["history"])
    assert all("reflection" not in h for h in without["history"])
    adopted = [h for h in without["history"] if h["outcome"] == "the text was adopted"]
    assert adopted and all(h["truth"] in {"favour", "abstention"} for h in adopted)
    text = history_text(without["history"], reflexion=False)
    assert "My vote / Ground Truth:" in text and "Reflection:" not in text


def test_empty_history_is_recorded(corpus: Any) -> None:
    state = _run(corpus, k=0, reflexion=True)
    assert state["history"] == []
    assert "no earlier text passed" in state["final"]["messages"][-1]["content"]


def test_negative_k_is_rejected() -> None:
    with pytest.raises(ValueError, match="k must be >= 0"):
        DebiasOptions(k=-1)


def _timeless(state: dict[str, Any]) -> dict[str, Any]:
    """A state without its call timings, the one thing two runs may differ in."""

    def strip(call: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in call.items() if k != "latency_s"}

    return {**state, "calls": [strip(c) for c in state["calls"]], "final": strip(state["final"])}


@pytest.mark.parametrize("durability", ["sync", "async"])
def test_interrupted_sample_resumes_from_its_checkpoints_each_prompt_stored_once(
    corpus: Any, tmp_path: Path, durability: str
) -> None:
    """Without a response cache every node is checkpointed (the study uses ``durability="async"``);
    a sample stopped before its final vote resumes in a new process to the uninterrupted state."""
    path = tmp_path / "checkpoints.sqlite"
    config: Any = {"configurable": {"thread_id": "run/s1"}, "recursion_limit": 20}

    async def first_part() -> None:
        with InlineSqliteSaver.open(path) as saver:
            graph = build_debias_graph(checkpointer=saver)
            await graph.ainvoke(
                _start(corpus),
                config,
                context=_deps(corpus, k=1, reflexion=True),
                durability=durability,
                interrupt_before=["final_vote"],
            )

    async def resume() -> dict[str, Any]:
        with InlineSqliteSaver.open(path) as saver:
            graph = build_debias_graph(checkpointer=saver)
            snapshot = await graph.aget_state(config)
            assert snapshot.next == ("final_vote",) and len(snapshot.values["calls"]) == 4
            state: dict[str, Any] = await graph.ainvoke(
                None, config, context=_deps(corpus, k=1, reflexion=True), durability=durability
            )
            return state

    asyncio.run(first_part())
    resumed = asyncio.run(resume())
    assert _timeless(resumed) == _timeless(_run(corpus, k=1, reflexion=True))

    # the call log is a delta channel: each prompt is written once, not again at every checkpoint
    with sqlite3.connect(path) as conn:
        blobs = [row[0] for row in conn.execute("SELECT checkpoint FROM checkpoints")]
        blobs += [row[0] for row in conn.execute("SELECT value FROM writes")]
    stored = [
        (c["node"], sum(b.count(c["messages"][-1]["content"].encode()) for b in blobs))
        for c in resumed["calls"]
    ]
    # the final prompt is also in the ``final`` channel: its write and the last checkpoint
    assert stored == [(c["node"], 3 if c["node"] == "final_vote" else 1) for c in resumed["calls"]], stored

    # the precedents and the history are delta channels too: no checkpoint carries their values, and
    # their writes hold each precedent and each history entry once
    serde = JsonPlusSerializer()  # SqliteSaver's own
    with sqlite3.connect(path) as conn:
        checkpoints = [
            serde.loads_typed(row) for row in conn.execute("SELECT type, checkpoint FROM checkpoints")
        ]
        logged = {
            channel: [
                serde.loads_typed(row)
                for row in conn.execute("SELECT type, value FROM writes WHERE channel = ?", (channel,))
            ]
            for channel in ("precedents", "history")
        }
    assert len(resumed["precedents"]) == 2 and len(resumed["history"]) == 2
    carried = [
        name
        for cp in checkpoints
        for name in ("precedents", "history")
        if isinstance(cp["channel_values"].get(name), list)
    ]
    assert not carried, carried
    assert [p for batch in logged["precedents"] for p in batch] == resumed["precedents"]
    assert [h for batch in logged["history"] for h in batch] == resumed["history"]


def test_each_reflection_keeps_the_statement_it_read_and_the_final_call_its_history(corpus: Any) -> None:
    """What the sample browser shows of a trajectory is stored, not rebuilt: the statement each
    reflection prompt carried, and the history text the final prompt carried."""
    state = _run(corpus, k=2, reflexion=True)
    reflections = [c for c in state["calls"] if c["node"] == "reflect"]
    assert reflections and all("statement" in c for c in reflections)
    assert any(c["statement"] for c in reflections)  # one of these precedents has Russia's statement
    for call in reflections:
        prompt = call["messages"][-1]["content"]
        read = call["statement"]
        assert read is None or (read["text"] in prompt and read["source"] in prompt)
    final = next(c for c in state["calls"] if c["node"] == "final_vote")
    assert final["history"] == history_text(state["history"], reflexion=True)
    assert final["history"] in final["messages"][-1]["content"]
