"""Post-vote statements for reflection, per member, each tagged with where it came from.

Two sources: the record's ``statements`` (explanations of vote gathered from missions and
meeting records) and the delegation summaries inside ``press_excerpt`` ("The representative of
the United States said…"). Both are post-vote material: reflection may use them, a pre-vote
prompt never (see :mod:`nationbias.stores.guard.leak`). A statement reaches a reflection only if it is in
English, by
the persona's own delegation, more than page furniture, and silent on the target and anything voted
after it (:func:`statement_problem`); :func:`filtered_statements` counts what was left out and why.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Literal

import pandas as pd

from nationbias.stores.corpora.countries import nations_in_text, to_iso3
from nationbias.stores.guard.language import is_english
from nationbias.stores.guard.leak import split_sentences
from nationbias.stores.records import Record

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


# Page furniture around a statement: navigation, breadcrumbs, bylines, photo captions, share bars.
_CLUTTER = re.compile(
    r"\bHome\b.*(?:>|\bAbout\b)|\s>\s|^\(?@\w+\)?$|\(Photo:|^(?:Share|Print|Subscribe|Tweet|Email)\b|"
    r"\b[Cc]ookies\b|\bSkip to\b|\bAll rights reserved\b|©|^\s*date \d{4}-\d{2}-\d{2}\s*$|"
    r"^\d{4}-\d{2}-\d{2}(?: \d{1,2}:\d{2})?$|^\d{1,2}:\d{2},"
)
_CLUTTER_WORDS = 15  # a furniture line is short; a speech's own line that says "Share" is not

_SYMBOL = re.compile(r"\bS/\d{4}/\d+\b")
_MONTH_NUMBER = {
    m: i
    for i, m in enumerate(
        ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"], start=1
    )
}
_DATES = (
    re.compile(r"(?P<y>20\d{2})[-/](?P<m>\d{2})[-/](?P<d>\d{2})"),  # 2020-07-08, /2020/07/08/
    re.compile(r"\bt(?P<y>20\d{2})(?P<m>\d{2})(?P<d>\d{2})_"),  # a mission page's id: t20200708_
    re.compile(r"\b(?P<d>\d{1,2})(?:st|nd|rd|th)? (?P<mon>[A-Z][a-z]{2})[a-z]*\.?,? (?P<y>20\d{2})\b"),
    re.compile(r"\b(?P<mon>[A-Z][a-z]{2})[a-z]*\.? (?P<d>\d{1,2}),? (?P<y>20\d{2})\b"),
)
_HEADER_CHARS = 250  # where a page says when it was published
_DEADLINE = re.compile(r"\b(?:until|by|before|through|till)\s*$", re.IGNORECASE)
_MIN_CHARS = 80  # less than this left after the clutter is gone: nothing to reflect on


def _published(statement: MemberStatement) -> list[dt.date]:
    """Dates in the statement's address and at its head: when the page was published."""
    found = []
    for where in (statement.url or "", statement.text[:_HEADER_CHARS]):
        for pattern in _DATES:
            for m in pattern.finditer(where):
                if _DEADLINE.search(where[: m.start()]):  # "until April 24, 2020": a mandate's end
                    continue
                month = (
                    int(m["m"])
                    if "m" in m.groupdict() and m["m"]
                    else _MONTH_NUMBER.get((m.groupdict().get("mon") or "").lower()[:3], 0)
                )
                try:
                    found.append(dt.date(int(m["y"]), month, int(m["d"])))
                except ValueError:
                    continue
    return found


def _furniture(line: str) -> bool:
    return bool(_CLUTTER.search(line)) and (len(line.split()) <= _CLUTTER_WORDS or " > " in line)


def without_clutter(text: str) -> str:
    """The statement without its page's furniture lines (navigation, breadcrumbs, share bars,
    bylines, a lone date); the speech itself is left as it is."""
    lines = [line for line in text.splitlines() if line.strip() and not _furniture(line.strip())]
    return "\n".join(lines).strip()


@functools.lru_cache(maxsize=16_384)
def _read(member: str, text: str) -> tuple[str, str | None, frozenset[str]]:
    """A statement's text without its page's furniture, what is wrong with it whatever the target,
    and the draft symbols it names. Cached: a debias run asks for the same precedent's statements
    once per reflection, and the language check alone costs about a millisecond."""
    cleaned = without_clutter(text)
    named = frozenset(_SYMBOL.findall(cleaned))
    if not is_english(cleaned[:2000] or text[:2000]):
        return cleaned, "not in English", named
    speakers = {code for code, _ in delegation_summaries(cleaned)}
    if speakers and member not in speakers:
        return cleaned, "spoken by another delegation", named
    if len(cleaned) < _MIN_CHARS:
        return cleaned, f"under {_MIN_CHARS} characters once the page's furniture is gone", named
    return cleaned, None, named


def statement_problem(
    statement: MemberStatement, *, target: Record | None = None, later_ids: Collection[str] = ()
) -> str | None:
    """Why a statement may not reach a reflection prompt, or None.

    In this order: not in English; spoken by another delegation (a page filed under the persona
    that reports someone else: "Chinese Ambassador … said"); under 80 characters once the page's
    furniture is gone; it names the target or a draft voted on or after it; it was published on or after the
    target's vote (the statement on S/2020/654 of 2020-07-07 describes S/2020/658, voted the next
    day). ``later_ids``: the ids of the drafts voted on or after the target.
    """
    _, problem, named = _read(statement.member, statement.text)
    if problem is not None:
        return problem
    if target is not None:
        if target.id in named or named & set(later_ids):
            return "names the target or a later draft"
        if any(day >= target.date for day in _published(statement)):
            return "published on or after the target's vote"
    return None


def statements_for(
    record: Record,
    member_code: str,
    *,
    target: Record | None = None,
    later_ids: Collection[str] = (),
) -> list[MemberStatement]:
    """Every usable statement by ``member_code`` on ``record``: the ``statements`` field, then the
    press; each freed of its page's furniture, and only those :func:`statement_problem` lets pass."""
    return [
        MemberStatement(s.member, _read(s.member, s.text)[0], s.source, s.url, s.kind)
        for s in all_statements_for(record, member_code)
        if statement_problem(s, target=target, later_ids=later_ids) is None
    ]


def all_statements_for(record: Record, member_code: str) -> list[MemberStatement]:
    """Every statement on record attributed to ``member_code``, unfiltered (for the counts)."""
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


def filtered_statements(
    records: Sequence[Record], drafts: Sequence[Record], members: Sequence[str]
) -> pd.DataFrame:
    """One row per statement on ``records`` by ``members``: kept, or the reason it was filtered.

    The target-dependent reasons are judged against the first draft voted after the record (the
    first target it can be a precedent for): the strictest case, since later targets are further
    away.
    """
    ordered = sorted(drafts, key=lambda r: (r.date, r.id))
    rows = []
    for record in records:
        target = next((d for d in ordered if d.date > record.date), None)
        later = [d.id for d in ordered if target is not None and d.date >= target.date]
        for member in members:
            for statement in all_statements_for(record, member):
                problem = statement_problem(statement, target=target, later_ids=later)
                rows.append(
                    {
                        "record": record.id,
                        "member": member,
                        "source": statement.source,
                        "target": target.id if target else None,
                        "reason": problem or "kept",
                    }
                )
    return pd.DataFrame(rows, columns=["record", "member", "source", "target", "reason"])
