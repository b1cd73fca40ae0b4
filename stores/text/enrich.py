"""A thin text enriched only from what describes the draft before its vote.

A text under :data:`THIN_CHARS` (or no description at all) gets a partial copy of its own text,
earlier texts it names (read from the corpus), the draft it would amend, its agenda item and its
sponsors. Each enrichment keeps its source. Never the UN Digital Library export (adopted resolutions
only), the meeting tables or records (they state outcomes), tallies, vetoes or ``press_excerpt``;
every added line passes the leak guard, and one that does not is left out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Literal

from nationbias.stores.corpora.countries import to_iso3
from nationbias.stores.guard.draft_text import draft_body
from nationbias.stores.guard.leak import (
    PromptContext,
    context_for_prompt,
    find_outcome_language,
    neutral_text,
)
from nationbias.stores.guard.text_source import draft_text_source
from nationbias.stores.records import Record
from nationbias.stores.text.cut import fit_text, is_operative
from nationbias.stores.text.mend import mend

THIN_CHARS = 200  # under this a text says little of what the draft would do
MAX_SPONSORS_NAMED = 10
MAX_NAMED_TEXTS = 2

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


# --- enrichment of thin texts ------------------------------------------------------------------

_NAMED_RESOLUTION = re.compile(r"\bresolutions? (\d{3,4}) \((\d{4})\)")
_AMENDS_NOTE = re.compile(r"\bamendments? to (?:[\w’']+ )?(?:draft )?(S/\d{4}/\d+)")
_COUNTRY_WITH_AND = re.compile(
    r"\band (?:Herzegovina|Tobago|Principe|the Grenadines|Barbuda|Nevis|Northern Ireland)\b"
)


@cache
def _default_corpus_index() -> tuple[dict[str, Record], dict[str, Record]]:
    """The packaged corpus by resolution number and by id: where earlier texts a draft names are read."""
    from nationbias.stores.corpora.corpus import load_corpus

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
