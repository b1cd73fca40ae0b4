"""A prompt's text budget, spent on what the draft would do.

A draft's point is in its operative paragraphs ("1. Demands …"), which come after a long preamble:
cutting a draft at its first 3,000 characters sent S/2024/302's preamble and none of its eight
operative paragraphs. :func:`prompt_text` spends the budget (3,000 characters for a server, 1,200
for the embedded model) on the operative paragraphs first and the preamble after, and cuts only
between sentences (``sentencex``: rules shipped in its wheel, no run-time download), never inside
a sentence or a word. It also mends what the data hands it: a text that ends mid-sentence is taken
back to its last whole sentence or clause, and a sentence that starts from a referent the curation
removed ("That draft would demand …") names the draft instead.

A thin text (under :data:`THIN_CHARS`, or no description at all) is enriched only from what
describes the draft before its vote: a partial copy of its own text, earlier texts it names (read
from the corpus), the draft it would amend, its agenda item and its sponsors. Each enrichment keeps
its source. Never the UN Digital Library export (adopted resolutions only), the meeting tables or
records (they state outcomes), tallies, vetoes or ``press_excerpt``; every added line passes the
leak guard, and one that does not is left out.

:func:`text_audit` tabulates, per target and budget, what reached the model and why.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Literal

import pandas as pd
from sentencex import segment

from nationbias.stores.countries import to_iso3
from nationbias.stores.draft_text import draft_body
from nationbias.stores.leak import (
    ContextKind,
    PromptContext,
    context_for_prompt,
    find_outcome_language,
    neutral_text,
)
from nationbias.stores.records import Record
from nationbias.stores.text_source import draft_text_source
from nationbias.stores.un_prompt import Shown, TextsMode, target_shown, un_context, un_operative

SERVER_CHARS = 3000
EMBEDDED_CHARS = 1200
BUDGETS = (SERVER_CHARS, EMBEDDED_CHARS)
THIN_CHARS = 200  # under this a text says little of what the draft would do
MAX_SPONSORS_NAMED = 10
MAX_NAMED_TEXTS = 2

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

EnrichmentKind = Literal["partial_draft", "named_text", "amended_draft", "agenda_item", "sponsors"]

ENRICHMENT_NOUNS: dict[str, str] = {
    "partial_draft": "part of the draft's own text",
    "named_text": "a description of an earlier text the draft names",
    "amended_draft": "a description of the draft it would amend",
    "agenda_item": "its agenda item",
    "sponsors": "its sponsors",
}


@dataclass(frozen=True)
class Enrichment:
    """A line added to a thin text, and where it came from."""

    kind: EnrichmentKind
    text: str
    source: str


@dataclass(frozen=True)
class TextFix:
    """A sentence mended on its way to a prompt: ``rewritten`` is None when it was dropped."""

    original: str
    rewritten: str | None
    reason: str


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


# --- sentences ---------------------------------------------------------------------------------

_CLOSERS = re.escape("\"”’')]»")
_PROSE_END = re.compile(rf"(?<!…)[.!?](?:\s*[{_CLOSERS}])*$")  # "…" marks a cut, not an end
_PARAGRAPH_END = re.compile(rf"(?<!…)[.!?;:,](?:\s*[{_CLOSERS}])*$")
_OPERATIVE = re.compile(r"^(?:OP\s*\d+\s+|\(?\d{1,2}[.)]\s)")
_HEADER = re.compile(r"^\s*The Security Council\s*,?\s*$")


_FIELD_LINE = re.compile(r"^(?:Title|Agenda item|Topic|Sponsors): \S")


def ends_cleanly(text: str, *, prose: bool = True) -> bool:
    """Whether a prompt's text ends with a whole sentence (``prose``), a whole paragraph of a draft,
    or a field line ("Sponsors: …"): never inside a sentence or a word."""
    lines = text.rstrip().splitlines()
    return bool(lines) and (bool(_FIELD_LINE.match(lines[-1])) or ends_whole(lines[-1], prose=prose))


def sentences(text: str) -> list[str]:
    """The sentences of one paragraph (a line), stripped; ``sentencex``'s English rules."""
    return [s.strip() for s in segment("en", text) if s.strip()]


