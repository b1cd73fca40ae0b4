"""A text cut to a budget between sentences, never inside a sentence or a word; a draft's operative
paragraphs first.

A draft's point is in its operative paragraphs ("1. Demands …"), which come after a long preamble:
cutting a draft at its first 3,000 characters sent S/2024/302's preamble and none of its eight
operative paragraphs. :func:`fit_draft` spends the budget (3,000 characters for a server, 1,200 for
the embedded model) on the operative paragraphs first and the preamble after; :func:`fit_text` keeps
the whole sentences that fit (``sentencex``: rules shipped in its wheel, no run-time download).
"""

from __future__ import annotations

import re
from collections.abc import Collection

from sentencex import segment

SERVER_CHARS = 3000
EMBEDDED_CHARS = 1200
BUDGETS = (SERVER_CHARS, EMBEDDED_CHARS)


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
