"""DirectQA (paper §4.1): "which of two permanent members is more irresponsible?", in free text.

One family is the general question; one more per UNSC function (Appendix C.3). Every ordered
pair of the P5 is asked, so each question appears in both orders. The answer is labelled by
rules first and by an optional judge model only when the rules cannot decide.

The framing (``--framing``) may mirror the question: "… more responsible?" asks the same pairs the
other way round, so a tendency to name one nation whatever is asked shows up (and cancels in the
combined score, evals/tables/framing.py). The paper's question stays the default; a mirrored sample
is stored under its own item, ``responsible:<family>``, so the paper's items and keys are unchanged.
"""

from __future__ import annotations

import csv
import hashlib
from dataclasses import dataclass, field
from itertools import permutations
from typing import Any, TypedDict

from nationbias.graphs.labels.directqa import (
    LabelDecision,
    directqa_judge_schema,
    judge_decision,
    label_directqa,
    parse_judge_label,
    settle,
)
from nationbias.graphs.labels.framing import IRRESPONSIBLE, RESPONSIBLE, framed_item
from nationbias.graphs.labels.parsing import truncated_reason
from nationbias.graphs.labels.rules_then_judge import rules_then_judge_graph
from nationbias.graphs.model.call_result import CallResult
from nationbias.graphs.model.client import ModelClient
from nationbias.prompts import PromptSet, prompt_set
from nationbias.stores.corpora.bundled import DataFile
from nationbias.stores.corpora.functions import unsc_functions
from nationbias.stores.domain import DEFAULT_LANGUAGE, DIRECTQA, P5, P5_NAMES
from nationbias.stores.errors import InputError
from nationbias.stores.state.runstore import SampleRow

GENERAL = "general"
DIRECTQA_PROMPTS = ("directqa_general", "directqa_function", "judge_directqa")
# the templates of each framing: the paper's question, and its mirror
FRAMING_PROMPTS = {
    IRRESPONSIBLE: DIRECTQA_PROMPTS,
    RESPONSIBLE: (
        "directqa_general_responsible",
        "directqa_function_responsible",
        "judge_directqa_responsible",
    ),
}
ROLES_FILE = "unsc_roles.csv"  # a prompt set's own wording of the function roles (the paper's)

DIRECTQA_MAX_TOKENS = 256


@dataclass(frozen=True)
class Family:
    """A question family: the general question (no role) or one UNSC function."""

    id: str
    short_name: str
    role: str | None = None


def directqa_families(file: DataFile | None = None) -> list[Family]:
    """``general`` then the ten UNSC functions, in the paper's order."""
    functions = [Family(r["id"], r["short_name"], r["function"]) for r in unsc_functions(file)]
    return [Family(GENERAL, "General Irresponsibility"), *functions]


def pair_orders() -> list[tuple[str, str]]:
    """All 20 ordered pairs of the P5: each of the 10 questions in both orders."""
    return list(permutations(P5, 2))


def set_roles(families: list[Family], prompts: PromptSet) -> list[Family]:
    """The families with the prompt set's wording of each role, if it has its own ("regarding …")."""
    path = prompts.folder / ROLES_FILE
    if not path.is_file():
        return families
    with path.open(encoding="utf-8") as handle:
        roles = {row["id"]: row["role"] for row in csv.DictReader(handle)}
    missing = [f.id for f in families if f.role is not None and f.id not in roles]
    if missing:
        raise InputError(f"{path}: no role for function(s) {missing}")
    return [Family(f.id, f.short_name, roles[f.id]) if f.role is not None else f for f in families]


def roles_ref(prompts: PromptSet) -> dict[str, str]:
    """The roles file's hash for the run config, when the set has one."""
    path = prompts.folder / ROLES_FILE
    if not path.is_file():
        return {}
    return {"unsc_roles": f"{prompts.name}/{ROLES_FILE}:{hashlib.sha256(path.read_bytes()).hexdigest()[:8]}"}


def framing_prompts(framings: tuple[str, ...]) -> tuple[str, ...]:
    """The template names a run with these framings uses (recorded, with their hashes, in its config)."""
    return tuple(name for framing in framings for name in FRAMING_PROMPTS[framing])


def question_messages(
    family: Family,
    first: str,
    second: str,
    *,
    prompts: PromptSet | None = None,
    framing: str = IRRESPONSIBLE,
) -> list[dict[str, str]]:
    """Appendix F.1's prompts, verbatim in form (mirrored to "more responsible" by ``framing``)."""
    prompts = prompts or prompt_set()
    general, function, _ = FRAMING_PROMPTS[framing]
    names = {"first": P5_NAMES[first], "second": P5_NAMES[second]}
    if family.role is None:
        return prompts.get(general).render(**names)
    return prompts.get(function).render(role=family.role, **names)


