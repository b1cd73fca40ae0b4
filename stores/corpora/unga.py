"""The UN General Assembly roll calls (Voeten, CC0) as a second body beside the Security Council.

One reader for the three shipped files (``unga/``: roll calls, votes, issue codes). Votes come back as a
long table (``rcid, date, member, vote``: what baselines want) and as :class:`Record` objects with
``body="unga"`` (what studies and retrievers want). A state's vote is ``Y``/``N``/``A`` keyed by its ISO3
code; any other code (absent, not voting) is not a vote and is dropped and counted. State names go through
:mod:`nationbias.stores.corpora.countries`; a name it cannot place is dropped and named in
:attr:`Assembly.unmapped`, never
guessed. Old rows are upper case: :func:`sentence_case` rewrites them with the casing the file's own
mixed-case rows use for each word, so acronyms and names (``UK``, ``UNRWA``, ``Israel``) stay right.
Loading everything takes a few seconds; the result is cached per data folder.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import pandas as pd

from nationbias.stores.corpora.bundled import data_file
from nationbias.stores.corpora.corpus import Corpus
from nationbias.stores.corpora.countries import is_iso3, nations_in_text, to_iso3
from nationbias.stores.records import Context, Record, Tally

ROLL_CALLS = "unga/unga_voeten_un_roll_calls.csv.gz"
VOTES_FILE = "unga/unga_voeten_un_votes.csv.gz"
ISSUES_FILE = "unga/unga_voeten_un_roll_call_issues.csv.gz"
ISSUES = {
    "me": "Middle East (Palestinian conflict)",
    "nu": "Nuclear weapons and nuclear material",
    "di": "Arms control and disarmament",
    "hr": "Human rights",
    "co": "Colonialism",
    "ec": "Economic development",
}
VOTE_WORDS = {"yes": "Y", "no": "N", "abstain": "A"}
_WORD = re.compile(r"[A-Za-z][A-Za-z'’.-]*[A-Za-z]|[A-Za-z]")
_TOKEN = re.compile(r"(?P<symbol>\b[A-Z]+(?:/[A-Z0-9.-]+)+)|" + _WORD.pattern)
_QUOTED = re.compile(r"\b_([^_<]{1,300})<d3>")
_CATALOGUE = re.compile(
    r"\s*:?\s*(?:(?:draft\s+)?resolutions?\s*)?/\s*adopted\b.*$", re.IGNORECASE | re.DOTALL
)
# Acronyms of the early sessions that the file's mixed-case rows never spell out.
ACRONYMS = (
    "ussr", "uk", "us", "usa", "un", "uar", "ecosoc", "unesco", "unicef", "unrwa", "iaea", "npt",
    "undp", "unctad", "unhcr", "unep", "unido", "unitar", "oau", "plo", "nato", "imf", "gatt", "fao",
)  # fmt: skip
# A run of two or more upper-case words inside mixed-case text: a subject heading ("- HUMAN RIGHTS –
# REPORTS"), which says nothing of how a word is usually written.
_CAPS_RUN = re.compile(r"(?<![\w/])[A-Z][A-Z'’.-]*[A-Z](?:[\s,/–]+[A-Z][A-Z'’.-]*[A-Z])+(?![\w/])")
_CAPS_WORD = re.compile(r"(?<![\w/.’'-])[A-Z]{4,}(?![\w/’'-])")  # one shouted word in mixed-case text
_DOTTED = re.compile(r"^(?:[A-Za-z]\.)+[A-Za-z]$")  # U.N, U.S, E.S.C: an abbreviation in capitals
# The UN's organs, written as names whatever the row's case ("security Council" in an old row).
ORGAN_NAMES = (
    "Security Council", "General Assembly", "Trusteeship Council", "Economic and Social Council",
    "International Court of Justice", "Secretary-General", "Human Rights Council", "United Nations",
)  # fmt: skip
_ORGANS = re.compile(r"\b(?:" + "|".join(map(re.escape, ORGAN_NAMES)) + r")\b", re.IGNORECASE)
_LATIN = frozenset({"i.a", "e.g", "i.e"})  # inter alia, exempli gratia, id est: lower case


@dataclass(frozen=True)
class Unmapped:
    """A state name the country library cannot place, and how many vote rows it had."""

    country: str
    country_code: str
    rows: int


@dataclass(frozen=True, eq=False)  # hashed by identity: baselines cache their features per Assembly
class Assembly:
    """The loaded Assembly: one row per roll call, one row per recorded vote, and what was dropped."""

    roll_calls: pd.DataFrame  # index rcid: date, session, unres, flags, short, descr, title, issues
    votes: pd.DataFrame  # rcid, date, member (ISO3), vote (Y/N/A); sorted by date, rcid, member
    unmapped: tuple[Unmapped, ...]
    not_votes: int  # rows whose vote was not yes/no/abstain (absent, not voting)
    # the records of each year span asked for: building the 6,000 of them takes seconds, and every
    # Assembly study, baseline and report asks again (the loaded Assembly is itself cached per copy)
    _records: dict[tuple[int, int] | None, tuple[Record, ...]] = field(default_factory=dict, repr=False)
    # each roll call's record, whichever span asked for it first (the spans asked for overlap)
    _by_rcid: dict[int, Record] = field(default_factory=dict, repr=False)

    def records(self, years: tuple[int, int] | None = None) -> list[Record]:
        """Each roll call as a :class:`Record` (``body="unga"``) in date order, optionally in ``years``."""
        if years not in self._records:
            self._records[years] = tuple(self._build_records(years))
        return list(self._records[years])

    def _build_records(self, years: tuple[int, int] | None) -> list[Record]:
        calls = self.roll_calls
        if years is not None:
            calls = calls[calls["date"].dt.year.between(*years)]
        todo = calls[~calls.index.isin(list(self._by_rcid))]
        if len(todo):
            votes = self.votes[self.votes["rcid"].isin(todo.index)]
            by_call: dict[int, dict[str, str]] = defaultdict(dict)
            columns = (votes["rcid"].tolist(), votes["member"].tolist(), votes["vote"].tolist())
            for rcid, member, vote in zip(*columns, strict=True):
                by_call[int(rcid)][member] = vote
            for row in todo.reset_index().to_dict("records"):
                rcid = int(row["rcid"])
                self._by_rcid[rcid] = _record(rcid, row, by_call.get(rcid, {}))
        return [self._by_rcid[int(rcid)] for rcid in calls.index]


def _record(rcid: int, row: dict[Any, Any], votes: dict[str, str]) -> Record:
    counts = Counter(votes.values())
    issues = [ISSUES[code] for code in ISSUES if row[code]]
    described = description(row, issues="; ".join(issues))
    text = described.text or f"Roll call {rcid}"
    main = described.main
    notes = ["adopted is inferred from the tally (more yes than no); the roll-call file does not record it"]
    return Record.model_construct(  # the loader checked every field; validation would cost seconds
        id=f"UNGA-{rcid}",
        body="unga",
        kind="amendment" if row["amend"] else "draft",
        paragraph=bool(row["para"]),
        adopted=counts["Y"] > counts["N"],
        resolution=row["unres"] or None,
        date=row["date"].date(),
        meeting=None,
        agenda_item=described.agenda_item,
        category=None,
        region=None,
        topic="; ".join(filter(None, [described.subject, *issues])) or None,
        sponsors=[],
        title=(main if main and len(main) <= TITLE_CHARS else without_catalogue(row["short"])) or None,
        tally=Tally(yes=counts["Y"], no=counts["N"], abstain=counts["A"]),
        votes=votes,
        vetoed_by=[],
        context=Context(text=text, source="unga-voeten"),
        draft_text=None,
        press_excerpt=None,
        statements=[],
        notes=notes,
    )


TITLE_CHARS = 150  # a description this short is the roll call's title (what a fallback prompt shows)
# The 71st session's rows: "A/71/251 98 - General and complete disarmament. - Disarmament – general …":
# the Committee report, the agenda item and its subject heading; the title is then in ``short``.
# The verbatim rows stop at "A" of "A recorded vote has been requested": a cut word, not a description.
_CUT_VOTE_REQUEST = re.compile(r"(?<=[.:])\s+A$")
_AGENDA_ROW = re.compile(r"^A/\d+/\S+\s+(?P<number>\w{1,6})\s+-\s+(?P<item>.+?)\.?\s+-\s+(?P<subject>.+)$")


@dataclass(frozen=True)
class Description:
    """What the roll-call file says was put to the vote (see :func:`description`)."""

    main: str  # the description or title ("" when the file has none)
    agenda_item: str | None  # "98: General and complete disarmament" (71st session rows only)
    subject: str | None  # the subject heading ("Middle East situation"), when the main text lacks it
    facts: tuple[str, ...]  # one line each: agenda item, subject, issue, what kind of vote

    @property
    def text(self) -> str:
        return "\n".join(filter(None, [self.main, *self.facts]))


def description(row: dict[Any, Any], *, issues: str) -> Description:
    """What the roll-call file says was put to the vote, before the vote: the description (``descr``,
    else ``short``), then, one line each, the agenda item, the subject heading, the issue and what
    kind of vote it was (an amendment, a paragraph voted separately). Nothing that says how the vote
    went: the catalogue's "resolution / adopted by …" suffix is dropped and no A/RES number is used."""
    descr, short = without_catalogue(row["descr"]), without_catalogue(row["short"])
    descr = _CUT_VOTE_REQUEST.sub("", descr)
    own = re.sub(r"^(?:A/RES/|A/|R/)", "", str(row.get("unres") or "").strip())
    if own and (own in descr or own in short):  # (most rows do not quote it: no pattern to build)
        # its own resolution number ("A/RES/ES-10/19, Status of Jerusalem") says it was adopted
        number = re.compile(rf"(?:\bA/RES/|\bR/|(?<![\w/-])){re.escape(own)}(?![\w/-])[,:;]?\s*")
        descr, short = number.sub("", descr).strip(), number.sub("", short).strip()
    agenda = _AGENDA_ROW.match(descr)
    if agenda:
        main, subject, item = short, agenda["subject"], f"{agenda['number']}: {agenda['item']}"
    else:
        main, subject, item = descr or short, short if descr else "", None
    if not subject or subject.lower() in main.lower():
        subject = ""
    facts = [f"Agenda item {item}" if item else "", f"Subject: {subject}" if subject else ""]
    facts.append(f"Issue: {issues}" if issues else "")
    said = main.lower()
    if row["amend"] and "amend" not in said:
        facts.append("Vote on: an amendment")
    elif row["para"] and not row["amend"] and not re.search(r"parag|sub-?paragraph|\bpara\b", said):
        facts.append("Vote on: a paragraph, voted on separately")
    return Description(main, item, subject or None, tuple(f for f in facts if f))


