"""Mending what the data hands a prompt: a text that ends mid-sentence is taken back to its last whole
sentence or clause, and a sentence that starts from a referent the curation removed ("That draft would
demand …") names the draft instead. Each change is kept as a :class:`TextFix`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from nationbias.stores.text.cut import ends_whole, sentences


@dataclass(frozen=True)
class TextFix:
    """A sentence mended on its way to a prompt: ``rewritten`` is None when it was dropped."""

    original: str
    rewritten: str | None
    reason: str


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