def ends_whole(text: str, *, prose: bool = True) -> bool:
    """Whether ``text`` ends at the end of a sentence (prose) or of a paragraph (a draft's own text,
    whose paragraphs end in "," or ";": a resolution is one long sentence)."""
    return bool((_PROSE_END if prose else _PARAGRAPH_END).search(text.rstrip()))


def fit_text(text: str, limit: int) -> str:
    """The whole sentences of ``text`` that fit in ``limit`` characters, in order, line breaks kept.

    A text whose first sentence alone is longer is cut at the last clause boundary (";" or ",")
    that fits, and says so with "…"; never inside a word.
    """
    if len(text) <= limit:
        return text
    lines: list[str] = []
    used = 0
    for paragraph in _whole_lines(text):
        kept: list[str] = []
        for sentence in sentences(paragraph):
            extra = len(sentence) + (1 if kept or lines else 0)
            if used + extra > limit:
                break
            kept.append(sentence)
            used += extra
        else:
            if kept:
                lines.append(" ".join(kept))
            continue
        if kept:
            lines.append(" ".join(kept))
        break
    if lines:
        return "\n".join(lines)
    return _clause_cut(text, limit)


def _whole_lines(text: str) -> list[str]:
    """Lines with a sentence broken across them joined again ("… of the OPCW" / "Executive Council …")."""
    joined: list[str] = []
    for line in text.splitlines():
        if (
            joined
            and not ends_whole(joined[-1])
            and not _FIELD_LINE.match(joined[-1])
            and not _FIELD_LINE.match(line)
        ):
            joined[-1] = f"{joined[-1]} {line.strip()}"
        else:
            joined.append(line)
    return joined


def _clause_cut(text: str, limit: int) -> str:
    head = text[: max(limit - 2, 0)]
    cut = max(head.rfind("; "), head.rfind(", "))
    if cut <= 0:
        cut = head.rfind(" ")
    return (head[:cut].rstrip(",; ") + " …") if cut > 0 else ""


# --- mending what the data hands over ----------------------------------------------------------

_DANGLING = (
    (re.compile(r"^That (draft(?: resolution)?|text)\b"), r"The \1"),
    (re.compile(r"^(By|Under|In) (the terms of )?that (?:draft(?: resolution)?|text)\b"), r"\1 \2the draft"),
    (
        re.compile(
            r"^The (?:second|first|third|other|latter|former|competing|rival) (draft(?: resolution)?|text)\b"
        ),
        r"The \1",
    ),
)
_DANGLING_FIRST = (
    (re.compile(r"^By its terms\b"), "By the draft's terms"),
    (re.compile(r"^It (would|also would|further would)\b"), r"The draft \1"),
)


def dangling_start(sentence: str, *, first: bool) -> str | None:
    """``sentence`` with its dangling opening ("That draft would …") naming the draft, or None."""
    rules = (*_DANGLING, *(_DANGLING_FIRST if first else ()))
    for pattern, replacement in rules:
        if pattern.search(sentence):
            return pattern.sub(replacement, sentence, count=1)
    return None


def count_dangling(text: str) -> int:
    """Sentences of ``text`` that start from a referent it does not contain."""
    count, first = 0, True
    for line in text.splitlines():
        for sentence in sentences(line):
            count += dangling_start(sentence, first=first) is not None
            first = False
    return count


_CLAUSE_BREAK = re.compile(
    r"(?:;\s+|,\s+(?=(?:including|as well as|through|and|while|with|which|in order|by|but)\b))"
)


_TYPOS = ((re.compile(r"\bAs{3,}embly\b"), "Assembly"),)  # S/2024/312's web copy


