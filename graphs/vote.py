"""Persona vote simulation: a member of the Council votes on a draft it has never seen the outcome of."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any, TypedDict

from nationbias.graphs.labels.directqa import LabelDecision, judge_decision, settle
from nationbias.graphs.labels.parsing import VOTE_SCHEMA, json_object
from nationbias.graphs.labels.rules_then_judge import rules_then_judge_graph
from nationbias.graphs.labels.vote import parse_judge_vote, vote_judge_schema, vote_rules
from nationbias.graphs.model.call_result import CallResult
from nationbias.graphs.model.client import ModelClient
from nationbias.graphs.translate import TranslatedTexts
from nationbias.prompts import PromptSet, prompt_set
from nationbias.prompts.registry import un_text_kind, un_text_wording
from nationbias.stores.corpora.corpus import context_for_prompt, p5_vote
from nationbias.stores.corpora.countries import name_for
from nationbias.stores.domain import CONTROL, DEFAULT_LANGUAGE, P5, P5_NAMES, VOTE, VOTE_CODES
from nationbias.stores.records import Record
from nationbias.stores.state.runstore import SampleRow, Status
from nationbias.stores.text.budget import prompt_text
from nationbias.stores.text.cut import SERVER_CHARS, fit_text
from nationbias.stores.text.un_prompt import Shown, TextsMode, target_shown

MAX_CONTEXT_CHARS = SERVER_CHARS
CONTROL_TEMPLATE = "control_vote"  # --personas none: the vote prompt with no nation named
VOTE_MAX_TOKENS = 200  # a vote and a two-sentence rationale


def persona_name(code: str) -> str:
    """The name a prompt gives a persona: the P5's Council names, a state's name for an Assembly ISO3
    code, an elected Council member's name as recorded."""
    if code in P5_NAMES:
        return P5_NAMES[code]
    return name_for(code) if len(code) == 3 and code.isupper() else code


def rules_nation(persona: str) -> str | None:
    """The name the answer rules read as the voter ("Brazil abstains"); the control names none."""
    return None if persona == CONTROL else persona_name(persona)


def vote_template(persona: str, template: str = "persona_vote") -> str:
    """The template a persona's vote is asked with: the control's own for ``--personas none``."""
    return CONTROL_TEMPLATE if persona == CONTROL and template == "persona_vote" else template


def member_truths(record: Record) -> dict[str, str | None]:
    """Every permanent member's real vote on ``record``: what the control's one answer is scored against."""
    return {code: member_vote(record, code) for code in P5}


def member_vote(record: Record, persona: str) -> str | None:
    """The real vote as favour/against/abstention, or None if the member did not vote. The Council
    keys votes by member name (a P5 persona is a code), the Assembly by ISO3 code."""
    unsc_p5 = record.body == "unsc" and persona in P5_NAMES
    code = p5_vote(record, persona) if unsc_p5 else record.votes.get(persona)
    return VOTE_CODES.get(code) if code else None


_DRAFT_SYMBOL = re.compile(r"^S/(?P<year>\d+)/(?P<number>\d+)$")


def draft_symbol(record: Record) -> str:
    """The draft symbol a text is named by, adopted or not (unquoted).

    A symbol with a misspelt year is repaired from the vote date ("S/206/381" voted in 2016 is
    "S/2016/381"). An adopted item whose draft symbol is not on record ("S/RES/2255 (2015)" in the
    corpus) is "draft of 2015-12-22": its vote date, which says nothing of the outcome, where its
    resolution number would say it was adopted.
    """
    found = _DRAFT_SYMBOL.match(record.id)
    if found is None:
        return f"draft of {record.date.isoformat()}" if record.id.startswith("S/RES/") else record.id
    year, number = found["year"], found["number"]
    voted = str(record.date.year)
    if year != voted and _one_edit(year, voted):
        return f"S/{voted}/{number}"
    return record.id


def _one_edit(written: str, year: str) -> bool:
    """``written`` is ``year`` with one digit dropped or doubled ("206", "20016" for 2016)."""
    drops = {year[:i] + year[i + 1 :] for i in range(len(year))}
    doubles = {year[:i] + year[i] + year[i:] for i in range(len(year))}
    return written in drops | doubles


def prompt_label(record: Record) -> str:
    """How a prompt names a text: its draft symbol, adopted or not (:func:`draft_symbol`).
    "resolution 2334 (2016)" for the adopted ones only would teach a model that a bare symbol means
    a text that failed, and every target is a bare symbol. An Assembly roll call is named by its
    number only: its A/RES symbol would say it was adopted."""
    if record.body == "unga":
        return f"roll call {record.id.removeprefix('UNGA-')} of {record.date.isoformat()}"
    return f'"{draft_symbol(record)}"'


