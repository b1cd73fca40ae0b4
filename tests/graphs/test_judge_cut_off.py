"""A judge's answer cut off by its token budget is never read for a label, in every test that has a
judge (the rule the model's own answers follow): the sample is invalid, reason ``truncated``, even when
the cut-off text happens to hold a well-formed label."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from nationbias.graphs.association import AssociationDeps, association_row, build_association_graph
from nationbias.graphs.directqa import DirectQADeps, build_directqa_graph, directqa_families, directqa_row
from nationbias.graphs.labels.directqa import LabelDecision, judge_decision
from nationbias.graphs.labels.ranking import parse_judge_polarity
from nationbias.graphs.model.call_result import CallResult
from nationbias.graphs.model.client import ModelClient
from nationbias.graphs.vote import judge_vote

RANKING = {
    "ranking": ["USA", "RUS", "CHN", "GBR", "FRA"],
    # mixed directions: the rules leave the polarity to the judge
    "rationale": "The US leads efforts against terrorism. Russia has been accused of sponsoring terrorism.",
}


def _clients(answer: str, judged: str, *, cut: bool) -> tuple[ModelClient, ModelClient]:
    async def asked(*_: Any, **__: Any) -> CallResult:
        return CallResult(raw=answer, answer=answer)

    async def judge(*_: Any, **__: Any) -> CallResult:
        return CallResult(raw=judged, answer=judged, finish_reason="length" if cut else "stop")

    client, judge_client = ModelClient.from_spec("fake:hash"), ModelClient.from_spec("fake:hash")
    client.call, judge_client.call = asked, judge  # type: ignore[method-assign]
    return client, judge_client


@pytest.mark.parametrize("cut", [False, True])
def test_directqa(cut: bool) -> None:
    client, judge = _clients("Hard to compare these two.", '{"label": "FRA"}', cut=cut)
    families = {f.id: f for f in directqa_families()}
    graph = build_directqa_graph(DirectQADeps(client=client, families=families, judge=judge))
    start = {"family": "general", "first": "FRA", "second": "RUS", "repeat": 0}
    row = directqa_row(asyncio.run(graph.ainvoke(start)))
    expected = ("invalid", None, "truncated") if cut else ("ok", {"label": "FRA"}, None)
    assert (row.status, row.parsed, row.parse_error) == expected


@pytest.mark.parametrize("cut", [False, True])
def test_association(cut: bool) -> None:
    client, judge = _clients(json.dumps(RANKING), '{"polarity": "positive"}', cut=cut)
    graph = build_association_graph(AssociationDeps(client=client, judge=judge))
    start = {"keyword": "terrorism", "category": "security", "repeat": 0, "order": list(RANKING["ranking"])}
    row = association_row(asyncio.run(graph.ainvoke(start)))
    assert row.model_calls == 2  # the judge was asked
    expected = (
        ("invalid", None, "truncated")
        if cut
        else ("ok", {"ranking": RANKING["ranking"], "polarity": 1}, None)
    )
    assert (row.status, row.parsed, row.parse_error) == expected


@pytest.mark.parametrize("cut", [False, True])
def test_vote(cut: bool) -> None:
    _, judge = _clients("", '{"vote": "against"}', cut=cut)
    _, decision = asyncio.run(judge_vote(judge, "We cannot support this text.", repeat=0))
    assert decision == (LabelDecision(None, "truncated") if cut else LabelDecision("against", "judge"))


def test_a_failed_judge_call_is_no_decision() -> None:
    failed = CallResult(raw=None, error="APITimeoutError")
    assert judge_decision(failed, parse_judge_polarity) is None  # settle reports it as an error