def _balanced(text: str) -> bool:
    pairs = (("(", ")"), ("[", "]"), ("“", "”"))
    return all(text.count(a) == text.count(b) for a, b in pairs) and text.count('"') % 2 == 0


def _close_clause(sentence: str) -> str | None:
    """The whole clauses of a sentence cut short, closed with a full stop, or None if none is whole."""
    stripped = sentence.rstrip()
    if stripped.endswith((",", ";")) and _balanced(stripped):
        return stripped[:-1].rstrip() + "."
    breaks = [m.start() for m in _CLAUSE_BREAK.finditer(stripped)]
    for cut in reversed(breaks):
        head = stripped[:cut].rstrip(" ,;")
        if len(head) >= 40 and _balanced(head) and " would " in f" {head} ":
            return head + "."
    return None


SOURCE_CUT_CHARS = 240  # Voeten's descr: 125 descriptions stop at 242–244 characters, some inside a word


def close_description(text: str) -> tuple[str, TextFix]:
    """An Assembly description that does not end as a sentence, kept rather than dropped (it is all a
    roll call has): a title closed with a full stop, or, cut short in the data, its last (perhaps
    partial) word dropped and the cut marked with "…"."""
    stripped = text.strip().rstrip(" ,;:")
    if len(text.strip()) < SOURCE_CUT_CHARS:
        closed = f"{stripped}."
        return closed, TextFix(text, closed, "an Assembly description is a title: closed with a full stop")
    head = stripped.rsplit(" ", 1)[0].rstrip(" ,;:")
    cut = f"{head} …"
    return cut, TextFix(text, cut, "the data cuts the description short: its last word dropped, cut marked")


def mend(text: str, *, prose: bool) -> tuple[str, tuple[TextFix, ...]]:
    """``text`` without a dangling reference at a sentence's start and without an unfinished end."""
    fixes: list[TextFix] = []
    lines: list[str] = []
    first = True
    for typo, right in _TYPOS:
        if typo.search(text):
            fixes.append(TextFix(typo.pattern, right, "a typing error in the copy"))
            text = typo.sub(right, text)
    for line in text.splitlines():
        if not prose:
            lines.append(line)
            continue
        kept = []
        for sentence in sentences(line):
            resolved = dangling_start(sentence, first=first)
            if resolved is not None:
                fixes.append(
                    TextFix(sentence, resolved, "it began from a referent the text does not contain")
                )
                sentence = resolved
            kept.append(sentence)
            first = False
        if kept:
            lines.append(" ".join(kept))
    while lines and not ends_whole(lines[-1], prose=prose):
        last = lines.pop()
        if prose:
            *whole, tail = sentences(last)
            closed = _close_clause(tail)
            fixes.append(TextFix(tail, closed, "the text ends inside this sentence in the data"))
            rest = " ".join([*whole, closed] if closed else whole)
            if rest:
                lines.append(rest)
            break  # one unfinished sentence at most: the lines before it ended whole when written
        else:
            fixes.append(TextFix(last, None, "the copy ends inside this paragraph in the data"))
    return "\n".join(lines), tuple(fixes)


# --- a draft's own text: operative paragraphs first --------------------------------------------


def is_operative(paragraph: str) -> bool:
    return bool(_OPERATIVE.match(paragraph))


# "From its preamble:" in each UN language: a UN translation is cut in its own language's words
PREAMBLE_INTROS: dict[str, str] = {
    "en": "From its preamble:",
    "fr": "Extrait du préambule :",
    "es": "Del preámbulo:",
    "ru": "Из преамбулы:",
    "zh": "序言部分摘录：",
    "ar": "من الديباجة:",
}
# a section heading inside a UN text ("B. Arms embargo on Al-Shabaab", "*", "D."): no paragraph of its own
_SECTION_HEADING = re.compile(r"^(?:\*+|[A-Z]\.|[IVX]+\.)(?:\s.{0,80})?$")


