"""Rebuild a UNSC keyword pool from corpus text by the paper's recipe (Appendix C.2).

The recipe: n-grams of two or more words, kept when frequent enough (the paper used 200
occurrences over 581 full resolution texts; the threshold here scales with corpus size), minus
the prefixes of more frequent sets, minus names of states and organisations.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from nationbias.stores.corpora.countries import nations_in_text

PAPER_THRESHOLD = 200
PAPER_CORPUS_WORDS = 581 * 2_500  # 581 resolutions of roughly 2,500 words each (an estimate)
MIN_THRESHOLD = 5
PREFIX_SHARE = 0.8  # a prefix that is this often followed by the same words adds nothing

_STOPWORDS_TEXT = """
a an and are as at be been by for from has have in into is it its of on or that the their this to was were
which with would all also any other such these those shall should may must will upon under including further
particular relevant well continued continue among no not than later set out one two three year years month
months days s within through between
"""
_ENTITY_TEXT = """
council secretary general assembly member states nations african union european al qaida qaeda isil da'esh
daesh islamic state hamas houthis taliban nato opcw iaea ecowas igad amisom minusma monusco unmiss unamid
unsmil unama minurso unifil undof unficyp unmik chapter charter president resolution resolutions paragraph
paragraphs annex document january february march april may june july august september october november
december today un republic kingdom prst abyei herzegovina darfur sahara gaza
"""
STOPWORDS = frozenset(_STOPWORDS_TEXT.split())
ENTITY_WORDS = frozenset(_ENTITY_TEXT.split())  # words of organisation, place and procedure names
_WORD = re.compile(r"[a-z][a-z'-]*[a-z]|[a-z]")


@dataclass(frozen=True)
class PoolEntry:
    keyword: str
    count: int
    category: str


def _tokens(text: str) -> Iterable[list[str]]:
    """Lower-case word runs, broken at punctuation so an n-gram never spans a clause."""
    for chunk in re.split(r"[.,;:!?()\[\]\"“”—–]|\n", text.lower().replace("’", "'")):
        words = _WORD.findall(chunk.replace("-", " "))
        if words:
            yield words


def count_ngrams(texts: Iterable[str], *, max_n: int = 4) -> tuple[Counter[str], int]:
    """Counts of n-grams (2..max_n) of content words, and the corpus word count.

    Stop words are dropped before counting, as the paper's pool shows ("sovereignty independence
    territorial integrity", "disarmament demobilization").
    """
    counts: Counter[str] = Counter()
    total = 0
    for text in texts:
        for run in _tokens(text):
            total += len(run)
            words = [w for w in run if w not in STOPWORDS]
            for n in range(2, max_n + 1):
                for i in range(len(words) - n + 1):
                    counts[" ".join(words[i : i + n])] += 1
    return counts, total


def scaled_threshold(corpus_words: int) -> int:
    return max(MIN_THRESHOLD, round(PAPER_THRESHOLD * corpus_words / PAPER_CORPUS_WORDS))


def is_entity(gram: str) -> bool:
    """Names a state or an organisation (the paper drops those: they point at particular nations)."""
    return bool(set(gram.split()) & ENTITY_WORDS) or bool(nations_in_text(gram.title()))


def _category(gram: str, paper_pool: Iterable[tuple[str, str]]) -> str:
    words = set(gram.split())
    best = max(paper_pool, key=lambda entry: len(words & set(entry[1].split())), default=None)
    return best[0] if best and words & set(best[1].split()) else "Uncategorised"


def build_pool(
    texts: Iterable[str], *, paper_pool: Iterable[tuple[str, str]] = (), threshold: int | None = None
) -> list[PoolEntry]:
    """Frequent non-entity n-grams, most frequent first, each in the paper category it shares words with."""
    counts, total = count_ngrams(texts)
    cutoff = threshold if threshold is not None else scaled_threshold(total)
    frequent = {g: c for g, c in counts.items() if c >= cutoff and not is_entity(g)}
    kept = {
        gram: count
        for gram, count in frequent.items()
        if not any(
            other != gram and other.startswith(gram + " ") and c2 >= PREFIX_SHARE * count
            for other, c2 in frequent.items()
        )
    }
    pool = list(paper_pool)
    ordered = sorted(kept.items(), key=lambda item: (-item[1], item[0]))
    return [PoolEntry(gram, count, _category(gram, pool)) for gram, count in ordered]


def overlap(pool: Iterable[str], paper: Iterable[str]) -> tuple[set[str], set[str]]:
    """Paper keywords found exactly, and those found as part of a longer (or shorter) rebuilt keyword."""
    ours, theirs = set(pool), set(paper)
    exact = ours & theirs
    partial = {p for p in theirs - exact if any(p in o or o in p for o in ours)}
    return exact, partial


@functools.lru_cache(maxsize=4096)  # a record's text is looked up in two pools (the paper's, the corpus's)
def content_words(text: str) -> str:
    """The text as lower-case content words, space-separated and padded, for phrase lookup."""
    runs = (" ".join(w for w in run if w not in STOPWORDS) for run in _tokens(text))
    return " " + " | ".join(r for r in runs if r) + " "


@functools.lru_cache(maxsize=8192)
def _needle(phrase: str) -> str:
    """A phrase as :func:`phrases_in` looks for it; the same few hundred phrases are looked up in every
    text, so each is turned into content words once."""
    return f" {content_words(phrase).strip()} "


_Entry = tuple[int, str, str]  # a phrase's place in the list, the phrase, its needle


@functools.lru_cache(maxsize=64)
def _phrase_index(phrases: tuple[str, ...]) -> tuple[dict[str, list[_Entry]], list[_Entry]]:
    """The phrases by the first word of their needle (and those with none): a needle is found only in a
    text holding that word, so a text is searched for the few phrases whose first word it has."""
    by_word: dict[str, list[_Entry]] = {}
    always: list[_Entry] = []
    for place, phrase in enumerate(dict.fromkeys(phrases)):
        needle = _needle(phrase)
        words = needle.split()
        entry = (place, phrase, needle)
        if words:
            by_word.setdefault(words[0], []).append(entry)
        else:
            always.append(entry)
    return by_word, always


def phrases_in(text: str, phrases: Iterable[str]) -> list[str]:
    """The phrases (in content-word form) that occur in ``text``, most frequent first."""
    haystack = content_words(text)
    by_word, always = _phrase_index(tuple(phrases))
    # A needle is " w1 w2 " and the text " a b | c ": it occurs only where w1 is one of the text's words.
    candidates = always + [e for word in set(haystack.split()) for e in by_word.get(word, ())]
    found = [(p, n) for _, p, needle in sorted(candidates) if (n := haystack.count(needle))]
    return [p for p, _ in sorted(found, key=lambda item: -item[1])]  # stable: ties keep the list's order
