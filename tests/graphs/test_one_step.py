"""A graph without a judge runs as its one step: the state it gives is the compiled graph's."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

from nationbias.graphs.association import AssociationDeps, build_association_graph
from nationbias.graphs.directqa import DirectQADeps, build_directqa_graph, directqa_families
from nationbias.graphs.labels.rules_then_judge import OneStep
from nationbias.graphs.model.client import ModelClient
from nationbias.graphs.vote import VoteDeps, build_vote_graph
from nationbias.stores.corpora.corpus import load_corpus


def _both(graph: Any, inputs: list[dict[str, Any]]) -> None:
    assert isinstance(graph, OneStep)
    compiled = graph.graph
    for state in inputs:
        fast = asyncio.run(graph.ainvoke(dict(state)))
        slow = asyncio.run(compiled.ainvoke(dict(state)))
        assert fast.keys() == slow.keys(), state
        for key in fast:  # the call's timing and cache flag differ between two calls; nothing else may
            a, b = fast[key], slow[key]
            if hasattr(a, "latency_s"):
                a, b = replace(a, latency_s=0.0, cached=False), replace(b, latency_s=0.0, cached=False)
            assert a == b, (state, key)


def test_the_vote_step_gives_the_compiled_graphs_state() -> None:
    records = {r.id: r for r in load_corpus().drafts[:3]}
    graph = build_vote_graph(VoteDeps(client=ModelClient.from_spec("fake:hash"), records=records))
    _both(graph, [{"record_id": rid, "persona": p, "repeat": 0} for rid in records for p in ("USA", "CHN")])


def test_the_explicit_steps_give_the_compiled_graphs_state() -> None:
    client = ModelClient.from_spec("fake:hash")
    families = {f.id: f for f in directqa_families()}
    directqa = build_directqa_graph(DirectQADeps(client=client, families=families))
    _both(
        directqa,
        [
            {"family": "general", "first": a, "second": b, "repeat": 0}
            for a, b in (("USA", "RUS"), ("CHN", "FRA"))
        ],
    )
    association = build_association_graph(AssociationDeps(client=client))
    assert isinstance(association, OneStep)
