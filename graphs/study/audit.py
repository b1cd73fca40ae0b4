"""What a vote or debias run records about its own prompts and precedents.

:func:`leak_audit` reads each target's vote prompt as the study builds it and counts the outcome
and counterfactual markers the guard finds in it (zero expected), how many sentences of its context
were rewritten or removed, and which contexts fell back to title / agenda, and why.
:func:`precedent_coverage` counts how many precedents each target got per pool part (0, 1, 2+)
and says why a target got none: the best earlier score and what it was made of; :func:`precedent_texts`
counts the kind and language of text each precedent is shown in, as the leak audit does for targets.
Both go into the run's config, so the report and ``nationbias data audit`` show them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pandas as pd

from nationbias.graphs.translate import TranslatedTexts
from nationbias.graphs.vote import MAX_CONTEXT_CHARS, vote_messages, vote_template
from nationbias.prompts import PromptSet, prompt_set
from nationbias.retrievers.base import POOL_NAMES, PoolName, Precedent, Retriever, pool_part
from nationbias.retrievers.context import ExplainsMisses
from nationbias.stores.guard.leak import context_for_prompt, find_outcome_language
from nationbias.stores.guard.leak_languages import find_translated_outcomes
from nationbias.stores.records import Record
from nationbias.stores.text.audit import budget_counts
from nationbias.stores.text.budget import prompt_text
from nationbias.stores.text.un_prompt import (
    TEXTS_MODES,
    Shown,
    TextsMode,
    precedent_source,
    target_shown,
    un_context,
    with_un_text,
)


def leak_audit(
    targets: Sequence[Record],
    *,
    persona: str = "USA",
    context_chars: int = MAX_CONTEXT_CHARS,
    prompts: PromptSet | None = None,
    texts: TranslatedTexts | None = None,
    text_mode: TextsMode = "press",
) -> dict[str, Any]:
    """Per target: markers in its vote prompt, sentences rewritten / removed, fallback and why, and the
    kind of text shown (``--texts``). With ``texts`` (``--translate-with``) the translated context is read
    with its language's markers too, and the translation's own removals are counted."""
    rows: list[dict[str, Any]] = []
    prompts = prompts or prompt_set()
    template = prompts.get(vote_template(persona))
    fixed = f"{template.system}\n{template.user}"  # the instructions name the options: not a leak
    for record in targets:
        shown_in = target_shown(record, text_mode)
        text = prompt_text(record, budget=context_chars, shown=shown_in, language=prompts.language)
        ctx = un_context(record, text.language) if text.shown == "un" else None
        ctx = ctx or context_for_prompt(record)
        messages = vote_messages(
            record, persona, context_chars=context_chars, prompts=prompts, texts=texts, shown=shown_in
        )
        prompt = "\n".join(m["content"] for m in messages)
        hits = [h for h in find_outcome_language(prompt, record=record) if h.sentence not in fixed]
        if text.language != "en":  # the UN's own translation, read with its language's markers
            hits += find_translated_outcomes(text.text, language=text.language, record=record)
        elif texts is not None:  # the context as sent, in its language (the instructions name the options)
            shown = texts.shown(text.text)
            hits += find_translated_outcomes(shown, language=texts.language, record=record)
        rows.append(
            {
                "id": record.id,
                "kind": ctx.kind,
                "text_kind": text.text_kind,
                "text_language": _text_language(text.language, prompts.language, texts),
                "markers": [f"{h.label}: {h.match}" for h in hits],
                "rewritten": ctx.rewritten_sentences,
                "removed": ctx.removed_sentences,
                "fallback_reason": ctx.fallback_reason,
            }
        )
    translated = (
        {}
        if texts is None
        else {
            "translation": {
                "language": texts.language,
                "translator": texts.translator,
                "markers_found": texts.markers_found,
                "sentences_removed": len(texts.removed),
            }
        }
    )
    return {
        **translated,
        "targets": len(rows),
        "prompts_with_markers": sum(1 for r in rows if r["markers"]),
        "markers": sum(len(r["markers"]) for r in rows),
        "rewritten_sentences": sum(r["rewritten"] for r in rows),
        "removed_sentences": sum(r["removed"] for r in rows),
        "contexts_rewritten": sum(1 for r in rows if r["rewritten"]),
        "fallbacks": sum(1 for r in rows if r["kind"] == "fallback"),
        "kinds": dict(Counter(r["kind"] for r in rows)),
        "text_mode": text_mode,
        "text_kinds": dict(Counter(r["text_kind"] for r in rows)),
        "text_languages": dict(Counter(r["text_language"] for r in rows)),
        "text_budget": budget_counts(targets, budget=context_chars, text_mode=text_mode),
        "rows": rows,
    }


def precedent_texts(
    targets: Sequence[Record],
    *,
    shown_to: Callable[[Record], Sequence[Record]],
    source: Callable[[Record], Shown],
    context_chars: int = MAX_CONTEXT_CHARS,
    language: str = "en",
    texts: TranslatedTexts | None = None,
) -> dict[str, Any]:
    """The kind and language of text of every precedent a run's prompts show: each (target, precedent) once,
    counted by kind, by language, and by kind for the adopted and the failed ones apart (one kind for
    both, per target, is what keeps the kind from marking the failed one).

    ``shown_to`` gives the precedents a target's prompts show (over every persona of the run), ``source``
    the one kind of text they are shown in (``precedent_source``)."""
    kinds: Counter[str] = Counter()
    languages: Counter[str] = Counter()
    by_outcome: dict[str, Counter[str]] = {"adopted": Counter(), "failed": Counter()}
    for target in targets:
        shown_in = source(target)
        for record in {r.id: r for r in shown_to(target)}.values():
            text = prompt_text(record, budget=context_chars, shown=shown_in, language=language)
            kinds[text.text_kind] += 1
            languages[_text_language(text.language, language, texts)] += 1
            by_outcome[_outcome_name(record)][text.text_kind] += 1
    return {
        "shown": sum(kinds.values()),
        "text_kinds": dict(kinds),
        "text_languages": dict(languages),
        "text_kinds_by_outcome": {outcome: dict(c) for outcome, c in by_outcome.items()},
    }


def _text_language(shown: str, asked: str, texts: TranslatedTexts | None) -> str:
    """How a target's text reached the prompt's language: the UN's own translation, the English quoted,
    or a model's translation (``--translate-with``)."""
    if shown == asked:
        return asked if asked == "en" else f"{asked} (the UN's own translation)"
    return f"{asked} (translated by {texts.translator})" if texts is not None else "en (quoted)"


