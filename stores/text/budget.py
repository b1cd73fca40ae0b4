"""A prompt's text budget, spent on what the draft would do.

:func:`prompt_text` takes a record's leak-guarded text, mends it (:mod:`nationbias.stores.text.mend`),
cuts it to the budget between sentences, a draft's operative paragraphs first
(:mod:`nationbias.stores.text.cut`), and enriches a thin one from pre-vote sources
(:mod:`nationbias.stores.text.enrich`); :mod:`nationbias.stores.text.audit` tabulates what reached the
model and why.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from nationbias.stores.guard.leak import (
    ContextKind,
    PromptContext,
    context_for_prompt,
)
from nationbias.stores.records import Record
from nationbias.stores.text.cut import SERVER_CHARS, ends_whole, fit_draft, fit_text
from nationbias.stores.text.enrich import ENRICHMENT_NOUNS, THIN_CHARS, Enrichment, enrichments
from nationbias.stores.text.mend import TextFix, close_description, mend
from nationbias.stores.text.un_prompt import Shown, un_context, un_operative

# What a prompt shows of an item, as the data audit counts it: the UN's own text, another copy of the
# draft's text, a press description, a fall-back enriched from pre-vote sources, or agenda and topic alone
TextKind = Literal["un_text", "draft_text", "press", "enriched", "agenda_only"]
TEXT_KINDS: tuple[TextKind, ...] = ("un_text", "draft_text", "press", "enriched", "agenda_only")
TEXT_KIND_NAMES: dict[str, str] = {
    "un_text": "UN text",
    "draft_text": "other draft text",
    "press": "press",
    "enriched": "enriched",
    "agenda_only": "agenda-only",
}


@dataclass(frozen=True)
class PromptText:
    """What of a record's text reaches a prompt under one budget, and how it got there."""

    record_id: str
    budget: int
    text: str
    kind: ContextKind
    label: str
    chars_available: int
    operative_total: int
    operative_sent: int
    enrichments: tuple[Enrichment, ...] = ()
    fixes: tuple[TextFix, ...] = ()
    thin: bool = False
    thin_reason: str | None = None
    shown: Shown = "press"  # "un": the UN's own text (in ``language``)
    language: str = "en"

    @property
    def chars_sent(self) -> int:
        return len(self.text)

    @property
    def text_kind(self) -> TextKind:
        """Which kind of text this is (:data:`TEXT_KINDS`)."""
        if self.shown == "un":
            return "un_text"
        if self.kind == "fallback":
            return "enriched" if self.enrichments else "agenda_only"
        return "draft_text" if self.kind == "draft_text" else "press"


def _thin_reason(record: Record, ctx: PromptContext, described: int) -> str | None:
    if ctx.kind == "fallback" and described == 0:
        return f"no description of what the draft would do in the data ({ctx.fallback_reason})"
    if described < THIN_CHARS:
        return f"the only pre-vote description in the data has {described} characters"
    return None


# --- the text a prompt gets --------------------------------------------------------------------

_MEMO: dict[tuple[object, ...], PromptText] = {}
_MEMO_MAX = 50_000


def prompt_text(
    record: Record, *, budget: int = SERVER_CHARS, shown: Shown = "press", language: str = "en"
) -> PromptText:
    """The record's leak-guarded text, mended, enriched if thin, within ``budget`` characters.

    With ``shown="un"`` the UN's own text where it exists (in ``language`` where the UN translated it,
    else in English), cut operative paragraphs first and never rewritten; else the corpus's text.
    Memoised on the record's prompt context and the fields enrichment reads: a study asks for the
    same text once per persona, repeat and rehearsal.
    """
    un, un_language = None, language
    if shown == "un":
        un = un_context(record, language)
        if un is None and language != "en":  # no UN translation: the UN's English text, quoted
            un, un_language = un_context(record), "en"
    if un is not None:
        key_un = (record.id, record.resolution, "un", un_language, budget)
        hit_un = _MEMO.get(key_un)
        if hit_un is None:
            hit_un = _MEMO[key_un] = _un_prompt_text(record, un, budget, language=un_language)
        return hit_un
    ctx = context_for_prompt(record)
    key = (
        record.id,
        record.body,
        record.date,
        ctx,
        budget,
        tuple(record.sponsors),
        record.agenda_item,
        tuple(record.notes),
    )
    hit = _MEMO.get(key)
    if hit is None:
        if len(_MEMO) >= _MEMO_MAX:
            _MEMO.clear()
        hit = _MEMO[key] = _prompt_text(record, ctx, budget)
    return hit


def _un_prompt_text(record: Record, ctx: PromptContext, budget: int, *, language: str) -> PromptText:
    """The UN's text cut by the operative-first budget; never rewritten, never enriched."""
    if budget < 1:
        raise ValueError(f"text budget for {record.id}: {budget} characters; it must be at least 1")
    operative = un_operative(record, language)
    sent, op_total, op_sent = fit_draft(ctx.text, budget, operative_paragraphs=operative, language=language)
    return PromptText(
        record_id=record.id,
        budget=budget,
        text=sent,
        kind=ctx.kind,
        label=ctx.description,
        chars_available=len(ctx.text),
        operative_total=op_total,
        operative_sent=op_sent,
        shown="un",
        language=language,
    )


def _prompt_text(record: Record, ctx: PromptContext, budget: int) -> PromptText:
    if budget < 1:
        raise ValueError(f"text budget for {record.id}: {budget} characters; it must be at least 1")
    fixes: tuple[TextFix, ...] = ()
    if ctx.kind == "fallback":
        text = ctx.text  # field lines ("Topic: …"), not sentences
    else:
        text, fixes = mend(ctx.text, prose=ctx.kind != "draft_text")
        if not text and record.body == "unga" and ctx.kind == "context":  # nothing else to show
            text, fix = close_description(ctx.text)
            fixes = (*fixes[:-1], fix)
    if ctx.kind == "draft_text":
        sent, op_total, op_sent = fit_draft(text, budget)
    else:
        sent, op_total, op_sent = fit_text(text, budget), 0, 0
    described = 0 if ctx.kind == "fallback" else len(text)
    added: tuple[Enrichment, ...] = ()
    if record.body == "unsc" and (ctx.kind == "fallback" or len(text) < THIN_CHARS):
        kept: list[Enrichment] = []
        for extra in enrichments(record, ctx, text):
            room = budget - len(sent) - 1
            line = extra.text if len(extra.text) <= room else fit_text(extra.text, room)
            if len(line) < 20 or (line != extra.text and not ends_whole(line, prose=False)):
                continue
            sent = f"{sent}\n{line}"
            kept.append(Enrichment(extra.kind, line, extra.source))
            if extra.kind in ("partial_draft", "named_text"):  # the amended draft is another text
                described += len(line)
        added = tuple(kept)
    thin_reason = _thin_reason(record, ctx, described)
    label = ctx.description
    if added:
        label += "; with " + ", ".join(dict.fromkeys(ENRICHMENT_NOUNS[e.kind] for e in added))
    return PromptText(
        record_id=record.id,
        budget=budget,
        text=sent,
        kind=ctx.kind,
        label=label,
        chars_available=len(text),
        operative_total=op_total,
        operative_sent=op_sent,
        enrichments=added,
        fixes=fixes,
        thin=thin_reason is not None,
        thin_reason=thin_reason,
    )
