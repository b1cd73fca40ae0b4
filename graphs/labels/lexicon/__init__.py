"""The word tables the answer-labelling rules read in each UN language but English.

English keeps its own hand-tuned rules in the concept modules (parsing, vote, directqa, ranking); an
answer in another language is read by the same kinds of rule (a lead label, a labelled line, a vote or
choice cast in words, a negation that un-chooses, a hedge that leaves it to the judge), with the words
taken from that language's :class:`Lexicon`: one module per language, one registry line each.
"""

from __future__ import annotations

from nationbias.graphs.labels.lexicon import ar, es, fr, ru, zh
from nationbias.graphs.labels.lexicon.table import CLAUSE_PUNCT, SENTENCE_END, Lexicon
from nationbias.prompts.registry import check_language
from nationbias.stores.domain import DEFAULT_LANGUAGE

__all__ = ["CLAUSE_PUNCT", "LEXICONS", "SENTENCE_END", "Lexicon", "check_language", "lexicon"]

LEXICONS: dict[str, Lexicon] = {
    "ar": ar.LEXICON,
    "zh": zh.LEXICON,
    "fr": fr.LEXICON,
    "ru": ru.LEXICON,
    "es": es.LEXICON,
}


def lexicon(language: str) -> Lexicon | None:
    """The word tables for ``language``; None for English, whose rules are the concept modules' own."""
    key = check_language(language)  # the prompts' check: one list of languages, one message
    return None if key == DEFAULT_LANGUAGE else LEXICONS[key]
