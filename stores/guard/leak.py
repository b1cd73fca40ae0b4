"""The leak guard: text bound for a pre-vote prompt must not reveal how the vote went.

:func:`find_outcome_language` flags tallies, vetoes, "voted in favour", abstentions, "failed to
adopt", "was adopted", the counterfactual "had it passed" and lists of who voted how; not where the
word is drafting language that tells no outcome (``nationbias.stores.guard.drafting_uses``: "one person, one
vote elections", "approved by the Committee").
:func:`context_for_prompt` picks a complete ``draft_text`` (page furniture stripped), then the
press ``context``, then a partial ``draft_text``, then a title / agenda / topic fallback. A press
context is rewritten into the draft's own prospective voice (``nationbias.stores.guard.neutral``: "would have
demanded" → "would demand", no "if adopted", no "according to a copy obtained by …"); any sentence
still flagged is removed whole; every change is kept beside its original. It never looks at
``press_excerpt``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from nationbias.stores.guard.content_kept import lost_tokens
from nationbias.stores.guard.draft_text import draft_body, unwrap
from nationbias.stores.guard.drafting_uses import drafting_spans, first_outside
from nationbias.stores.guard.neutral import (
    neutralise_sentence,
    split_dateline,
    title_as_description,
    without_asides,
    without_word,
)
from nationbias.stores.guard.text_source import TextSource, context_source, draft_text_source
from nationbias.stores.records import Record

_NUMBER = (
    r"(?:\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen)"
)

OUTCOME_PATTERNS: dict[str, tuple[str, ...]] = {
    "tally": (
        r"\b\d{1,2}\s*[-–—]\s*\d{1,2}\s*[-–—]\s*\d{1,2}\b",
        r"\bby a (?:recorded )?vote of\b",
        r"\bthe vote was\b",
        rf"\b{_NUMBER}\s+(?:\w+\s+)?votes?\b",
        rf"\b{_NUMBER}\s+(?:members?\s+)?(?:in favou?r|against)\b",
        r"\b(?:affirmative|negative) votes?\b",
    ),
    "veto": (r"\bveto(?:es|ed|ing)?\b",),
    "voted": (
        r"\bvoted\b",
        r"\b(?:in|after|before|following) the vot(?:e|ing)\b",
        r"\bvot(?:es?|ing) (?:in favou?r|against)\b",
    ),
    "abstained": (r"\babstain\w*", r"\babstentions?\b"),
    "failed": (
        r"\bfail(?:ed|s|ure)?\s+to\s+(?:adopt|pass|garner|secure|win|receive|obtain|get|be adopted)\b",
        r"\bnot (?:been )?(?:adopted|passed)\b",
        r"\bdid not pass\b",
        r"\b(?:was|were) (?:blocked|rejected|defeated)\b",
        r"\bfailed (?:attempts?|bids?|efforts?|drafts?|votes?|resolutions?|texts?)\b",
    ),
    "adopted": (
        r"\b(?:was|were|been|being|is) (?:\w+ly )?(?:adopted|passed|approved)\b",
        r"\badopts?\b(?:\s+\S+){0,3}?\s+(?:resolution|text)\b",
        r"\badopting (?:resolution|the (?:text|resolution|draft))\b",
        r"\bCouncil\s+(?:\S+\s+){0,3}?(?:adopted|approved)\b",
        r"\badopted (?:today|this (?:morning|afternoon|evening|week)|unanimously|by consensus|on \w+day)\b",
        r"\b(?:newly|just) adopted\b",
        r"\b(?:text|resolution|draft) adopted (?:today|here)\b",
        r"\bunanimous(?:ly)?\b",
        # a press headline: "Security Council Authorizes One-Year Extension of …"
        r"(?-i:\bSecurity Council (?:Authori[sz]es|Adopts|Extends|Renews|Approves|Endorses|Imposes|"
        r"Establishes|Demands|Decides|Calls|Condemns|Urges|Requests|Welcomes|Lifts|Terminates)\b)",
    ),
    "counterfactual": (
        r"\bhad (?:it|the (?:\S+\s+){0,4}?(?:text|draft|resolution|proposal)) (?:been )?(?:passed|adopted)\b",
        r"\bif (?:it had been |it were |it had |it was )?(?:adopted|passed)\b",
        # the press's tense for a text that was never adopted: "would (also) have demanded"
        r"\bwould(?:\s+(?:also|further|\w+ly))*\s+have(?:\s+(?:also|further|\w+ly))*\s+"
        r"(?:\w+ed|been|had|seen|kept|put|set|made|led|left|sent|held|shut|brought|taken|given|sought|met|"
        r"laid|paid|struck|begun|become|done|gone|won|lost|built|meant|spent|undertaken|drawn|written)\b",
    ),
    "after the vote": (
        r"\b(?:speakers?|delegates?|delegations?) (?:\w+ )?(?:highlighted|said|stressed|noted|argued|"
        r"explained|regretted|welcomed|expressed|voiced|lamented)\b",
        r"\bexplanations? of (?:the )?vote\b",
    ),
    "vote list": (
        r"\b(?:in favou?r|against|abstentions?|abstaining)\s*(?:\(\d+\))?\s*:\s*[A-Z]",
        r"\b(?:favou?r|against|abstentions?)\s*\(\d+\)",
    ),
}

_COMPILED = [(label, re.compile(p, re.IGNORECASE)) for label, ps in OUTCOME_PATTERNS.items() for p in ps]
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"“‘'(\[A-Z0-9])")
# A full stop that ends an abbreviation, not a sentence: "by Aug. 31, 2019", "Mr. Feltman", "U.N.
# Security Council", "Koffi A. Afande". Splitting there left fragments ("31, 2019 the provision…")
# that read as sentences of their own. Joining too much is the safe side: a sentence with an
# outcome marker is removed whole, with whatever it was joined to.
_ABBREVIATION = re.compile(
    r"(?:^|[\s(“\"])(?:Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec|Mrs?|Ms|Dr|Prof|Amb|Gen|Lt|Col"
    r"|Sen|Rep|St|Nos?|Art|paras?|vs|e\.g|i\.e|U\.N|U\.S|U\.K|[A-Z])\.$"
)


def _split_line(line: str) -> list[str]:
    """One line's sentences (stripped, none empty), not cut after an abbreviation."""
    sentences: list[str] = []
    for piece in _SENTENCE_END.split(line):
        if sentences and _ABBREVIATION.search(sentences[-1]):
            sentences[-1] = f"{sentences[-1]} {piece.strip()}".strip()
        elif piece.strip():
            sentences.append(piece.strip())
    return sentences


