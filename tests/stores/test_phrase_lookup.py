"""Phrase lookup by first word (stores/corpora/keywords.py: phrases_in) finds exactly what a count of every
phrase in the text finds, in the same order: the offline keywords depend on it."""

from __future__ import annotations

from nationbias.stores.corpora.keywords import content_words, phrases_in


def _every_phrase_counted(text: str, phrases: list[str]) -> list[str]:
    haystack = content_words(text)
    found = {p: haystack.count(f" {content_words(p).strip()} ") for p in phrases}
    return [p for p, n in sorted(found.items(), key=lambda item: -item[1]) if n > 0]


TEXT = (
    "The draft would demand a ceasefire in the region; it would demand humanitarian access, "
    "humanitarian access for all, and the protection of civilians. Ceasefire talks would resume.\n"
    "Humanitarian access: sovereignty, independence and territorial integrity."
)
PHRASES = [
    "humanitarian access",
    "ceasefire",
    "protection of civilians",
    "Humanitarian Access",  # the same needle as the first, a different phrase
    "ceasefire",  # a duplicate: counted once, at its first place
    "the of and",  # stop words only: an empty needle
    "territorial integrity",
    "sovereignty independence territorial integrity",
    "access, for",  # punctuation: a needle across a clause break
    "nuclear disarmament",  # absent
    "demand",
    "talks",
]


def test_lookup_by_first_word_matches_counting_every_phrase() -> None:
    assert phrases_in(TEXT, PHRASES) == _every_phrase_counted(TEXT, PHRASES)
    # 3 times each (the second in the first phrase's place; "for" is a stop word), then twice, then once
    assert phrases_in(TEXT, PHRASES) == [
        "humanitarian access",
        "Humanitarian Access",
        "access, for",
        "ceasefire",
        "demand",
        "protection of civilians",
        "territorial integrity",
        "talks",
    ]
    for cut in range(0, len(TEXT), 37):
        part = TEXT[cut:]
        assert phrases_in(part, PHRASES) == _every_phrase_counted(part, PHRASES)
    assert phrases_in("", PHRASES) == _every_phrase_counted("", PHRASES)
    assert phrases_in(TEXT, []) == []
