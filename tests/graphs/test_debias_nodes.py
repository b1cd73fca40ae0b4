"""Each node of the debiasing graph run alone: a plain function of a state and LangGraph's run-time
context (:class:`~nationbias.graphs.debias.DebiasContext`), with a scripted model."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from langgraph.runtime import Runtime

from nationbias.graphs import debias
from nationbias.graphs.debias import DebiasContext, DebiasOptions
from nationbias.graphs.model.client import ModelClient
from nationbias.graphs.vote import member_vote
from nationbias.retrievers import Precedent
from nationbias.stores.corpora.augment import augmented_for
from nationbias.stores.records import Record


class LatestRetriever:
    """The ``k`` latest earlier items of each pool part: a fixed answer to drive one node."""

    def retrieve(self, target: Record, pool: Sequence[Record], k: int) -> list[Precedent]:
        earlier = [r for r in pool if r.date < target.date]
        adopted = [r for r in earlier if r.adopted][-k:] if k else []
        drafts = [r for r in earlier if not r.adopted][-k:] if k else []
        return [
            Precedent(
                record=r, score=1.0, reason="test", pool="adopted" if r.adopted else "non-adopted", rank=i
            )
            for i, r in enumerate(sorted(adopted + drafts, key=lambda r: r.date))
        ]


def _runtime(
    corpus: Any, *, k: int = 1, reflexion: bool = True, answer: str = "favour"
) -> Runtime[DebiasContext]:
    context = DebiasContext(
        client=ModelClient.from_spec(f"fake:{answer}"),
        records={r.id: r for r in corpus.records},
        pool=[r for r in corpus.records if r.adopted or r.is_non_adopted_draft],
        augmented=augmented_for(corpus),
        retriever=LatestRetriever(),
        options=DebiasOptions(k=k, reflexion=reflexion),
    )
    return Runtime(context=context)


def _target(corpus: Any) -> Record:
    return next(d for d in reversed(corpus.drafts) if member_vote(d, "RUS") is not None)


def _retrieved(corpus: Any, runtime: Runtime[DebiasContext]) -> dict[str, Any]:
    """The state after retrieve, as the graph would hold it."""
    start = {"target_id": _target(corpus).id, "persona": "RUS", "repeat": 0}
    command = asyncio.run(debias.retrieve(start, runtime))
    return {**start, **command.update, "calls": []}


def test_retrieve_alone_lists_the_precedents_with_their_real_votes(corpus: Any) -> None:
    runtime = _runtime(corpus, k=1)
    target = _target(corpus)
    command = asyncio.run(debias.retrieve({"target_id": target.id, "persona": "RUS", "repeat": 0}, runtime))
    precedents = command.update["precedents"]
    assert (
        command.goto == "rehearse"
        and command.update["index"] == 0
        and command.update["visited"] == ["retrieve"]
    )
    assert 1 <= len(precedents) <= 2 and {p["pool"] for p in precedents} <= {"adopted", "non-adopted"}
    records = runtime.context.records
    for p in precedents:
        assert records[p["id"]].date < target.date
        assert p["truth"] == member_vote(records[p["id"]], "RUS") is not None
    none = asyncio.run(
        debias.retrieve({"target_id": target.id, "persona": "RUS", "repeat": 0}, _runtime(corpus, k=0))
    )
    assert none.goto == "final_vote" and none.update["precedents"] == []


def test_rehearse_alone_votes_on_the_precedent_and_goes_on_by_reflexion(corpus: Any) -> None:
    for reflexion, successor in ((True, "reflect"), (False, "update_history")):
        runtime = _runtime(corpus, reflexion=reflexion, answer="against")
        state = _retrieved(corpus, runtime)
        command = asyncio.run(debias.rehearse(state, runtime))
        assert command.goto == successor
        assert command.update["pending"] == {"predicted": "against"}
        (call,) = command.update["calls"]
        assert (
            call["node"] == "rehearse" and call["precedent"] == state["precedents"][0]["id"] and call["raw"]
        )
        assert "error" not in command.update


def test_reflect_alone_shows_the_rehearsal_beside_the_real_vote(corpus: Any) -> None:
    runtime = _runtime(corpus)
    state = {**_retrieved(corpus, runtime), "pending": {"predicted": "against"}}
    command = asyncio.run(debias.reflect(state, runtime))
    assert command.goto == "update_history"
    reflection = command.update["pending"]["reflection"]
    assert command.update["pending"]["predicted"] == "against" and reflection.startswith("fake rationale")
    (call,) = command.update["calls"]
    prompt = "\n".join(m["content"] for m in call["messages"])
    assert call["node"] == "reflect" and "against" in prompt and state["precedents"][0]["truth"] in prompt


def test_update_history_alone_appends_one_entry_without_a_model_call(corpus: Any) -> None:
    for reflexion in (True, False):
        runtime = _runtime(corpus, reflexion=reflexion)
        state = {
            **_retrieved(corpus, runtime),
            "pending": {"predicted": "favour", "reflection": "I misread it."},
        }
        last = len(state["precedents"]) - 1
        command = asyncio.run(debias.update_history(state, runtime))
        (entry,) = command.update["history"]
        assert entry["predicted"] == "favour" and entry["truth"] == state["precedents"][0]["truth"]
        assert ("reflection" in entry) is reflexion and "calls" not in command.update
        assert command.update["index"] == 1 and command.goto == ("rehearse" if last else "final_vote")
        at_end = asyncio.run(debias.update_history({**state, "index": last}, runtime))
        assert at_end.goto == "final_vote"


def test_final_vote_alone_shows_the_history_and_keeps_the_answer(corpus: Any) -> None:
    runtime = _runtime(corpus, reflexion=False, answer="abstention")
    state = _retrieved(corpus, runtime)
    entry = asyncio.run(debias.update_history({**state, "pending": {"predicted": "favour"}}, runtime)).update[
        "history"
    ]
    update = asyncio.run(debias.final_vote({**state, "history": entry}, runtime))
    assert update["final"]["answer"] and '"abstention"' in update["final"]["answer"]
    (call,) = update["calls"]
    assert call["node"] == "final_vote" and call["precedent"] is None
    assert entry[0]["label"] in call["history"] and entry[0]["label"] in call["messages"][-1]["content"]
    assert update["visited"] == ["final_vote"]