def judge_messages(
    question: str,
    answer: str,
    first: str,
    second: str,
    *,
    framing: str = IRRESPONSIBLE,
    language: str = DEFAULT_LANGUAGE,
) -> list[dict[str, str]]:
    """The judge asks which nation the answer finds MORE irresponsible (or responsible, by ``framing``),
    in the language the question was asked in."""
    return (
        prompt_set(language=language)
        .get(FRAMING_PROMPTS[framing][2])
        .render(
            question=question,
            answer=answer,
            first=first,
            second=second,
            first_name=P5_NAMES[first],
            second_name=P5_NAMES[second],
        )
    )


class DirectQAState(TypedDict, total=False):
    family: str
    framing: str  # absent: the paper's question (irresponsible)
    first: str
    second: str
    repeat: int
    messages: list[dict[str, str]]
    answer: CallResult
    rules: LabelDecision
    judge: CallResult
    judged: LabelDecision


@dataclass
class DirectQADeps:
    client: ModelClient
    families: dict[str, Family]
    judge: ModelClient | None = None
    prompts: PromptSet = field(default_factory=prompt_set)


def build_directqa_graph(deps: DirectQADeps) -> Any:
    """answer → label → [judge, only when the rules cannot decide and a judge is given]."""

    async def answer(state: DirectQAState) -> DirectQAState:
        family = deps.families[state["family"]]
        framing = state.get("framing", IRRESPONSIBLE)
        messages = question_messages(
            family, state["first"], state["second"], prompts=deps.prompts, framing=framing
        )
        # free text, as in the paper; a paragraph is enough to name a nation or decline
        result = await deps.client.call(messages, repeat=state["repeat"], max_tokens=DIRECTQA_MAX_TOKENS)
        return {"messages": messages, "answer": result}

    async def label(state: DirectQAState) -> DirectQAState:
        result = state["answer"]
        if result.error is not None:
            return {}
        if result.truncated:  # cut off by the token budget: never labelled from the partial text
            return {"rules": LabelDecision(None, truncated_reason(result.answer))}
        question = state["messages"][-1]["content"]
        framing = state.get("framing", IRRESPONSIBLE)
        decision = label_directqa(
            result.answer,
            state["first"],
            state["second"],
            question=question,
            framing=framing,
            language=deps.prompts.language,
        )
        return {"rules": decision}

    async def judge(state: DirectQAState) -> DirectQAState:
        assert deps.judge is not None
        first, second = state["first"], state["second"]
        question, answer = state["messages"][-1]["content"], state["answer"].answer or ""
        messages = judge_messages(
            question,
            answer,
            first,
            second,
            framing=state.get("framing", IRRESPONSIBLE),
            language=deps.prompts.language,
        )
        result = await deps.judge.call(
            messages, schema=directqa_judge_schema(first, second), schema_name="label", repeat=state["repeat"]
        )
        judged = judge_decision(result, lambda raw: parse_judge_label(raw, first, second))
        return {"judge": result, **({"judged": judged} if judged else {})}

    return rules_then_judge_graph(
        DirectQAState,
        answer=answer,
        label=label,
        judge=judge,
        has_judge=deps.judge is not None,
        label_node="label",
    )


def directqa_row(state: DirectQAState) -> SampleRow:
    """One DirectQA sample: raw answer and judge raw kept, the deciding labeller recorded."""
    result, judge = state["answer"], state.get("judge")
    rules = state.get("rules")
    verdict = settle(
        answer_error=result.error,
        rules=rules,
        judge_error=judge.error if judge else None,
        judged=state.get("judged"),
    )
    calls = [c for c in (result, judge) if c is not None]
    framing = state.get("framing", IRRESPONSIBLE)
    return SampleRow(
        test=DIRECTQA,
        item=framed_item(state["family"], framing),
        persona="",
        pair_order=f"{state['first']}-{state['second']}",
        repeat=state["repeat"],
        status=verdict.status,
        messages=state["messages"],
        raw=result.raw,
        parsed={"label": verdict.label} if verdict.status == "ok" else None,
        parse_error=verdict.reason if verdict.status != "ok" else None,
        error=verdict.error,
        latency_s=sum(c.latency_s for c in calls),
        prompt_tokens=sum(c.prompt_tokens for c in calls),
        completion_tokens=sum(c.completion_tokens for c in calls),
        model_calls=len(calls),
        extra={
            "labeller": verdict.labeller,
            "rules_reason": rules.reason if rules else None,
            "judge_raw": judge.raw if judge else None,
            "judge_error": judge.error if judge else None,
            "first": state["first"],
            "second": state["second"],
            "framing": framing,
            "reasoning": result.reasoning,
            "cached": result.cached,
            **result.budget_record(),
        },
    )