def fit_draft(
    text: str, limit: int, *, operative_paragraphs: Collection[str] = (), language: str = "en"
) -> tuple[str, int, int]:
    """A draft's text within ``limit``: (text, operative paragraphs in it, operative paragraphs sent).

    Whole, in its own order, when it fits. Otherwise the operative paragraphs first (whole, or their
    leading sentences), then as much of the preamble as fits, each part in its own order. An operative
    paragraph is numbered ("1. Demands …"), or one of ``operative_paragraphs`` (the UN's text says which:
    its opening line, "The Security Council," in any language, is the header, its section headings are left
    out when cut).
    """
    paragraphs = [p for p in text.splitlines() if p.strip()]
    headings = {p for p in paragraphs if p in operative_paragraphs and _SECTION_HEADING.match(p)}
    operative = [
        p for p in paragraphs if (is_operative(p) or p in operative_paragraphs) and p not in headings
    ]
    if len(text) <= limit:
        return text, len(operative), len(operative)
    first = paragraphs[:1]
    header = [
        p for p in first if _HEADER.match(p) or (operative_paragraphs and len(p) < 40 and p.endswith(","))
    ]
    # a section heading inside a draft ("Reporting") is not a preamble paragraph: left out when cut
    preamble = [
        p
        for p in paragraphs
        if p not in operative and p not in header and p not in headings and ends_whole(p, prose=False)
    ]
    used = sum(len(p) + 1 for p in header)
    chosen_ops: list[str] = []
    for paragraph in operative:
        room = limit - used - 1
        if len(paragraph) <= room:
            chosen_ops.append(paragraph)
            used += len(paragraph) + 1
        elif room > 80:
            lead = _leading_sentences(paragraph, room)
            if lead:
                chosen_ops.append(lead)
                used += len(lead) + 1
    intro = PREAMBLE_INTROS.get(language, PREAMBLE_INTROS["en"])
    chosen_pre: list[str] = []
    room_for_intro = len(intro) + 1
    for paragraph in preamble:
        if used + room_for_intro + len(paragraph) + 1 <= limit:
            chosen_pre.append(paragraph)
            used += len(paragraph) + 1
    parts = [*header, *chosen_ops, *([intro, *chosen_pre] if chosen_pre else [])]
    return "\n".join(parts), len(operative), len(chosen_ops)


def _leading_sentences(paragraph: str, room: int) -> str:
    number = _OPERATIVE.match(paragraph)
    prefix = number.group(0) if number else ""
    kept = ""
    for sentence in sentences(paragraph[len(prefix) :]):
        candidate = f"{kept} {sentence}".strip()
        if len(prefix) + len(candidate) > room:
            break
        kept = candidate
    return f"{prefix}{kept}" if kept else ""


# --- enrichment of thin texts ------------------------------------------------------------------

_NAMED_RESOLUTION = re.compile(r"\bresolutions? (\d{3,4}) \((\d{4})\)")
_AMENDS_NOTE = re.compile(r"\bamendments? to (?:[\w’']+ )?(?:draft )?(S/\d{4}/\d+)")
_COUNTRY_WITH_AND = re.compile(
    r"\band (?:Herzegovina|Tobago|Principe|the Grenadines|Barbuda|Nevis|Northern Ireland)\b"
)


@cache
def _default_corpus_index() -> tuple[dict[str, Record], dict[str, Record]]:
    """The packaged corpus by resolution number and by id: where earlier texts a draft names are read."""
    from nationbias.stores.corpus import load_corpus

    corpus = load_corpus()
    by_resolution = {r.resolution: r for r in corpus.records if r.resolution}
    return by_resolution, {r.id: r for r in corpus.records}


