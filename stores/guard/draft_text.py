"""A draft's own text freed of the page it was pasted from.

A draft needs no rewriting (it is already in its own prospective voice, unlike a press release:
:mod:`nationbias.stores.guard.neutral`), only the page furniture around it removed: headers, footers, document
symbols, and hard line breaks inside a paragraph.
"""

from __future__ import annotations

import re


def unwrap(text: str) -> str:
    """Join a line that continues the one before it (it starts in lower case): pasted page breaks."""
    return re.sub(r"\s*\n\s*(?=[a-z])", " ", text)


_PAGE_LINE = re.compile(
    r"^\s*(?:S/\d{4}/\d+|\d{2}-\d{4,6}(?:\s*\(E\).*)?|Page \d+(?: of \d+)?|\d{1,3}/\d{1,3}|\d{1,3}|"
    r"Distr\.?:?\s*General|Original:\s*\w+|United Nations(?: Security Council)?)\s*$",
    re.IGNORECASE,
)
_OPENING = re.compile(r"^\s*The Security Council\s*,?\s*$", re.MULTILINE)
_CLOSING = re.compile(r"[Dd]ecides to remain (?:actively )?seized of the matter\.?")
_NUMBERED = re.compile(r"^\(?\d{1,2}[.)]\s")


def draft_body(text: str) -> str:
    """A draft's own text without the page around it: from "The Security Council," to "remain seized
    of the matter", page headers and footers dropped, hard line breaks inside a paragraph joined."""
    start = _OPENING.search(text)
    body = text[start.start() :] if start else text
    closing = list(_CLOSING.finditer(body))
    if closing:
        body = body[: closing[-1].end()]
    paragraphs: list[str] = []
    for raw in body.splitlines():
        line = re.sub(r"\s+", " ", raw).strip()
        if not line or _PAGE_LINE.match(line):
            continue
        continues = (
            bool(paragraphs)
            and not _NUMBERED.match(line)
            and (line[0].islower() or line[0] in '(“"' or not paragraphs[-1].endswith((",", ";", ":", ".")))
        )
        if continues:
            paragraphs[-1] += " " + line
        else:
            paragraphs.append(line)
    return "\n".join(paragraphs)