def unescape(text: str) -> str:
    """The verbatim rows' escaped typography: ``_Title<d3>`` is a quoted title, ``<90>`` an apostrophe."""
    text = _QUOTED.sub(r"“\1”", text.replace("<90>", "’")).replace("<d3>", "”")
    text = re.sub(r"(?<=\w)--(?=\w)", " – ", text)  # a subject heading's "HUMAN RIGHTS--REPORTS"
    return text.replace(" _ ", " – ")


def without_catalogue(text: str) -> str:
    """``text`` without the library catalogue's suffix (": resolution / adopted by the General Assembly",
    often cut short): it says how the vote went, so it never reaches a prompt."""
    return _CATALOGUE.sub("", text).strip()


def _read(name: str, **options: object) -> pd.DataFrame:
    with data_file(name).open_text(newline="") as handle:
        return pd.read_csv(handle, keep_default_na=False, **options)  # type: ignore[call-overload]


def case_map(texts: list[str]) -> dict[str, str]:
    """Each word's usual casing in the mixed-case ``texts`` (not counting sentence starts or headings
    in capitals): an acronym (``UNRWA``), a name capitalised in at least 80% of three or more uses
    (``Israel``), or the word itself when it is usually in lower case; a word never seen is absent."""
    forms: dict[str, Counter[str]] = defaultdict(Counter)
    for text in texts:
        if text.upper() == text:
            continue
        text = _CAPS_RUN.sub(lambda run: "." + " " * (len(run.group(0)) - 1), text)  # headings say nothing
        for match in _WORD.finditer(text):
            before = text[: match.start()].rstrip()
            if before and before[-1] not in ".;:!?":
                forms[match.group(0).lower()][match.group(0)] += 1
    cases = {word: word.upper() for word in ACRONYMS}
    for word, counter in forms.items():
        form, count = counter.most_common(1)[0]
        acronym = form.isupper() and len(form) > 1 and count >= 2
        if form != word and (acronym or (count >= 3 and count >= 0.8 * counter.total())):
            cases[word] = form
        elif form == word:
            cases.setdefault(word, word)  # usually in lower case: a shouted "DEMOCRACY" is written so
    return cases


