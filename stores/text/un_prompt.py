"""An item's text in the UN's own words, as a prompt shows it, and which kind of text a run shows.

The UN's text of a draft or resolution (:mod:`nationbias.stores.corpora.un_texts`) is already in a draft's
voice: it is never rewritten, only cut by the operative-first budget (``nationbias.stores.text.budget``).
Like every text it passes the leak guard: a paragraph that states an outcome is left out whole and
the removal kept beside it ("within 30 days of the adoption of this resolution", a future event a draft
states, is no outcome and stays).

``--texts`` chooses the kind of text a run shows (:data:`TEXTS_MODES`): ``press`` the corpus's texts
for every item; ``un`` only items that have the UN's text, as targets and as precedents; ``auto`` each
target in its best source, and every precedent of one prompt in one kind of text, the target's, so that
the kind of text never marks the target as the failed one.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from typing import Literal

from nationbias.stores.corpora.un_texts import UN_LANGUAGES, UnText, un_texts, un_texts_file
from nationbias.stores.domain import DEFAULT_TEXTS, TEXTS_MODES, TextsMode
from nationbias.stores.errors import InputError
from nationbias.stores.guard.leak import ContextChange, PromptContext, find_outcome_language
from nationbias.stores.guard.leak_languages import find_translated_outcomes
from nationbias.stores.guard.text_source import TextSource
from nationbias.stores.records import Record

Shown = Literal["un", "press"]  # the source one prompt shows an item in
__all__ = [
    "DEFAULT_TEXTS",
    "TEXTS_MODES",
    "Shown",
    "TextsMode",
    "check_texts",
    "has_un_text",
    "precedent_source",
    "target_shown",
    "un_context",
    "un_operative",
    "un_text_of",
    "with_un_text",
]


def check_texts(mode: str) -> TextsMode:
    """``mode`` as one of :data:`TEXTS_MODES`, or a clear error."""
    for known in TEXTS_MODES:
        if str(mode).strip().lower() == known:
            return known
    raise InputError(
        f"--texts {mode!r}: choose auto (each target in its best source), un (only items with the "
        "UN's own text) or press (the corpus's texts for every item)"
    )


def un_text_of(record: Record, language: str = "en") -> UnText | None:
    """The UN's text of a Council item in ``language`` (None where the UN's files have none)."""
    if record.body != "unsc" or language not in UN_LANGUAGES:
        return None
    return un_texts(language).get(record.id)


def has_un_text(record: Record) -> bool:
    """Whether the item has the UN's own English text (the 18 drafts of 2023–2024, 675 resolutions)."""
    return un_text_of(record) is not None


def with_un_text(records: Iterable[Record]) -> list[Record]:
    """The items that have the UN's own text, in their order."""
    return [r for r in records if has_un_text(r)]


def target_shown(record: Record, mode: TextsMode) -> Shown:
    """The source a target is shown in: the UN's text where the mode allows it and it exists."""
    return "un" if mode != "press" and has_un_text(record) else "press"


def precedent_source(target: Record, mode: TextsMode, un_pool: Iterable[Record]) -> Shown:
    """The one kind of text every precedent of ``target``'s prompts is shown in.

    ``un`` and ``press`` show their own kind. Under ``auto`` the precedents are shown in the UN's words
    when the target is, and both the adopted and the failed items before it (in ``un_pool``, the items
    with a UN text) have them; else all in the corpus's texts, as for a press-described target. So
    the kind of text never marks which precedent, or the target, failed.
    """
    if mode != "auto":
        return mode
    if target_shown(target, mode) == "press":
        return "press"
    earlier = [r for r in un_pool if r.date < target.date and r.id != target.id]
    both = any(r.adopted for r in earlier) and any(r.is_non_adopted_draft for r in earlier)
    return "un" if both else "press"


UN_SOURCE = TextSource("un_text")


def un_operative(record: Record, language: str = "en") -> frozenset[str]:
    """The operative paragraphs of the item's UN text (some are unnumbered: "Recommends to the General
    Assembly …"), so the budget spends on them first whatever their form."""
    text = un_text_of(record, language)
    return frozenset(text.operative) if text else frozenset()


def un_context(record: Record, language: str = "en") -> PromptContext | None:
    """The UN's text of ``record`` as a prompt context (kind ``draft_text``), leak-guarded paragraph by
    paragraph; None where there is none or no operative paragraph of it is left."""
    if un_text_of(record, language) is None:
        return None
    return _un_context(un_texts_file(language).stored, record.id, record.resolution, language)


def _un_context_computed(
    stored: str, item: str, resolution: str | None, language: str
) -> PromptContext | None:
    """:func:`un_context` by what it reads: the data folder, the item, its own resolution number."""
    del stored  # the cache key: a different data folder reads again
    text = un_texts(language)[item]
    # its own number in any language and any form ("résolution 2713", "第2713(2023)号决议", "1267/1989/2253")
    number = re.match(r"\s*(\d{3,})", resolution or "")
    own = re.compile(rf"(?<![\d.,]){number.group(1)}(?!\d)") if number else None
    kept: list[str] = []
    changes: list[ContextChange] = []
    for paragraph in text.paragraphs:
        hits = (
            find_outcome_language(paragraph)
            if language == "en"
            else find_translated_outcomes(paragraph, language=language)
        )
        why = tuple(f"reveals the outcome: {h.label} ({h.match!r})" for h in hits)
        if own is not None and own.search(paragraph):
            why = (*why, "names the item's own resolution number")
        if why:
            changes.append(ContextChange(paragraph, None, why))
            continue
        kept.append(paragraph)
    if not set(kept) & set(text.operative):
        return None
    return PromptContext("\n".join(kept), "draft_text", len(changes), tuple(changes), source=UN_SOURCE)


# cached by assignment, not by a decorator: mutmut mutates no decorated function (docs/mutation.md)
_un_context = functools.lru_cache(maxsize=8192)(_un_context_computed)