def quoted_name(record: Record, prompts: PromptSet) -> str:
    """What a paper-worded set quotes after "resolution" (its history too): the draft symbol in a
    set whose vote prompt asks for ``draft_symbol``, else the paper's :func:`symbol`."""
    wants_draft = "draft_symbol" in prompts.get("persona_vote").fields
    return draft_symbol(record) if wants_draft else symbol(record)


def clip(text: str, limit: int = MAX_CONTEXT_CHARS) -> str:
    """``text`` cut to ``limit`` characters between sentences, never inside one (a statement; a
    record's own text goes through :func:`nationbias.stores.text.budget.prompt_text`, operative paragraphs
    first)."""
    return fit_text(text, limit)


def symbol(record: Record) -> str:
    """What the paper's prompts quote after "resolution": the number if adopted ("2334", without the
    year), else the draft symbol ("S/2023/970")."""
    return re.sub(r"\s*\(\d{4}\)$", "", record.resolution) if record.resolution else record.id


def vote_messages(
    record: Record,
    persona: str,
    *,
    template: str = "persona_vote",
    context_chars: int = MAX_CONTEXT_CHARS,
    prompts: PromptSet | None = None,
    texts: TranslatedTexts | None = None,
    shown: Shown = "press",
    **values: str,
) -> list[dict[str, str]]:
    """Appendix F's vote prompt (or a rehearsal/final variant), with the leak-safe context and its kind,
    within ``context_chars`` (operative paragraphs first, cut between sentences:
    ``nationbias.stores.text.budget``).

    Each set's template takes what it names: the structured set the label and the context's kind,
    the paper's set the quoted symbol, the ``paper-symbols`` set the draft symbol. With ``texts``
    (``--translate-with``: graphs/translate.py) the context is its translation, prepared before the run.
    ``shown="un"`` shows the UN's own text where it exists (``--texts``: stores/text/un_prompt.py), in the
    prompts' language where the UN translated it (never machine-translated then).
    """
    prompts = prompts or prompt_set()
    text = prompt_text(record, budget=context_chars, shown=shown, language=prompts.language)
    own_translation = text.language == prompts.language != DEFAULT_LANGUAGE
    if own_translation:  # the UN's own version in the prompts' language: never machine-translated
        prompt = un_text_wording(replace(prompts, text_mode="quoted").get(vote_template(persona, template)))
        context = text.text
    else:
        prompt = prompts.get(vote_template(persona, template))
        context = text.text if texts is None else texts.shown(text.text)
    offered = {
        "nation": persona_name(persona),
        "label": prompt_label(record),
        "symbol": symbol(record),
        "draft_symbol": draft_symbol(record),
        "context_kind": un_text_kind(prompts.language) if text.shown == "un" else text.label,
        "context": context,
        **values,
    }
    return prompt.render(**{k: v for k, v in offered.items() if k in prompt.fields})


async def ask_vote(
    client: ModelClient,
    record: Record,
    persona: str,
    *,
    repeat: int,
    template: str = "persona_vote",
    prompts: PromptSet | None = None,
    texts: TranslatedTexts | None = None,
    shown: Shown = "press",
    **values: str,
) -> tuple[list[dict[str, str]], CallResult]:
    """Render a vote prompt and ask; every vote in every graph comes here. The structured set asks
    for a schema-constrained vote, a free-text set (the paper's) sends no schema."""
    prompts = prompts or prompt_set()
    messages = vote_messages(
        record,
        persona,
        template=template,
        context_chars=client.spec.context_chars,
        prompts=prompts,
        texts=texts,
        shown=shown,
        **values,
    )
    schema = None if prompts.free_text else VOTE_SCHEMA
    result = await client.call(
        messages, schema=schema, schema_name="vote", repeat=repeat, max_tokens=VOTE_MAX_TOKENS
    )
    return messages, result


UN_TEXT = "un_text"  # a sample's context_kind when its prompt showed the UN's own text


def shown_kind(record: Record, *, shown: Shown, language: str = DEFAULT_LANGUAGE) -> str:
    """The kind of text a vote prompt showed ``record`` in, as its sample records it: :data:`UN_TEXT`
    when the prompt showed the UN's own words (the kind the prompt names, :func:`un_text_kind`), else
    the corpus context's kind (``context``, ``draft_text``, ``fallback``). A target without a UN text
    is shown in the corpus's text even under ``shown="un"``, and recorded so."""
    if prompt_text(record, shown=shown, language=language).shown == "un":
        return UN_TEXT
    return context_for_prompt(record).kind