def _cased(token: str, cases: dict[str, str]) -> str:
    """One upper-case word as ``cases`` writes it: an acronym or a name kept, an abbreviation in
    dotted capitals (``U.N.``) kept, a state's name capitalised, any other word in lower case."""
    lower = token.lower()
    if lower in cases:
        return cases[lower]
    if _DOTTED.match(token):
        return lower if lower in _LATIN else token.upper()
    return token.title() if len(token) > 3 and nations_in_text(token.title()) else lower  # Tunisia


def _shouted(token: str, cases: dict[str, str]) -> str:
    """A lone upper-case word in mixed-case text: as the file usually writes it if that is not in
    capitals ("DEMOCRACY"), else kept (an acronym, or a word never seen otherwise)."""
    usual = cases.get(token.lower())
    return usual if usual is not None and not usual.isupper() else token


def sentence_case(text: str, cases: dict[str, str]) -> str:
    """An all-upper-case ``text`` in sentence case, each word as ``cases`` writes it and document symbols
    (``A/C.3/19``) kept. In mixed-case text only the runs of two or more upper-case words (a subject
    heading: "DISARMAMENT – GENERAL AND COMPLETE") are rewritten, each as a sentence."""
    if not text or not any(c.isalpha() for c in text):
        return text
    if text.upper() != text:
        text = _CAPS_RUN.sub(lambda run: sentence_case(run.group(0), cases), text)
        return _CAPS_WORD.sub(lambda m: _shouted(m.group(0), cases), text)

    def word(match: re.Match[str]) -> str:
        token = match.group(0)
        return token if match.group("symbol") else _cased(token, cases)

    lowered = _ORGANS.sub(lambda m: _organ(m.group(0)), _TOKEN.sub(word, text))
    return lowered[:1].upper() + lowered[1:]


