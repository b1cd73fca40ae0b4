"""Association Test (paper §4.1): rank the P5 by relevance to a keyword, and say why.

The five names are shown in a seeded random order per prompt (recorded), the ranking is parsed
strictly, and the rationale's polarity is decided by rules when clearly one-sided, else by the
optional judge. Inconsistent rationales are kept but carry no polarity (the paper discards them).
"""

from __future__ import annotations

import csv
import random
from dataclasses import dataclass, field
from typing import Any, TypedDict

from nationbias.graphs.labels.directqa import LabelDecision, judge_decision, settle
from nationbias.graphs.labels.parsing import Parsed, truncated_reason
from nationbias.graphs.labels.ranking import (
    POLARITY_SIGN,
    label_polarity,
    parse_association,
    parse_judge_polarity,
    polarity_judge_schema,
    ranking_schema,
)
from nationbias.graphs.labels.rules_then_judge import rules_then_judge_graph
from nationbias.graphs.model.call_result import CallResult
from nationbias.graphs.model.client import ModelClient
from nationbias.prompts import PromptSet, prompt_set
from nationbias.stores.corpora.augment import keyword_pool
from nationbias.stores.corpora.bundled import DataFile, paper_file
from nationbias.stores.domain import ASSOCIATION, P5, P5_NAMES
from nationbias.stores.errors import InputError
from nationbias.stores.state.runstore import SampleRow

ASSOCIATION_PROMPTS = ("association", "judge_polarity")


def pool_file(path: str | None = None) -> DataFile:
    """The keyword pool a run reads: ``path``, else the paper's."""
    return DataFile.file(path) if path else paper_file("keyword_pool.csv")


def load_pool(path: str | None = None) -> list[tuple[str, str]]:
    """``(category, keyword)`` pairs from a CSV with columns category,keyword (the paper's by default)."""
    file = pool_file(path)
    with file.open_text(newline="") as handle:
        header = next(csv.reader(handle), [])
    missing = {"category", "keyword"} - set(header)
    if missing:
        raise InputError(f"{file}: a keyword pool needs columns category,keyword; missing {sorted(missing)}")
    pool = [(c.strip(), k.strip()) for c, k in keyword_pool(file) if k and k.strip()]
    seen: set[str] = set()
    for _, keyword in pool:
        if keyword in seen:
            raise InputError(f"{file}: keyword {keyword!r} appears more than once")
        seen.add(keyword)
    if not pool:
        raise InputError(f"{file}: the keyword pool is empty")
    return pool


def presented_order(*, seed: int, keyword: str, repeat: int) -> list[str]:
    """The five codes in a random order fixed by (seed, keyword, repeat): stable across resumes."""
    order = list(P5)
    random.Random(f"{seed}|{keyword}|{repeat}").shuffle(order)
    return order


def association_messages(
    keyword: str, order: list[str], *, prompts: PromptSet | None = None
) -> list[dict[str, str]]:
    members = "\n".join(P5_NAMES[c] for c in order)
    return (prompts or prompt_set()).get("association").render(keyword=keyword, members=members)


class AssociationState(TypedDict, total=False):
    keyword: str
    category: str
    repeat: int
    order: list[str]
    messages: list[dict[str, str]]
    answer: CallResult
    parsed: Parsed
    rules: LabelDecision
    judge: CallResult
    judged: LabelDecision


@dataclass
class AssociationDeps:
    client: ModelClient
    judge: ModelClient | None = None
    prompts: PromptSet = field(default_factory=prompt_set)


def build_association_graph(deps: AssociationDeps) -> Any:
    """answer → parse → [judge the polarity, only when the rules cannot decide and a judge is given]."""
    schema = (
        None if deps.prompts.free_text else ranking_schema(permutations_only=deps.client.spec.is_embedded)
    )

    async def answer(state: AssociationState) -> AssociationState:
        messages = association_messages(state["keyword"], state["order"], prompts=deps.prompts)
        result = await deps.client.call(
            messages, schema=schema, schema_name="ranking", repeat=state["repeat"]
        )
        return {"messages": messages, "answer": result}

    async def parse(state: AssociationState) -> AssociationState:
        result = state["answer"]
        if result.error is not None:
            return {}
        if result.truncated:  # cut off by the token budget: never parsed from the partial text
            return {"parsed": Parsed(None, truncated_reason(result.answer))}
        parsed = parse_association(result.answer, language=deps.prompts.language)
        if not parsed.ok:
            return {"parsed": parsed}
        rationale = (parsed.payload or {}).get("rationale", "")
        return {
            "parsed": parsed,
            "rules": label_polarity(rationale, state["keyword"], language=deps.prompts.language),
        }

    async def judge(state: AssociationState) -> AssociationState:
        assert deps.judge is not None
        parsed = state["parsed"]
        messages = (
            prompt_set(language=deps.prompts.language)
            .get("judge_polarity")
            .render(
                keyword=state["keyword"],
                ranking=", ".join(P5_NAMES[c] for c in parsed.value),
                rationale=(parsed.payload or {}).get("rationale") or "(none given)",
            )
        )
        result = await deps.judge.call(
            messages, schema=polarity_judge_schema(), schema_name="polarity", repeat=state["repeat"]
        )
        judged = judge_decision(result, parse_judge_polarity)
        return {"judge": result, **({"judged": judged} if judged else {})}

    return rules_then_judge_graph(
        AssociationState,
        answer=answer,
        label=parse,
        judge=judge,
        has_judge=deps.judge is not None,
        label_node="parse",
    )


def association_row(state: AssociationState) -> SampleRow:
    """One AT sample: the ranking as codes, polarity ±1 (None when inconsistent), raws kept."""
    result, judge, parsed = state["answer"], state.get("judge"), state.get("parsed")
    if parsed is not None and not parsed.ok:
        rules: LabelDecision | None = LabelDecision(None, parsed.reason or "malformed_ranking")
    else:
        rules = state.get("rules")
    verdict = settle(
        answer_error=result.error,
        rules=rules,
        judge_error=judge.error if judge else None,
        judged=state.get("judged"),
    )
    value = None
    if verdict.status == "ok" and parsed is not None and verdict.label is not None:
        value = {"ranking": parsed.value, "polarity": POLARITY_SIGN[verdict.label]}
    calls = [c for c in (result, judge) if c is not None]
    return SampleRow(
        test=ASSOCIATION,
        item=state["keyword"],
        persona="",
        repeat=state["repeat"],
        status=verdict.status,
        messages=state["messages"],
        raw=result.raw,
        parsed=value,
        parse_error=verdict.reason if verdict.status != "ok" else None,
        error=verdict.error,
        latency_s=sum(c.latency_s for c in calls),
        prompt_tokens=sum(c.prompt_tokens for c in calls),
        completion_tokens=sum(c.completion_tokens for c in calls),
        model_calls=len(calls),
        extra={
            "category": state["category"],
            "order_presented": state["order"],
            "polarity_label": verdict.label if value else None,
            "labeller": verdict.labeller,
            "rules_reason": rules.reason if rules else None,
            "rationale": (parsed.payload or {}).get("rationale") if parsed else None,
            "judge_raw": judge.raw if judge else None,
            "judge_error": judge.error if judge else None,
            "reasoning": result.reasoning,
            "cached": result.cached,
            **result.budget_record(),
        },
    )