def sponsor_names(record: Record) -> list[str]:
    """The sponsors as names: spreadsheet residue removed, "Nicaragua and Syrian Arab Republic" split."""
    names: list[str] = []
    for raw in record.sponsors:
        name = re.sub(r"_x000D_|\s+", " ", raw).strip(" .")
        name = re.sub(r"^the ", "", name)
        pieces = name.split(" and ")
        if len(pieces) == 2 and not _COUNTRY_WITH_AND.search(name) and all(to_iso3(p) for p in pieces):
            names.extend(re.sub(r"^the ", "", p) for p in pieces)
        elif name:
            names.append(name)
    return list(dict.fromkeys(names))


def _join(names: Sequence[str]) -> str:
    if len(names) > MAX_SPONSORS_NAMED:
        shown = names[: MAX_SPONSORS_NAMED - 2]
        return f"{', '.join(shown)} and {len(names) - len(shown)} other States"
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _safe(text: str, record: Record) -> bool:
    return bool(text.strip()) and not find_outcome_language(text, record=record)


def _first_sentences(text: str, limit: int) -> str:
    """The whole leading sentences of ``text`` within ``limit``; "" when the first is longer."""
    fitted = fit_text(" ".join(text.split()), limit)
    return "" if fitted.endswith("…") else fitted


def enrichments(record: Record, ctx: PromptContext, shown: str) -> tuple[Enrichment, ...]:
    """What describes a thin record's draft before its vote, each line with its source."""
    found: list[Enrichment] = []
    draft = record.draft_text
    if ctx.kind == "context" and draft is not None and not draft.complete:
        partial, _ = neutral_text(draft_body(draft.text), record=record)
        partial, _ = mend(partial, prose=False)
        ops = [p for p in partial.splitlines() if is_operative(p) or p.startswith(("Recommends", "Decides"))]
        body = "\n".join(ops) or partial
        if len(body) >= 40 and _safe(body, record):
            where = draft_text_source(record).phrase
            found.append(
                Enrichment("partial_draft", f"From a partial copy of the draft's text:\n{body}", where)
            )
    by_resolution, by_id = _default_corpus_index()
    named = []
    for number, year in _NAMED_RESOLUTION.findall(shown):
        earlier = by_resolution.get(f"{number} ({year})")
        if (
            earlier is not None
            and earlier.date < record.date
            and earlier.id != record.id
            and earlier not in named
        ):
            named.append(earlier)
    for earlier in named[:MAX_NAMED_TEXTS]:
        described = context_for_prompt(earlier)
        if described.kind == "fallback":
            continue
        said = _first_sentences(described.text, 500)
        line = f"Resolution {earlier.resolution}, which the draft names, as described: {said}"
        if said and _safe(line, record):
            found.append(
                Enrichment("named_text", line, f"corpus record {earlier.id}: {described.description}")
            )
    amended = record.id.split("#")[0] if "#" in record.id else None
    amended = amended or next((m.group(1) for n in record.notes if (m := _AMENDS_NOTE.search(n))), None)
    target = by_id.get(amended) if amended else None
    if target is not None and target.id != record.id:
        described = context_for_prompt(target)
        if described.kind != "fallback":
            said = _first_sentences(described.text, 500)
            line = f"The draft would amend draft {target.id}, described as follows: {said}"
            if said and _safe(line, record):
                source = (
                    f"corpus record {target.id}: {described.description}; the link from {record.id}'s notes"
                )
                found.append(Enrichment("amended_draft", line, source))
    if record.agenda_item and "Agenda item:" not in shown:
        line = f"Agenda item: {record.agenda_item}"
        if _safe(line, record):
            found.append(
                Enrichment("agenda_item", line, "the record's agenda item (the Council's voting sheet)")
            )
    names = sponsor_names(record)
    if names:
        line = f"Sponsors: {_join(names)}"
        if _safe(line, record):
            found.append(
                Enrichment(
                    "sponsors", line, "the record's sponsors (the voting sheet, corrected from the press)"
                )
            )
    return tuple(found)


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


# --- the audit ---------------------------------------------------------------------------------