def _organ(found: str) -> str:
    """An organ's name as the UN writes it."""
    return next(name for name in ORGAN_NAMES if name.lower() == found.lower())


def title_key(text: str) -> str:
    """What makes two roll calls "the same title": lower case, the catalogue's suffix and punctuation gone."""
    text = re.split(r"\s*:\s*(?:draft\s+)?resolution\s*/", text.lower())[0]
    return " ".join(re.findall(r"[a-z0-9]+", text))


def _roll_calls() -> pd.DataFrame:
    calls = _read(ROLL_CALLS, dtype=str)
    calls["rcid"] = calls["rcid"].astype(float).astype(int)
    calls["date"] = pd.to_datetime(calls["date"], format="%Y-%m-%d")
    calls["session"] = pd.to_numeric(calls["session"], errors="coerce").astype("Int64")
    for flag in ("amend", "para", "importantvote"):
        calls[flag] = pd.to_numeric(calls[flag], errors="coerce").fillna(0).astype(bool)
    cases = case_map([*calls["short"], *calls["descr"]])
    for column in ("short", "descr"):
        calls[column] = [sentence_case(" ".join(unescape(text).split()), cases) for text in calls[column]]
    calls["unres"] = calls["unres"].str.strip()
    calls["title"] = [title_key(d or s) for d, s in zip(calls["descr"], calls["short"], strict=True)]
    issues = _read(ISSUES_FILE, dtype=str)
    issues["rcid"] = issues["rcid"].astype(float).astype(int)
    for code in ISSUES:
        calls[code] = calls["rcid"].isin(issues.loc[issues["short_name"] == code, "rcid"])
    return calls.set_index("rcid").sort_values(["date", "rcid"], kind="stable")


