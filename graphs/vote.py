"""Persona vote simulation: a member of the Council votes on a draft it has never seen the outcome of."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, TypedDict

from langgraph.graph import END, START, StateGraph

from graphs.llm import CallResult, ModelClient
from graphs.parsing import VOTE_CODES, VOTE_SCHEMA, parse_vote
from prompts import get_prompt
from stores.corpus import context_for_prompt, p5_vote
from stores.paths import P5_NAMES
from stores.records import Record
from stores.runstore import SampleRow, Status

MAX_CONTEXT_CHARS = 3000
VOTE_MAX_TOKENS = 200  # a vote and a two-sentence rationale


def persona_name(code: str) -> str:
    """The Council name of a member code (P5 codes, or any name used as-is)."""
    return P5_NAMES.get(code, code)


def member_vote(record: Record, persona: str) -> str | None:
    """The real vote as favour/against/abstention, or None if the member did not vote."""
    code = p5_vote(record, persona) if persona in P5_NAMES else record.votes.get(persona)
    return VOTE_CODES.get(code) if code else None


_DRAFT_SYMBOL = re.compile(r"^S/\d{4}/\d+$")


def prompt_label(record: Record) -> str:
    """How a prompt names a text: its draft symbol, adopted or not. "resolution 2334 (2016)" for the
    adopted ones only would teach a model that a bare symbol means a text that failed, and every
    target is a bare symbol. A text whose draft symbol is unknown keeps its resolution label."""
    return f'"{record.id}"' if _DRAFT_SYMBOL.match(record.id) else record.label


def clip(text: str, limit: int = MAX_CONTEXT_CHARS) -> str:
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + " …"


def vote_messages(
    record: Record,
    persona: str,
    *,
    template: str = "persona_vote",
    context_chars: int = MAX_CONTEXT_CHARS,
    **values: str,
) -> list[dict[str, str]]:
    """Appendix F's vote prompt (or a rehearsal/final variant), with the leak-safe context and its kind."""
    ctx = context_for_prompt(record)
    return get_prompt(template).render(
        nation=persona_name(persona),
        label=prompt_label(record),
        context_kind=ctx.description,
        context=clip(ctx.text, context_chars),
        **values,
    )


async def ask_vote(
    client: ModelClient,
    record: Record,
    persona: str,
    *,
    repeat: int,
    template: str = "persona_vote",
    **values: str,
) -> tuple[list[dict[str, str]], CallResult]:
    """Render a vote prompt and ask for a schema-constrained vote; every vote in every graph comes here."""
    messages = vote_messages(
        record, persona, template=template, context_chars=client.spec.context_chars, **values
    )
    result = await client.call(
        messages, schema=VOTE_SCHEMA, schema_name="vote", repeat=repeat, max_tokens=VOTE_MAX_TOKENS
    )
    return messages, result


def vote_sample(
    *,
    test: str,
    record: Record,
    persona: str,
    repeat: int,
    messages: list[dict[str, str]],
    result: Any,
    extra: dict[str, Any] | None = None,
    model_calls: int = 1,
) -> SampleRow:
    """One vote sample: parsed strictly, the raw text kept, invalid answers counted not filled."""
    parsed = parse_vote(result.answer) if result.error is None else None
    status: Status
    value: dict[str, Any] | None
    reason: str | None
    if result.error is not None:
        status, value, reason = "error", None, None
    elif parsed is not None and parsed.ok:
        status, value, reason = "ok", {"vote": parsed.value, **_rationale(parsed.payload)}, None
    else:
        status, value, reason = "invalid", None, parsed.reason if parsed else None
    return SampleRow(
        test=test,
        item=record.id,
        persona=persona,
        repeat=repeat,
        status=status,
        messages=messages,
        raw=result.raw,
        parsed=value,
        parse_error=reason,
        error=result.error,
        latency_s=result.latency_s,
        prompt_tokens=result.prompt_tokens,
        completion_tokens=result.completion_tokens,
        model_calls=model_calls,
        extra={
            "truth": member_vote(record, persona),
            "context_kind": context_for_prompt(record).kind,
            "date": record.date.isoformat(),
            "reasoning": result.reasoning,
            "cached": result.cached,
            **(extra or {}),
        },
    )


def _rationale(payload: dict[str, Any] | None) -> dict[str, Any]:
    if payload and isinstance(payload.get("rationale"), str):
        return {"rationale": payload["rationale"]}
    return {}


class VoteState(TypedDict, total=False):
    record_id: str
    persona: str
    repeat: int
    row: SampleRow


@dataclass
class VoteDeps:
    client: ModelClient
    records: dict[str, Record]


def build_vote_graph(deps: VoteDeps) -> Any:
    """A one-node graph: the simplest of the study's state machines."""

    async def vote(state: VoteState) -> VoteState:
        record = deps.records[state["record_id"]]
        messages, result = await ask_vote(deps.client, record, state["persona"], repeat=state["repeat"])
        row = vote_sample(
            test="vote",
            record=record,
            persona=state["persona"],
            repeat=state["repeat"],
            messages=messages,
            result=result,
        )
        return {"row": row}

    graph = StateGraph(VoteState)
    graph.add_node("vote", vote)
    graph.add_edge(START, "vote")
    graph.add_edge("vote", END)
    return graph.compile()
