"""The offline augmenter's helpers: a region when the record has none, a topic keyword, a summary and
action items that say different things.

The paper's keyword retriever keeps an item only above 3 points (+2 region, +1 per shared target
nation, +0.1 per shared keyword), so a draft with no region, or one whose only link to its obvious
precedents is the agenda item, found none. What is added here is taken from the corpus itself:
- a missing region is the one most records naming the same first (non-P5) target nation carry,
  else the one most records on the same agenda item carry;
- the item's topic (or agenda item) is one more keyword, so two texts on the same agenda share it;
- the summary says what the text is about (its topic and nations) and what it opens with; the
  action items are the actions themselves ("demand …; request …"), verbs in their base form.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from lemminflect import getLemma

from nationbias.stores.corpora.countries import nations_in_text
from nationbias.stores.domain import P5_NAMES
from nationbias.stores.guard.leak import split_sentences
from nationbias.stores.records import Record

MAJORITY = 0.6  # a region is inferred only when this share of the records agree on it
_TOPIC_DROP = frozenset({"the", "incl", "inc", "including", "of", "and", "in", "on", "to", "for", "a"})
# fmt: off
ACTION_VERBS = (
    "demand", "call", "request", "decide", "urge", "condemn", "authorize", "authorise", "extend", "renew",
    "impose", "establish", "reaffirm", "encourage", "welcome", "express", "stress", "emphasize", "emphasise",
    "reject", "recommend", "deplore", "declare", "support", "terminate", "lift", "adopt", "endorse", "affirm",
    "underscore", "recall", "reiterate",
)
# fmt: on
_ACTION = re.compile(
    r"(?:^|\bwould\s+(?:also\s+|further\s+)?|;\s*|\band\s+)"
    r"(?P<verb>" + "|".join(ACTION_VERBS) + r")(?:s|es|ed|d)?\b",
    re.IGNORECASE,
)
_ITEM_END = re.compile(r";|\.(?:\s|$)|\s+and\s+would\b")
ITEM_CHARS = 160
_P5 = frozenset(P5_NAMES.values())
_NOT_CONTENT = re.compile(r"^(?:The Security Council,?|Title:|Agenda item:|Topic:)")


_AUTHOR = re.compile(
    r"\b(?P<name>[A-Z][\w.’'‑-]*(?:\s+[A-Z][\w.’'‑-]*){0,3}?)(?:[’']s?|[‑-](?:proposed|drafted|sponsored|led))?"
    r"\s+(?:draft resolution|draft|text|resolution|proposal|amendments?)\b"
)


@lru_cache(maxsize=16384)  # each record's text goes through it twice (region hints, then its fields)
def without_authors(text: str) -> str:
    """``text`` without the states named as a text's author ("the Russian text", "Kuwait's draft",
    "the United States-proposed text"): the state that wrote a draft is not what it is about."""

    def drop(match: re.Match[str]) -> str:
        return "draft" if nations_in_text(match["name"]) else match.group(0)

    return _AUTHOR.sub(drop, text)


_WHOLE_LINE = re.compile(r"^(?:\d{1,2}\.\s|Title:|Agenda item:|Topic:)")


def text_units(text: str) -> list[str]:
    """A text's sentences, with a numbered paragraph or a ``Title:`` line kept whole ("1. Demands …")."""
    units: list[str] = []
    for line in text.splitlines():
        units += [line.strip()] if _WHOLE_LINE.match(line) else split_sentences(line)
    return [u for u in units if u]


def topic_keyword(record: Record) -> str | None:
    """``topic: <words>`` from the record's topic (else agenda item), spelling variants folded."""
    source = record.topic or record.agenda_item
    if not source:
        return None
    words = [w for w in re.findall(r"[a-z]+", source.lower()) if w not in _TOPIC_DROP]
    return f"topic: {' '.join(words)}" if words else None


def _majority(values: Iterable[str]) -> str | None:
    counts = Counter(values)
    if not counts:
        return None
    region, n = counts.most_common(1)[0]
    return region if n / sum(counts.values()) >= MAJORITY else None


@dataclass
class RegionHints:
    """Majority regions by agenda item and by first non-P5 target nation, learnt from a corpus."""

    by_agenda: dict[str, str] = field(default_factory=dict)
    by_nation: dict[str, str] = field(default_factory=dict)

    @classmethod
    def learn(cls, records: Sequence[Record], nations: dict[str, list[str]]) -> RegionHints:
        agenda: dict[str, list[str]] = defaultdict(list)
        nation: dict[str, list[str]] = defaultdict(list)
        for record in records:
            if not record.region:
                continue
            if record.agenda_item:
                agenda[record.agenda_item.strip().lower()].append(record.region)
            if first := first_non_p5(nations.get(record.id, [])):
                nation[first].append(record.region)
        return cls(
            by_agenda={k: r for k, v in agenda.items() if (r := _majority(v))},
            by_nation={k: r for k, v in nation.items() if (r := _majority(v))},
        )

    def region_for(self, record: Record, nations: list[str]) -> str | None:
        if record.region:
            return record.region
        first = first_non_p5(nations)  # the state it is about says more than a thematic agenda item
        if first and (found := self.by_nation.get(first)):
            return found
        return self.by_agenda.get(record.agenda_item.strip().lower()) if record.agenda_item else None


def first_non_p5(nations: list[str]) -> str | None:
    """The first named state that is not a permanent member (they are named as actors, not places)."""
    return next((n for n in nations if n not in _P5), None)


def action_items(sentences: Sequence[str], *, limit: int = 4) -> str:
    """The actions a text takes, as "demand …; request …" (verb in its base form, each clipped)."""
    operative = [s for s in sentences if re.match(r"^\d{1,2}\.\s", s)] or list(sentences)
    items: list[str] = []
    for sentence in operative:
        text = re.sub(r"^\d{1,2}\.\s+", "", sentence)
        for match in _ACTION.finditer(text):
            rest = text[match.end() :]
            end = _ITEM_END.search(rest)
            rest = rest[: end.start()] if end else rest
            if len(rest) > ITEM_CHARS:  # cut at its last whole clause, never inside one ("the …")
                head = rest[:ITEM_CHARS]
                boundary = max(head.rfind(", "), head.rfind("; "))
                rest = head[:boundary] if boundary >= ITEM_CHARS // 3 else rest
            verb = getLemma(match["verb"].lower(), upos="VERB")[0]
            item = f"{verb}{rest.rstrip(' ,')}"
            if len(rest.strip()) >= 8 and item not in items:
                items.append(item)
            if len(items) >= limit:
                return "; ".join(items)
    return "; ".join(items)


def summary(record: Record, sentences: Sequence[str], nations: list[str], *, title: str | None) -> str:
    """What the text is about (topic, nations) and how it opens; never just the title."""
    council = "the General Assembly" if record.body == "unga" else "the Security Council"
    about = record.topic or record.agenda_item or f"an item before {council}"
    about = about[0].lower() + about[1:] if about.startswith("The ") else about
    others = [n for n in nations[:3] if n.lower() not in about.lower()]  # not "On Mali, concerning Mali"
    head = f"On {about}" + (f", concerning {', '.join(others)}" if others else "")
    body = [s for s in sentences if not _NOT_CONTENT.match(s)]
    operative = [s for s in body if re.match(r"^\d{1,2}\.\s", s)]
    opening = (operative or body)[:1]
    if opening:
        return f"{head}. {opening[0][:400]}"
    return f"{head}. Titled: {title}." if title else f"{head}."