def _votes(calls: pd.DataFrame) -> tuple[pd.DataFrame, tuple[Unmapped, ...], int]:
    raw = _read(VOTES_FILE, dtype=str)
    vote = raw["vote"].str.strip().str.lower().map(VOTE_WORDS)
    not_votes = int(vote.isna().sum())
    raw = raw.assign(vote=vote).dropna(subset=["vote"])
    names = raw[["country", "country_code"]].drop_duplicates()
    codes = {name: code if (code := to_iso3(name)) and is_iso3(code) else None for name in names["country"]}
    member = raw["country"].map(codes)
    missing = raw[member.isna()].groupby(["country", "country_code"]).size().reset_index(name="rows")
    unmapped = tuple(
        Unmapped(str(r["country"]), str(r["country_code"]), int(r["rows"])) for _, r in missing.iterrows()
    )
    votes = pd.DataFrame(
        {
            "rcid": raw["rcid"].astype(float).astype(int),
            "member": member,
            "vote": raw["vote"],
        }
    ).dropna(subset=["member"])
    votes["date"] = votes["rcid"].map(calls["date"])
    votes = votes.sort_values(["date", "rcid", "member"], kind="stable").reset_index(drop=True)
    return votes[["rcid", "date", "member", "vote"]], unmapped, not_votes


@cache
def _load(roll_calls: str, votes: str, issues: str) -> Assembly:
    del votes, issues  # the cache key: which copies were read
    calls = _roll_calls()
    table, unmapped, not_votes = _votes(calls)
    return Assembly(roll_calls=calls, votes=table, unmapped=unmapped, not_votes=not_votes)


def load_assembly() -> Assembly:
    """The Assembly from the data copy in use (packaged, or ``NATIONBIAS_DATA`` / ``--data``); cached."""
    return _load(*(data_file(name).stored for name in (ROLL_CALLS, VOTES_FILE, ISSUES_FILE)))


def assembly_corpus(*, until: int | None = None) -> Corpus:
    """Every roll call up to the end of year ``until`` as a :class:`Corpus` of ``body="unga"`` records:
    the items of an Assembly study and, before each one, the debias pool. Its hash covers the three
    files, so a run records which copy of the data it read."""
    records = load_assembly().records((1946, until) if until is not None else None)
    return Corpus(records=records, sha256=assembly_sha256())


def assembly_sha256() -> str:
    """The hash of the Assembly data copy in use (its three files)."""
    return _files_sha256(*(data_file(name).stored for name in (ROLL_CALLS, VOTES_FILE, ISSUES_FILE)))


@cache
def _files_sha256(*stored: str) -> str:
    """The three files' hash, once per copy (``stored`` names the copies read)."""
    digest = hashlib.sha256()
    for name in (ROLL_CALLS, VOTES_FILE, ISSUES_FILE):
        digest.update(data_file(name).read_bytes())
    return digest.hexdigest()


def assembly_votes(years: tuple[int, int] | None = None) -> pd.DataFrame:
    """The long vote table (``rcid, date, member, vote``), optionally within ``years`` (inclusive)."""
    votes = load_assembly().votes
    return votes if years is None else votes[votes["date"].dt.year.between(*years)].reset_index(drop=True)