@dataclass(frozen=True)
class OutcomeHit:
    label: str
    match: str
    sentence: str


def split_sentences(text: str) -> list[str]:
    """Sentences of a text; a line break always ends one (press releases put headlines alone)."""
    return [s for line in text.splitlines() for s in _split_line(line)]


def _own_digits(record: Record | None) -> str | None:
    if record is None or not record.resolution:
        return None
    number = re.match(r"\s*(\d+)", record.resolution)
    return number.group(1) if number else None


def _resolution_number_computed(number: str) -> re.Pattern[str]:
    """Compiled once per number: every sentence of a record's texts is checked against it."""
    return re.compile(rf"\bresolution\s+{number}\b", re.IGNORECASE)


# cached by assignment, not by a decorator: mutmut mutates no decorated function (docs/mutation.md)
_resolution_number = functools.lru_cache(maxsize=4096)(_resolution_number_computed)


def find_outcome_language(
    text: str, *, record: Record | None = None, language: str = "en"
) -> list[OutcomeHit]:
    """Every sentence of ``text`` that reveals an outcome, with what gave it away.

    With ``record``, a mention of the item's own resolution number counts too: only an adopted
    item has one. ``language`` is the text's, when English markers are read in a translation: its
    drafting uses are none either ("الفقرة 3-2-2", a section number, is no tally).
    """
    return list(_outcome_hits(text, _own_digits(record), language))


def _outcome_hits_computed(text: str, own_digits: str | None, language: str = "en") -> tuple[OutcomeHit, ...]:
    """:func:`find_outcome_language` by what it reads of the record: roll calls share their texts."""
    own = _resolution_number(own_digits) if own_digits else None
    hits = []
    for sentence in split_sentences(text):
        spans: list[tuple[int, int]] | None = None  # found only when a marker is: most sentences have none
        for label, pattern in _COMPILED:
            if not pattern.search(sentence):
                continue
            if spans is None:
                spans = drafting_spans(sentence, "en") + (
                    drafting_spans(sentence, language) if language != "en" else []
                )
            found = first_outside(pattern.finditer(sentence), spans)
            if found:
                hits.append(OutcomeHit(label, found.group(0), sentence))
                break
        else:
            if own and (found := own.search(sentence)):
                hits.append(OutcomeHit("resolution number", found.group(0), sentence))
    return tuple(hits)