def _bucket(n: int) -> str:
    return "2+" if n >= 2 else str(n)


def why_none(target: Record, pool: Sequence[Record], part: PoolName, retriever: Retriever | None) -> str:
    """Why ``target`` got no precedent from ``part``: no earlier item, or what the retriever says of its
    miss (the keyword retriever: the best score and its parts)."""
    earlier = [r for r in pool if pool_part(r) == part and r.date < target.date and r.id != target.id]
    if not earlier:
        return f"no {part} item dated before {target.date}"
    if isinstance(retriever, ExplainsMisses):
        return retriever.why_none(target, earlier, part)
    return f"the retriever kept none of {len(earlier)} earlier {part} items"


def precedent_coverage(
    targets: Sequence[Record],
    found: Mapping[str, Sequence[Precedent]],
    *,
    pool: Sequence[Record],
    retriever: Retriever | None = None,
    threshold: float | None = None,
) -> dict[str, Any]:
    """How many targets got 0, 1 or 2+ precedents from each pool part, and why any got none.

    ``retriever``: the strategy that found them, to explain a miss if it can; ``threshold``: the cut
    it took, recorded beside.
    """
    counts: dict[str, Counter[str]] = {part: Counter() for part in POOL_NAMES}
    missing = []
    for target in targets:
        per_part = Counter(p.pool for p in found.get(target.id, ()))
        for part in POOL_NAMES:
            counts[part][_bucket(per_part[part])] += 1
            if not per_part[part]:
                why = why_none(target, pool, part, retriever)
                missing.append({"id": target.id, "pool": part, "why": why})
    none_at_all = [t.id for t in targets if not found.get(t.id)]
    return {
        "targets": len(targets),
        "threshold": threshold,
        "per_pool": {part: {b: counts[part][b] for b in ("0", "1", "2+")} for part in POOL_NAMES},
        "no_precedent": none_at_all,
        "missing": missing,
    }


def text_kind_audit(
    targets: Sequence[Record],
    *,
    pool: Sequence[Record],
    retrieve: Callable[[Record, Sequence[Record]], Sequence[Precedent]],
    modes: Sequence[TextsMode] = TEXTS_MODES,
    budget: int = MAX_CONTEXT_CHARS,
) -> pd.DataFrame:
    """Text kind × outcome, for the targets and for the precedents their prompts show, under each
    ``--texts`` mode: one row per (mode, role, outcome, kind) with its count.

    ``targets`` is the run's target set (a parameter, so another target set is one more call);
    ``retrieve`` answers a target's precedents from a pool, as the run's retriever does. A kind that
    appears for one outcome and not the other is what could mark an item as failed.
    """
    counts: Counter[tuple[str, str, str, str]] = Counter()
    un_pool = with_un_text(pool)
    for mode in modes:
        shown_targets = with_un_text(targets) if mode == "un" else list(targets)
        for target in shown_targets:
            kind = prompt_text(target, budget=budget, shown=target_shown(target, mode)).text_kind
            counts[(mode, "target", _outcome_name(target), kind)] += 1
            source = precedent_source(target, mode, un_pool)
            for precedent in retrieve(target, un_pool if source == "un" else pool):
                shown = prompt_text(precedent.record, budget=budget, shown=source).text_kind
                counts[(mode, "precedent", _outcome_name(precedent.record), shown)] += 1
    rows = [
        {"texts": mode, "role": role, "outcome": outcome, "kind": kind, "n": n}
        for (mode, role, outcome, kind), n in counts.items()
    ]
    return pd.DataFrame(rows, columns=["texts", "role", "outcome", "kind", "n"])


def _outcome_name(record: Record) -> str:
    return "adopted" if record.adopted else "failed"
