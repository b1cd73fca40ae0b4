"""What an item's UN text says, read for retrieval: the text operative paragraphs first, its key phrases.

The press descriptions and titles the corpus has for most items are thin (a title, or a sentence that
matches on "peace security"); the UN's own text (``stores/corpora/un_texts.py``) says what a draft would do.
The operative paragraphs come first: they are the decisions ("Decides to extend the mandate of UNMISS …"),
while the preamble recalls and reaffirms what many texts share. Key phrases are drawn by YAKE (``yake``
on PyPI: statistical, no model or corpus downloaded), never from the agenda item or title.

Every text passes the leak guard before anything reads it: a sentence that would tell an outcome goes
whole, as from any other text.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from functools import cache, lru_cache
from pathlib import Path

import yake

from nationbias.stores.corpora.countries import name_for, nations_in_text
from nationbias.stores.corpora.keywords import STOPWORDS as POOL_STOPWORDS
from nationbias.stores.corpora.un_texts import UnText, un_texts
from nationbias.stores.guard.leak import strip_outcome_sentences
from nationbias.stores.records import Record

KEY_PHRASES = 12  # YAKE phrases kept per text
KEY_CHARS = 3_000  # YAKE reads the text's opening (operative paragraphs) up to this many characters
PHRASE_TABLE = Path(__file__).parents[1] / "tables" / "un_key_phrases.json.gz"
MAX_PHRASE_WORDS = 3
_OPENING = re.compile(r"^The Security Council,?$", re.IGNORECASE)
# Procedure words every text holds: a phrase made only of them says nothing about a text's subject.
_PROCEDURE_TEXT = """
    decides requests calls urges remain actively seized matter security council secretary general report
    reports resolution resolutions paragraph paragraphs member states nations united charter international
    peace acting chapter vii including relevant welcomes expresses recalling reaffirming reaffirms stresses
    january february march april may june july august september october november december
"""
_PROCEDURE = frozenset(_PROCEDURE_TEXT.split())


def un_text_of(record: Record) -> UnText | None:
    """The UN's English text of a Council item, if the packaged texts hold one."""
    if record.body != "unsc":
        return None
    return un_texts("en").get(record.id)


def operative_first(text: UnText) -> str:
    """The operative paragraphs (numbers kept), then the preamble without its opening line."""
    preamble = [p for p in text.preamble if not _OPENING.match(p.strip())]
    return "\n".join([*text.operative, *preamble])


def un_nation_text(record: Record) -> str | None:
    """The paragraphs that name the states a text is about: the operative ones where they name any
    (the parties it acts on), else the whole text (a preamble that says where)."""
    text = un_text_of(record)
    if text is None:
        return None
    operative = "\n".join(text.operative)
    return operative if nations_in_text(operative) else operative_first(text)


def un_subject(record: Record) -> str:
    """One line of what the record's UN text is about: the states it names and its key phrases."""
    nations = [c for c in nations_in_text(un_nation_text(record) or "")]
    text = un_operative_text(record)
    phrases = key_phrases(text) if text else ()
    return "; ".join([*(name_for(c) for c in nations), *phrases])


_SAFE: dict[tuple[str, str | None, str], str] = {}


def un_operative_text(record: Record) -> str | None:
    """The record's UN text, operative paragraphs first and leak-guarded (its own resolution number
    counts as an outcome, as in every text); None where there is none."""
    text = un_text_of(record)
    if text is None:
        return None
    key = (record.id, record.resolution, text.source)
    if key not in _SAFE:
        _SAFE[key] = strip_outcome_sentences(operative_first(text), record=record)[0]
    return _SAFE[key] or None


@lru_cache(maxsize=1)
def _extractor() -> yake.KeywordExtractor:
    return yake.KeywordExtractor(lan="en", n=MAX_PHRASE_WORDS, dedupLim=0.7, top=KEY_PHRASES * 3)


def _content(phrase: str) -> str:
    return " ".join(re.findall(r"[a-z][a-z'-]*[a-z]|[a-z]", phrase.casefold().replace("’", "'")))


def clipped(text: str, *, limit: int = KEY_CHARS) -> str:
    """The first paragraphs of ``text`` up to ``limit`` characters (the first one whole, if longer)."""
    kept: list[str] = []
    size = 0
    for paragraph in text.split("\n"):
        if kept and size + len(paragraph) > limit:
            break
        kept.append(paragraph)
        size += len(paragraph) + 1
    return "\n".join(kept)


def extract_key_phrases(text: str, *, limit: int = KEY_PHRASES) -> tuple[str, ...]:
    """YAKE's ``limit`` best phrases of the text's first :data:`KEY_CHARS` characters, lower case; no
    state names (they are target nations), no phrase of procedure or stop words alone."""
    phrases: list[str] = []
    for phrase, _score in _extractor().extract_keywords(clipped(text)):
        words = _content(phrase).split()
        if not words or nations_in_text(phrase) or nations_in_text(phrase.title()):
            continue
        if all(w in _PROCEDURE or w in POOL_STOPWORDS or len(w) < 3 for w in words):
            continue
        joined = " ".join(words)
        if joined not in phrases:
            phrases.append(joined)
        if len(phrases) >= limit:
            break
    return tuple(phrases)


def text_key(text: str) -> str:
    """A text's key in the phrase table: what it says, so a changed text is never looked up stale."""
    return hashlib.sha256(clipped(text).encode()).hexdigest()[:20]


@cache
def phrase_table() -> Mapping[str, tuple[str, ...]]:
    """The packaged key phrases of the corpus's UN texts by :func:`text_key` (``python -m
    nationbias.stores.corpora.un_fields`` writes it): YAKE takes about 0.3 s a text, minutes for the corpus,
    which every process reading the augmented fields would otherwise pay."""
    if not PHRASE_TABLE.is_file():
        return {}
    with gzip.open(PHRASE_TABLE, "rt", encoding="utf-8") as handle:
        return {key: tuple(phrases) for key, phrases in json.load(handle).items()}


def key_phrases(text: str) -> tuple[str, ...]:
    """:func:`extract_key_phrases` of ``text``, read from the packaged table when it holds the text."""
    found = phrase_table().get(text_key(text))
    return found if found is not None else _extracted(text)


@lru_cache(maxsize=4096)
def _extracted(text: str) -> tuple[str, ...]:
    return extract_key_phrases(text)


def build_phrase_table(records: Iterable[Record]) -> dict[str, list[str]]:
    """The table for every record with a UN text (what :func:`key_phrases` would compute for each)."""
    table: dict[str, list[str]] = {}
    for record in records:
        text = un_operative_text(record)
        if text is not None and text_key(text) not in table:
            table[text_key(text)] = list(extract_key_phrases(text))
    return dict(sorted(table.items()))


def write_phrase_table(table: Mapping[str, Sequence[str]], path: Path = PHRASE_TABLE) -> None:
    with gzip.GzipFile(path, "wb", mtime=0) as raw:  # mtime 0: the same table, the same bytes
        raw.write((json.dumps(table, indent=0, ensure_ascii=False) + "\n").encode())


if __name__ == "__main__":
    from nationbias.stores.corpora.corpus import load_corpus

    write_phrase_table(build_phrase_table(load_corpus().records))
    print(f"wrote {PHRASE_TABLE}")