# cached by assignment, not by a decorator: mutmut mutates no decorated function (docs/mutation.md)
_outcome_hits = functools.lru_cache(maxsize=16384)(_outcome_hits_computed)


def strip_outcome_sentences(text: str, *, record: Record | None = None) -> tuple[str, int]:
    """``text`` without its outcome sentences (whole sentences removed, nothing rewritten)."""
    flagged = {hit.sentence for hit in find_outcome_language(text, record=record)}
    return without_sentences(text, flagged, split_line=_split_line)


def without_sentences(
    text: str, flagged: set[str], *, split_line: Callable[[str], list[str]]
) -> tuple[str, int]:
    """``text`` without the sentences in ``flagged`` (as ``split_line`` cuts a line), line breaks kept;
    and how many went. The English guard and each translated language's (stores/guard/leak_languages.py)."""
    lines, removed = [], 0
    for line in text.splitlines():
        kept = split_line(line)
        removed += sum(1 for s in kept if s in flagged)
        kept = [s for s in kept if s not in flagged]
        if kept:
            lines.append(" ".join(kept))
    return "\n".join(lines), removed


ContextKind = Literal["context", "draft_text", "fallback"]

# What a prompt calls each kind of text: the same nouns whether the item was adopted or not, and
# the source it really came from appended (``nationbias.stores.guard.text_source``), never an outcome.
CONTEXT_KIND_DESCRIPTIONS: dict[str, str] = {
    "context": "a description of what the draft would do",
    "draft_text": "the text of the draft",
    "partial_draft_text": "part of the text of the draft",
    "fallback": "only what the record says of the draft's subject: no description of what it would do",
}

MIN_CONTEXT_CHARS = 80  # shorter than this after stripping, a text says too little to use…
MIN_SENTENCE_CHARS = 40  # …unless it is one whole sentence ("The text would enable aid to pass …")
_WHOLE_SENTENCE = re.compile(r"[.!?][\"”’')\]]*\s*$")


@dataclass(frozen=True)
class ContextChange:
    """One sentence changed on its way to a prompt: ``rewritten`` is None when it was removed."""

    original: str
    rewritten: str | None
    reasons: tuple[str, ...]


@dataclass(frozen=True)
class PromptContext:
    """Text safe for a pre-vote prompt, which kind of text it is, and every change made to get it.

    ``changes`` keeps the original sentence beside its rewrite (or its removal and why), so a reader
    can audit each one; ``fallback_reason`` says why a title / agenda fallback was used.
    """

    text: str
    kind: ContextKind
    removed_sentences: int = 0
    changes: tuple[ContextChange, ...] = ()
    fallback_reason: str | None = None
    source: TextSource | None = None
    partial: bool = False

    @property
    def description(self) -> str:
        """ "a description of what the draft would do, from a news report (tag24 (AFP))"."""
        noun = CONTEXT_KIND_DESCRIPTIONS["partial_draft_text" if self.partial else self.kind]
        return f"{noun}, from {self.source.phrase}" if self.source else noun

    @property
    def rewritten_sentences(self) -> int:
        return sum(1 for change in self.changes if change.rewritten is not None)


def title_description(title: str) -> str:
    """The bracketed description of a UNDL title; its resolution number would reveal adoption."""
    inside = re.search(r"\[(.+)\]", title)
    return inside.group(1).strip() if inside else re.sub(r"resolution\s+\d+\s*\(\d{4}\)", "", title).strip()


def fallback_text(record: Record) -> str:
    parts = [
        title_as_description(title_description(record.title)) if record.title else "",
        f"Agenda item: {record.agenda_item}" if record.agenda_item else "",
        f"Topic: {record.topic}" if record.topic else "",
    ]
    text, _ = strip_outcome_sentences("\n".join(p for p in parts if p), record=record)
    return text or "(no description available)"


class _Memo(dict[tuple[str | None, ...], PromptContext]):
    """The prompt contexts computed so far, emptied by ``cache_clear`` as a ``functools`` cache is (so
    what empties every cache of this module, as mutation testing does before each test, empties it too)."""

    def cache_clear(self) -> None:
        self.clear()


_MEMO = _Memo()
_MEMO_MAX = 50_000


