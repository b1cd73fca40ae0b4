"""The LLM augmenter: the paper's GPT-4o-mini fields from any registered model.

A two-node graph per record (ask → parse) over :class:`nationbias.graphs.model.client.ModelClient`, so
answers are
cached and a rerun resumes: ``nationbias.stores.corpora.augment.write_augmented`` skips records already
written and the response cache answers the ones asked before. The model sees only prompt-safe text
(:func:`nationbias.stores.guard.leak.context_for_prompt`), and its output passes the leak guard again. The
prompt is a
template file (``augment``), so its words are versioned and its hash is recorded with the output.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator, Sequence
from typing import Any, TypedDict

from langgraph.graph import END, START, StateGraph

from nationbias.graphs.model.client import ModelClient
from nationbias.graphs.study.options import DEFAULT_CONCURRENCY
from nationbias.graphs.study.runner import run_async
from nationbias.prompts import Prompt, get_prompt
from nationbias.stores.corpora.augment import Augmented, AugmentFailure, make_safe
from nationbias.stores.guard.leak import context_for_prompt
from nationbias.stores.records import Record

AUGMENT_PROMPT = "augment"
REGIONS = ["Africa", "Middle East", "Europe", "Americas", "Asia", "Other"]

AUGMENT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "summary": {"type": "string"},
        "action_items": {"type": "string"},
        "region": {"type": "string", "enum": REGIONS},
        "target_nations": {"type": "array", "items": {"type": "string"}},
        "keywords": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["summary", "action_items", "region", "target_nations", "keywords"],
    "additionalProperties": False,
}


def augment_prompt() -> Prompt:
    """The augmenter's template (``prompts/templates/augment.vN.txt``): versioned and hashed."""
    return get_prompt(AUGMENT_PROMPT)


def augment_messages(record: Record) -> list[dict[str, str]]:
    ctx = context_for_prompt(record)
    return augment_prompt().render(id=record.id, description=ctx.description, text=ctx.text)


class AugmentState(TypedDict, total=False):
    record: Record
    answer: str | None
    error: str | None
    augmented: Augmented | None


def build_graph(client: ModelClient, *, source: str) -> Any:
    async def ask(state: AugmentState) -> AugmentState:
        result = await client.call(augment_messages(state["record"]), schema=AUGMENT_SCHEMA, repeat=0)
        return {"answer": result.answer, "error": result.error}

    async def parse(state: AugmentState) -> AugmentState:
        if state.get("error"):
            return {}
        try:
            payload = json.loads(state.get("answer") or "")
            record = state["record"]
            raw = Augmented(
                id=record.id, source=source, **{k: payload[k] for k in AUGMENT_SCHEMA["required"]}
            )
        except (ValueError, KeyError, TypeError) as exc:
            return {"error": f"unparseable answer: {type(exc).__name__}: {exc}"[:300]}
        return {"augmented": make_safe(raw, state["record"])}

    graph = StateGraph(AugmentState)
    graph.add_node("ask", ask)
    graph.add_node("parse", parse)
    graph.add_edge(START, "ask")
    graph.add_edge("ask", "parse")
    graph.add_edge("parse", END)
    return graph.compile()


class LLMAugmenter:
    """Augments records with a model; failures are reported and retried on the next run."""

    def __init__(self, client: ModelClient, *, concurrency: int = DEFAULT_CONCURRENCY) -> None:
        self.client = client
        self.source = f"llm:{client.label}"
        self.prompt = augment_prompt().ref  # recorded in the derived file's manifest
        self.concurrency = concurrency
        self.graph = build_graph(client, source=self.source)

    async def _run(self, records: Sequence[Record]) -> list[Augmented | AugmentFailure]:
        gate = asyncio.Semaphore(self.concurrency)

        async def one(record: Record) -> Augmented | AugmentFailure:
            async with gate:
                state = await self.graph.ainvoke({"record": record})
            augmented = state.get("augmented")
            if augmented is None:
                return AugmentFailure(record.id, state.get("error") or "no answer")
            return augmented

        try:
            return list(await asyncio.gather(*(one(r) for r in records)))
        finally:
            await self.client.aclose()

    def augment(self, records: Sequence[Record], *, batch: int = 32) -> Iterator[Augmented | AugmentFailure]:
        """Batches, so results reach the derived file (and the cache) as the run goes."""
        for start in range(0, len(records), batch):
            yield from run_async(self._run(records[start : start + batch]))
