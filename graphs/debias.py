"""The debiasing method (paper §7, Appendix A) as a LangGraph state machine.

retrieve → [rehearse → reflect → update_history]* → final_vote. The loop runs once per precedent
(update_history sends the sample back to rehearse); with reflexion off the history keeps only the
rehearsal and true votes.
The nodes are plain module-level functions of the state and LangGraph's run-time context
(:class:`DebiasContext`, the graph's ``context_schema``): the run's model, records, retriever and
options are passed to ``ainvoke(..., context=...)``, so each node can be run alone.
Every model call's raw text is kept in ``calls``; the graph is checkpointed so an interrupted
sample resumes at the node where it stopped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, TypedDict

from langgraph.channels import DeltaChannel
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.types import Command

from nationbias.graphs.debias_options import DebiasOptions
from nationbias.graphs.history import history_block, history_text, paper_history_text
from nationbias.graphs.labels.parsing import json_object
from nationbias.graphs.labels.vote import vote_rules
from nationbias.graphs.model.call_result import CallResult
from nationbias.graphs.model.client import ModelClient
from nationbias.graphs.translate import TranslatedTexts
from nationbias.graphs.vote import ask_vote, clip, member_vote, persona_name, prompt_label, quoted_name
from nationbias.prompts import PromptSet, prompt_set
from nationbias.retrievers import Precedent, Retriever
from nationbias.stores.corpora.augment import Augmented
from nationbias.stores.records import Record
from nationbias.stores.text.statements import MemberStatement, statements_for
from nationbias.stores.text.un_prompt import Shown, TextsMode, precedent_source, target_shown, with_un_text

REFLECTION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"reflection": {"type": "string", "maxLength": 500}},
    "required": ["reflection"],
    "additionalProperties": False,
}
REFLECTION_MAX_TOKENS = 240  # four sentences
DEBIAS_PROMPTS = ("rehearsal_vote", "reflexion", "final_vote")


def _appended(log: list[Any], batches: Sequence[list[Any]]) -> list[Any]:
    """The reducer of the append-only logs: every batch of new entries, in order."""
    return [*log, *(entry for batch in batches for entry in batch)]


# The logs are delta channels: a checkpoint stores each node's new entries once, not the whole
# list again. ``calls`` holds every prompt, and re-serialising it at each of a sample's up to nine
# checkpoints was the saver's main cost (benchmarks/throughput.py, finding 13). ``precedents`` (written
# once, by retrieve) and ``history`` (one entry per precedent) are append-only too: as plain values
# every later checkpoint carried them again, summaries included (finding 16).
AppendLog: DeltaChannel[list[Any]] = DeltaChannel(_appended)


class DebiasState(TypedDict, total=False):
    target_id: str
    persona: str
    repeat: int
    precedents: Annotated[list[dict[str, Any]], AppendLog]
    index: int
    history: Annotated[list[dict[str, Any]], AppendLog]
    pending: dict[str, Any]
    final: dict[str, Any]
    error: str | None
    calls: Annotated[list[dict[str, Any]], AppendLog]
    visited: Annotated[list[str], AppendLog]


@dataclass
class DebiasContext:
    """What every node reads besides the sample's state: the run's model, records, retriever and options
    (the graph's ``context_schema``), with the answers asked once per run cached on it."""

    client: ModelClient
    records: dict[str, Record]
    pool: list[Record]
    augmented: dict[str, Augmented]
    retriever: Retriever
    options: DebiasOptions
    prompts: PromptSet = field(default_factory=prompt_set)
    texts: TranslatedTexts | None = None  # --translate-with: the record texts and summaries translated
    text_mode: TextsMode = "press"  # --texts (stores/text/un_prompt.py): which kind of text the prompts show
    _found: dict[str, list[Precedent]] = field(default_factory=dict, repr=False)
    _un_pool: list[Record] | None = field(default=None, repr=False)
    _shown: dict[str, Shown] = field(default_factory=dict, repr=False)
    _later: dict[str, frozenset[str]] = field(default_factory=dict, repr=False)
    _statements: dict[tuple[str, str, str], MemberStatement | None] = field(default_factory=dict, repr=False)

    def precedents(self, target: Record, depth: int | None = None) -> list[Precedent]:
        """The retriever's answer for ``target`` (top ``depth`` per pool part, ``k`` by default), asked
        once: it does not depend on the persona."""
        depth = depth or self.options.k
        key = target.id if depth == self.options.k else f"{target.id}#{depth}"
        found = self._found.get(key)
        if found is None:
            found = self._found[key] = self.retriever.retrieve(target, self.pool_for(target), depth)
        return found

    def un_pool(self) -> list[Record]:
        """The pool's items that have the UN's own text (the 18 drafts of 2023–2024, the resolutions)."""
        if self._un_pool is None:
            self._un_pool = with_un_text(self.pool)
        return self._un_pool

    def precedents_shown(self, target: Record) -> Shown:
        """The one kind of text every precedent of ``target``'s prompts is shown in
        (:func:`~nationbias.stores.text.un_prompt.precedent_source`), settled once per target."""
        if target.id not in self._shown:
            self._shown[target.id] = precedent_source(target, self.text_mode, self.un_pool())
        return self._shown[target.id]

    def pool_for(self, target: Record) -> list[Record]:
        """What ``target``'s precedents are retrieved from: the items with the UN's text when its
        precedents are shown in it (retrieval reads any source), else the whole pool."""
        return self.un_pool() if self.precedents_shown(target) == "un" else self.pool

    def precedents_for(self, target: Record, persona: str) -> list[Precedent]:
        """The precedents ``persona`` rehearses: the retriever's top ``k`` per pool part among the
        items on which it has a recorded vote. A rehearsal is scored against the real vote, and a
        state that was absent or not yet a member has none (the study does not score such pairs
        either), so those items are passed over, not shown as "no recorded vote". The retriever is
        asked for a deeper list until each part has ``k`` (or the part is exhausted): the same order
        as the retriever's, filtered. A Council P5 persona always voted: its answer is unchanged."""
        k, depth = self.options.k, self.options.k
        while True:
            found = self.precedents(target, depth)
            kept: dict[str, list[Precedent]] = {}
            done = True
            for part in ("adopted", "non-adopted"):
                ranked = sorted((p for p in found if p.pool == part), key=lambda p: p.rank)
                kept[part] = [p for p in ranked if member_vote(p.record, persona) is not None][:k]
                done &= len(kept[part]) >= k or len(ranked) < depth  # enough, or nothing more to find
            if done or depth >= len(self.pool):
                chosen = [p for part in kept.values() for p in part]
                return sorted(chosen, key=lambda p: (p.record.date, p.record.id))
            depth = min(depth * 4, len(self.pool))

    def shown(self, text: str) -> str:
        """A record's text or a precedent's summary as a prompt shows it: translated in translate mode."""
        return text if self.texts is None or not text else self.texts.shown(text)

    def later_ids(self, target: Record) -> frozenset[str]:
        """The ids of the items voted on or after ``target``: a statement that names one is dropped."""
        later = self._later.get(target.id)
        if later is None:
            later = self._later[target.id] = frozenset(
                r.id for r in self.records.values() if r.date >= target.date
            )
        return later

    def statement(self, record: Record, persona: str, target: Record) -> MemberStatement | None:
        """The statement a reflection on ``record`` shows for ``persona`` (none said after ``target``):
        looked up once per (precedent, persona, target), as every repeat asks the same."""
        key = (record.id, persona, target.id)
        if key not in self._statements:
            found = statements_for(record, persona, target=target, later_ids=self.later_ids(target))
            self._statements[key] = found[0] if found else None
        return self._statements[key]

    def expected_calls(self, target: Record, persona: str | None = None) -> int:
        """Model calls one sample on ``target`` makes when nothing fails (for scheduling)."""
        per_precedent = 2 if self.options.reflexion else 1
        found = self.precedents(target) if persona is None else self.precedents_for(target, persona)
        return 1 + per_precedent * len(found)


def _call_record(
    node: str, precedent: str | None, messages: list[dict[str, str]], r: CallResult
) -> dict[str, Any]:
    return {"node": node, "precedent": precedent, "messages": messages, **r.as_dict()}


async def retrieve(state: DebiasState, runtime: Runtime[DebiasContext]) -> Command[str]:
    """The precedents the persona rehearses, retrieved once for the sample."""
    ctx = runtime.context
    target = ctx.records[state["target_id"]]
    found = ctx.precedents_for(target, state["persona"])
    precedents = [
        {
            "id": p.record.id,
            "pool": p.pool,
            "score": p.score,
            "reason": p.reason,
            "label": prompt_label(p.record),
            "symbol": quoted_name(p.record, ctx.prompts),
            "date": p.record.date.isoformat(),
            "truth": member_vote(p.record, state["persona"]),
        }
        for p in found
    ]
    return Command(
        update={"precedents": precedents, "index": 0, "history": [], "visited": ["retrieve"]},
        goto="rehearse" if precedents else "final_vote",
    )


async def rehearse(state: DebiasState, runtime: Runtime[DebiasContext]) -> Command[str]:
    """The persona's vote on the current precedent, the history so far shown."""
    ctx = runtime.context
    reflexion, language = ctx.options.reflexion, ctx.prompts.language
    precedent = state["precedents"][state["index"]]
    record = ctx.records[precedent["id"]]
    messages, result = await ask_vote(
        ctx.client,
        record,
        state["persona"],
        repeat=state["repeat"],
        template="rehearsal_vote",
        prompts=ctx.prompts,
        texts=ctx.texts,
        shown=ctx.precedents_shown(ctx.records[state["target_id"]]),
        date=precedent["date"],
        history=history_block(state["history"], reflexion=reflexion, language=language),
        previous_votes=paper_history_text(state["history"], reflexion=reflexion, language=language),
    )
    rules = vote_rules(
        result.answer,
        truncated=result.truncated,
        free_text=ctx.prompts.free_text,
        nation=persona_name(state["persona"]),
        language=language,
    )
    predicted = rules.label or f"invalid ({rules.reason})"
    update: DebiasState = {
        "pending": {"predicted": predicted},
        "calls": [_call_record("rehearse", record.id, messages, result)],
        "visited": ["rehearse"],
    }
    if result.error:
        update["error"] = f"rehearsal on {record.id}: {result.error}"
        return Command(update=update, goto=END)
    return Command(update=update, goto="reflect" if reflexion else "update_history")


async def reflect(state: DebiasState, runtime: Runtime[DebiasContext]) -> Command[str]:
    """The persona's reflection on its rehearsal, shown the real vote and the member's statement."""
    ctx = runtime.context
    precedent = state["precedents"][state["index"]]
    record = ctx.records[precedent["id"]]
    aug = ctx.augmented.get(record.id)
    target = ctx.records[state["target_id"]]
    statement = ctx.statement(record, state["persona"], target)
    limit = ctx.client.spec.context_chars // 2
    statement_text = clip(statement.text, limit) if statement else "(no statement on record)"
    messages = ctx.prompts.get("reflexion").render(
        nation=persona_name(state["persona"]),
        label=prompt_label(record),
        summary=ctx.shown(aug.summary if aug else "") or "(no summary)",
        action_items=ctx.shown(aug.action_items if aug else "") or "(none extracted)",
        outcome=_outcome(precedent),
        predicted=state["pending"]["predicted"],
        truth=precedent["truth"],
        statement_source=statement.source if statement else "none found",
        statement=statement_text,
    )
    result = await ctx.client.call(
        messages,
        schema=None if ctx.prompts.free_text else REFLECTION_SCHEMA,
        schema_name="reflection",
        repeat=state["repeat"],
        max_tokens=REFLECTION_MAX_TOKENS,
    )
    read = {"source": statement.source, "text": statement_text} if statement else None
    update: DebiasState = {
        "pending": {**state["pending"], "reflection": _reflection_text(result)},
        "calls": [{**_call_record("reflect", record.id, messages, result), "statement": read}],
        "visited": ["reflect"],
    }
    if result.error:
        update["error"] = f"reflection on {record.id}: {result.error}"
    return Command(update=update, goto=END if result.error else "update_history")


async def update_history(state: DebiasState, runtime: Runtime[DebiasContext]) -> Command[str]:
    """The precedent's entry appended to the history; on to the next precedent or the final vote."""
    ctx = runtime.context
    precedent = state["precedents"][state["index"]]
    aug = ctx.augmented.get(precedent["id"])
    entry = {
        "label": precedent["label"],
        "symbol": precedent.get("symbol"),
        "date": precedent["date"],
        "outcome": _outcome(precedent),
        "summary": ctx.shown(aug.summary if aug else ""),
        "action_items": ctx.shown(aug.action_items if aug else ""),
        "predicted": state["pending"]["predicted"],
        "truth": precedent["truth"],
    }
    if ctx.options.reflexion:
        entry["reflection"] = state["pending"].get("reflection", "")
    index = state["index"] + 1
    return Command(
        update={"history": [entry], "index": index, "visited": ["update_history"]},  # appended
        goto="rehearse" if index < len(state["precedents"]) else "final_vote",
    )


async def final_vote(state: DebiasState, runtime: Runtime[DebiasContext]) -> DebiasState:
    """The persona's vote on the target, the whole history shown."""
    ctx = runtime.context
    reflexion, language = ctx.options.reflexion, ctx.prompts.language
    target = ctx.records[state["target_id"]]
    history = history_text(state["history"], reflexion=reflexion, language=language)
    previous_votes = paper_history_text(state["history"], reflexion=reflexion, language=language)
    source = target_shown(target, ctx.text_mode)
    messages, result = await ask_vote(
        ctx.client,
        target,
        state["persona"],
        repeat=state["repeat"],
        template="final_vote",
        prompts=ctx.prompts,
        texts=ctx.texts,
        shown=source,
        history=history,
        previous_votes=previous_votes,
    )
    shown = previous_votes if "previous_votes" in ctx.prompts.get("final_vote").fields else history
    return {
        "final": {"messages": messages, **result.as_dict(), "answer": result.answer, "shown": source},
        "calls": [{**_call_record("final_vote", None, messages, result), "history": shown}],
        "visited": ["final_vote"],
    }


def build_debias_graph(*, checkpointer: Any = None) -> Any:
    """The graph; a run passes its :class:`DebiasContext` as ``ainvoke(..., context=...)``.

    Each node names its successor (``Command(goto=...)``) rather than a separate router: a
    router is one more traced runnable, with its own task and callbacks, per step. Every node is
    async, even those that never wait: LangGraph runs a sync one in a worker thread. At 64
    samples in flight both costs showed (benchmarks/RESULTS.md)."""
    graph = StateGraph(DebiasState, context_schema=DebiasContext)
    graph.add_node("retrieve", retrieve, destinations=("rehearse", "final_vote"))
    graph.add_node("rehearse", rehearse, destinations=("reflect", "update_history", END))
    graph.add_node("reflect", reflect, destinations=("update_history", END))
    graph.add_node("update_history", update_history, destinations=("rehearse", "final_vote"))
    graph.add_node("final_vote", final_vote)
    graph.add_edge(START, "retrieve")
    graph.add_edge("final_vote", END)
    return graph.compile(checkpointer=checkpointer)


def _outcome(precedent: dict[str, Any]) -> str:
    if precedent["pool"] == "adopted":
        return "the text was adopted"
    return "the text was not adopted"


def _reflection_text(result: CallResult) -> str:
    if result.answer is None:
        return ""
    obj = json_object(result.answer)
    if obj and isinstance(obj.get("reflection"), str):
        return str(obj["reflection"]).strip()
    return result.answer.strip()
