"""Post-vote statements for reflection, per member, each tagged with where it came from.

Two sources: the record's ``statements`` (explanations of vote gathered from missions and
meeting records) and the delegation summaries inside ``press_excerpt`` ("The representative of
the United States said…"). Both are post-vote material: reflection may use them, a pre-vote
prompt never (see :mod:`stores.leak`).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Literal

from stores.countries import nations_in_text, to_iso3
from stores.leak import split_sentences
from stores.records import Record

StatementSource = Literal["statements", "press_excerpt"]

_SPEECH = re.compile(
    r"\b(?:said|says|stressed|noted|explained|emphasi[sz]ed|underscored|underlined|expressed|regretted|argued|"
    r"added|pointed out|recalled|warned|urged|called|welcomed|voiced|described|observed|insisted|maintained|"
    r"questioned|deplored|condemned|highlighted|reiterated|affirmed|asserted|declared|stated|abstained|voted|"
    r"objected|rejected|opposed|supported|cautioned|lamented|agreed|remarked)\b"
)
_ROLE = re.compile(
    r"\b(?:representatives?|delegates?|delegations?|Ambassador|Permanent Representative|Minister|envoy|"
    r"spokes(?:man|woman|person))\b|\b[A-Z][\w.’'-]+\s+\([A-Z][^),]*\)",
)
_TALLY_SUBJECT = re.compile(r"\bin favou?r\b|\bvotes\b|\babstentions?\b|\bvote of\b", re.I)
_WINDOW_BEFORE, _WINDOW_AFTER = 45, 70  # how far from a role word its nation may be named
_PRONOUN_SPEECH = re.compile(r"\b(?:he|she|the representative|the delegate)\s+" + _SPEECH.pattern, re.I)


@dataclass(frozen=True)
class MemberStatement:
    """What one member said or did, and the source it was taken from."""

    member: str  # ISO3
    text: str
    source: StatementSource
    url: str | None = None
    kind: str | None = None  # statements: excerpt / verbatim; press_excerpt: summary


def _speakers(sentence: str) -> list[str]:
    """The members a sentence reports as speaking: nations named before its first speech verb."""
    verb = _SPEECH.search(sentence)
    if verb is None:
        return []
    subject = sentence[: verb.start()]
    if len(subject) > 220 or _TALLY_SUBJECT.search(subject):
        return []
    found: list[str] = []
    for role in _ROLE.finditer(subject):
        named = re.search(r"\(([^)]*)\)$", role.group(0))
        if named and to_iso3(named.group(1)) is None:  # "Haiti (MINUJUSTH)" names a mission, not a speaker
            continue
        window = subject[max(0, role.start() - _WINDOW_BEFORE) : role.end() + _WINDOW_AFTER]
        found += [code for code in nations_in_text(window) if code not in found]
    return found


def delegation_summaries(text: str) -> list[tuple[str, str]]:
    """``(member, sentences)`` for each passage of a press text that reports a named delegation.

    A following sentence that goes on with "he said" / "the representative noted" belongs to the
    same passage.
    """
    return list(_delegation_summaries(text))


@functools.lru_cache(maxsize=2048)
def _delegation_summaries(text: str) -> tuple[tuple[str, str], ...]:
    # Asked once per (precedent, persona) by every debias reflection: the regex passes are the cost.
    passages: list[tuple[list[str], list[str]]] = []
    for sentence in split_sentences(text):
        speakers = _speakers(sentence)
        if speakers:
            passages.append((speakers, [sentence]))
        elif passages and _PRONOUN_SPEECH.search(sentence) and not nations_in_text(sentence.split(",")[0]):
            passages[-1][1].append(sentence)
    return tuple((member, " ".join(sentences)) for speakers, sentences in passages for member in speakers)


def statements_for(record: Record, member_code: str) -> list[MemberStatement]:
    """Every statement by ``member_code`` on ``record``: the ``statements`` field, then the press."""
    found = [
        MemberStatement(member_code, s.text, "statements", s.url, s.kind)
        for s in record.statements
        if to_iso3(s.member) == member_code and s.text.strip()
    ]
    if record.press_excerpt:
        url = record.press_excerpt.url
        found += [
            MemberStatement(member_code, text, "press_excerpt", url, "summary")
            for member, text in delegation_summaries(record.press_excerpt.text)
            if member == member_code
        ]
    unique: dict[str, MemberStatement] = {}
    for statement in found:
        unique.setdefault(statement.text, statement)
    return list(unique.values())