def context_for_prompt(record: Record) -> PromptContext:
    """``context``, then ``draft_text``, then title / agenda / topic; never ``press_excerpt``.

    Memoised on every field it reads: a study asks for the same record's text once per persona,
    repeat and rehearsal, and the outcome scan is a regex pass over the whole text.
    """
    key = (
        record.id,
        record.resolution,
        record.context.text if record.context else None,
        record.context.url if record.context else None,
        record.draft_text.url if record.draft_text else None,
        "\n".join(record.notes),
        record.draft_text.text if record.draft_text else None,
        str(record.draft_text.complete) if record.draft_text else None,
        record.title,
        record.agenda_item,
        record.topic,
    )
    hit = _MEMO.get(key)
    if hit is None:
        if len(_MEMO) >= _MEMO_MAX:
            _MEMO.cache_clear()
        hit = _MEMO[key] = _context_for_prompt(record)
    return hit


def neutral_text(raw: str, *, record: Record | None = None) -> tuple[str, tuple[ContextChange, ...]]:
    """``raw`` rewritten sentence by sentence into a draft's voice; what still reveals the outcome goes."""
    press = record is None or record.body != "unga"  # an Assembly description is a title, not press
    return _neutral_text(raw, press, _own_digits(record))


def _neutral_text_computed(
    raw: str, press: bool, own_digits: str | None
) -> tuple[str, tuple[ContextChange, ...]]:
    """:func:`neutral_text` by what it reads of the record (many roll calls share one description)."""
    lines: list[str] = []
    changes: list[ContextChange] = []
    first = True
    for line in unwrap(raw).splitlines():
        kept = []
        for sentence in _split_line(line):
            dateline, sentence = split_dateline(sentence) if press else (None, sentence)
            if dateline is not None:  # the press's furniture, dropped whole: no part of the sentence
                changes.append(ContextChange(dateline, None, ("dateline",)))
            rewritten, reasons = neutralise_sentence(sentence, first=first, press=press)
            if not rewritten:  # a headline, or the text's own adoption: dropped whole
                changes.append(ContextChange(sentence, None, reasons))
                continue
            hits = _outcome_hits(rewritten, own_digits)
            trimmed = without_asides(rewritten, hits[0].match) if hits else None
            if trimmed is not None and lost_tokens(rewritten, trimmed):  # the aside holds facts: keep
                trimmed = without_word(rewritten, hits[0].match)  # them, without the one word alone
            if trimmed is not None and not _outcome_hits(trimmed, own_digits):
                aside = f"an aside about another text had outcome language ({hits[0].match!r})"
                rewritten, hits, reasons = trimmed, (), (*reasons, aside)
            if hits:
                why = tuple(f"reveals the outcome: {h.label} ({h.match!r})" for h in hits)
                changes.append(ContextChange(sentence, None, (*reasons, *why)))
                continue
            if reasons:
                changes.append(ContextChange(sentence, rewritten, reasons))
            kept.append(rewritten)
            first = False
        if kept:
            lines.append(" ".join(kept))
    return "\n".join(lines), tuple(changes)


# cached by assignment, not by a decorator: mutmut mutates no decorated function (docs/mutation.md)
_neutral_text = functools.lru_cache(maxsize=8192)(_neutral_text_computed)


def _context_for_prompt(record: Record) -> PromptContext:
    """The complete draft text, then the press context, then a partial draft text, then title / agenda."""
    draft = record.draft_text
    candidates: list[tuple[ContextKind, str | None, bool]] = [
        ("draft_text", draft_body(draft.text) if draft and draft.complete else None, False),
        ("context", record.context.text if record.context else None, False),
        ("draft_text", draft_body(draft.text) if draft and not draft.complete else None, True),
    ]
    rejected: list[str] = []
    for kind, raw, partial in candidates:
        if not raw or not raw.strip():
            continue
        text, changes = neutral_text(raw.strip(), record=record)
        whole = len(text) >= MIN_SENTENCE_CHARS and bool(_WHOLE_SENTENCE.search(text))
        if len(text) >= MIN_CONTEXT_CHARS or whole:
            removed = sum(1 for c in changes if c.rewritten is None)
            source = context_source(record) if kind == "context" else draft_text_source(record)
            return PromptContext(text, kind, removed, changes, source=source, partial=partial)
        leaked = any(c.rewritten is None for c in changes)
        why = "still revealed the outcome after rewriting" if leaked else f"< {MIN_CONTEXT_CHARS} characters"
        rejected.append(f"the {kind.replace('_', ' ')} {why}")
    reason = "; ".join(rejected) or "no context or draft text"
    return PromptContext(fallback_text(record), "fallback", fallback_reason=reason)