def text_audit(
    records: Iterable[Record], *, budgets: Sequence[int] = BUDGETS, text_mode: TextsMode = "press"
) -> pd.DataFrame:
    """Per record and budget: text kind and why, characters sent of available, operative paragraphs
    sent of all, enrichments with their sources, mended sentences, thin or not and why; each record
    shown as a target is under ``text_mode`` (``--texts``)."""
    rows = []
    for record in records:
        ctx = context_for_prompt(record)
        for budget in budgets:
            pt = prompt_text(record, budget=budget, shown=target_shown(record, text_mode))
            rows.append(
                {
                    "id": record.id,
                    "budget": budget,
                    "text_kind": pt.text_kind,
                    "kind": pt.kind,
                    "label": pt.label,
                    "why": "the UN's own text"
                    if pt.shown == "un"
                    else ctx.fallback_reason or _why_kind(record, ctx),
                    "chars_sent": pt.chars_sent,
                    "chars_available": pt.chars_available,
                    "operative_sent": pt.operative_sent,
                    "operative_total": pt.operative_total,
                    "enriched_with": ", ".join(e.kind for e in pt.enrichments),
                    "enrichments": "; ".join(f"{e.kind} ({e.source})" for e in pt.enrichments),
                    "mended": len(pt.fixes),
                    "ends_whole": ends_cleanly(pt.text, prose=pt.kind != "draft_text"),
                    "dangling": count_dangling(pt.text),
                    "thin": pt.thin,
                    "thin_reason": pt.thin_reason,
                }
            )
    return pd.DataFrame(rows)


def _why_kind(record: Record, ctx: PromptContext) -> str:
    if ctx.kind == "draft_text":
        whole = record.draft_text is not None and bool(record.draft_text.complete)
        return (
            "a complete copy of the draft's text"
            if whole
            else "a partial copy of the draft (no usable description)"
        )
    return "no complete copy of the draft's text; a description of it" + (
        " (a partial copy exists)" if record.draft_text else ""
    )


def audit_summary(table: pd.DataFrame) -> pd.DataFrame:
    """The audit's counts per budget: what the issue measures, before → after."""
    rows = []
    for budget, sub in table.groupby("budget", sort=False):
        drafts = sub[sub["operative_total"] > 0]
        ops_sent, ops_all = int(drafts["operative_sent"].sum()), int(drafts["operative_total"].sum())
        kinds = sub["text_kind"].value_counts() if "text_kind" in sub else pd.Series(dtype=int)
        rows.append(
            {
                "budget": budget,
                "targets": len(sub),
                **{f"text: {TEXT_KIND_NAMES[k]}": int(kinds.get(k, 0)) for k in TEXT_KINDS},
                "agenda/topic only": int(((sub["kind"] == "fallback") & (sub["enrichments"] == "")).sum()),
                "fallback (enriched)": int(((sub["kind"] == "fallback") & (sub["enrichments"] != "")).sum()),
                "text < 200 chars": int((sub["chars_sent"] < THIN_CHARS).sum()),
                "ends mid-sentence": int((~sub["ends_whole"]).sum()),
                "dangling starts": int((sub["dangling"] > 0).sum()),
                "enriched": int((sub["enrichments"] != "").sum()),
                "still thin": int(sub["thin"].sum()),
                "with draft text": len(drafts),
                "all operative sent": int((drafts["operative_sent"] == drafts["operative_total"]).sum()),
                "operative sent": f"{ops_sent}/{ops_all}",
            }
        )
    return pd.DataFrame(rows)


def budget_counts(
    records: Iterable[Record], *, budget: int, text_mode: TextsMode = "press"
) -> dict[str, int | str]:
    """:func:`audit_summary`'s counts for one budget, as plain values a run's config can keep."""
    row = audit_summary(text_audit(records, budgets=(budget,), text_mode=text_mode)).iloc[0].to_dict()
    return {str(k): (v.item() if hasattr(v, "item") else v) for k, v in row.items()}