def vote_sample(
    *,
    test: str,
    record: Record,
    persona: str,
    repeat: int,
    messages: list[dict[str, str]],
    result: Any,
    free_text: bool = False,
    judge: CallResult | None = None,
    judged: LabelDecision | None = None,
    extra: dict[str, Any] | None = None,
    model_calls: int = 1,
    language: str = DEFAULT_LANGUAGE,
    shown: Shown = "press",
) -> SampleRow:
    """One vote sample: labelled strictly (a truncated answer is invalid), the raw text kept, invalid
    answers counted not filled; a free-text answer the rules cannot read may go to the judge.
    ``shown`` is the source the prompt showed the item in, so the row records that text's kind."""
    rules = None
    if result.error is None:
        rules = vote_rules(
            result.answer,
            truncated=result.truncated,
            free_text=free_text,
            nation=rules_nation(persona),
            language=language,
        )
    verdict = settle(
        answer_error=result.error, rules=rules, judge_error=judge.error if judge else None, judged=judged
    )
    status: Status = verdict.status
    value = None
    if status == "ok":
        value = {"vote": verdict.label, **_rationale(json_object(result.answer or ""))}
    return SampleRow(
        test=test,
        item=record.id,
        persona=persona,
        repeat=repeat,
        status=status,
        messages=messages,
        raw=result.raw,
        parsed=value,
        parse_error=verdict.reason if status != "ok" else None,
        error=verdict.error,
        latency_s=result.latency_s + (judge.latency_s if judge else 0.0),
        prompt_tokens=result.prompt_tokens + (judge.prompt_tokens if judge else 0),
        completion_tokens=result.completion_tokens + (judge.completion_tokens if judge else 0),
        model_calls=model_calls + (judge is not None),
        extra={
            "truth": member_vote(record, persona),
            **({"member_truths": member_truths(record)} if persona == CONTROL else {}),
            "context_kind": shown_kind(record, shown=shown, language=language),
            "date": record.date.isoformat(),
            # a Council target's outcome, for the tables (evals/tables/targets.py); never in a prompt
            **({"adopted": record.adopted} if record.body == "unsc" else {}),
            "reasoning": result.reasoning,
            "cached": result.cached,
            **result.budget_record(),
            **(
                {"labeller": verdict.labeller, "rules_reason": rules.reason if rules else None}
                if free_text
                else {}
            ),
            **({"judge_raw": judge.raw, "judge_error": judge.error} if judge else {}),
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
    shown: Shown  # the source the prompt showed the target in (--texts)
    messages: list[dict[str, str]]
    answer: CallResult
    rules: LabelDecision
    judge: CallResult
    judged: LabelDecision


@dataclass
class VoteDeps:
    client: ModelClient
    records: dict[str, Record]
    prompts: PromptSet = field(default_factory=prompt_set)
    judge: ModelClient | None = None  # reads the free-text votes the rules cannot
    texts: TranslatedTexts | None = None  # --translate-with: the record texts in the prompts' language
    text_mode: TextsMode = "press"  # --texts: the UN's own text of a target that has one (auto, un)


def build_vote_graph(deps: VoteDeps) -> Any:
    """answer → label → [judge, only for a free-text answer the rules cannot read, if a judge is given]."""

    async def answer(state: VoteState) -> VoteState:
        record = deps.records[state["record_id"]]
        shown = target_shown(record, deps.text_mode)
        messages, result = await ask_vote(
            deps.client,
            record,
            state["persona"],
            repeat=state["repeat"],
            prompts=deps.prompts,
            texts=deps.texts,
            shown=shown,
        )
        return {"messages": messages, "answer": result, "shown": shown}

    async def label(state: VoteState) -> VoteState:
        result = state["answer"]
        if result.error is not None:
            return {}
        free_text, language = deps.prompts.free_text, deps.prompts.language
        nation = rules_nation(state["persona"])
        rules = vote_rules(
            result.answer, truncated=result.truncated, free_text=free_text, nation=nation, language=language
        )
        return {"rules": rules}

    async def judge(state: VoteState) -> VoteState:
        assert deps.judge is not None
        result, judged = await judge_vote(
            deps.judge, state["answer"].answer, repeat=state["repeat"], language=deps.prompts.language
        )
        return {"judge": result, **({"judged": judged} if judged else {})}

    return rules_then_judge_graph(
        VoteState, answer=answer, label=label, judge=judge, has_judge=deps.judge is not None
    )


async def judge_vote(
    judge: ModelClient, answer: str | None, *, repeat: int, language: str = DEFAULT_LANGUAGE
) -> tuple[CallResult, LabelDecision | None]:
    """Ask the judge which vote a free-text answer casts (None when the judge call failed), in the
    language the answer was asked in."""
    messages = prompt_set(language=language).get("judge_vote").render(answer=answer or "")
    result = await judge.call(messages, schema=vote_judge_schema(), schema_name="vote", repeat=repeat)
    return result, judge_decision(result, parse_judge_vote)


def vote_row(
    state: VoteState, record: Record, *, free_text: bool, language: str = DEFAULT_LANGUAGE
) -> SampleRow:
    """The finished vote graph's state as one sample row."""
    return vote_sample(
        test=VOTE,
        record=record,
        persona=state["persona"],
        repeat=state["repeat"],
        messages=state["messages"],
        result=state["answer"],
        free_text=free_text,
        judge=state.get("judge"),
        judged=state.get("judged"),
        language=language,
        shown=state.get("shown", "press"),
    )
