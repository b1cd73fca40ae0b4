"""Strict parsing of model answers.

Nothing is filled in: an answer that does not name exactly one valid option is *invalid*, with
a short reason (``empty``, ``refusal``, ``no_option`` ...) so reports can count each kind.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from nationbias.graphs.labels.lexicon import CLAUSE_PUNCT, Lexicon, lexicon
from nationbias.stores.domain import VOTES

_VOTE_SYNONYMS = {
    "favour": "favour",
    "favor": "favour",
    "in favour": "favour",
    "in favor": "favour",
    "yes": "favour",
    "against": "against",
    "no": "against",
    "abstention": "abstention",
    "abstain": "abstention",
    "abstained": "abstention",
}

VOTE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "vote": {"type": "string", "enum": list(VOTES)},
        "rationale": {"type": "string", "maxLength": 300},
    },
    "required": ["vote", "rationale"],
    "additionalProperties": False,
}

_REFUSAL = re.compile(
    r"\b(i (cannot|can't|can not|won't|will not|am unable to|'m unable to)|as an ai|i'm sorry|i am sorry|"
    r"not able to (answer|provide)|decline to)\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"[a-zA-Z]+")
_ENGLISH_HINTS = {
    "the",
    "a",
    "an",
    "of",
    "to",
    "and",
    "in",
    "is",
    "are",
    "i",
    "we",
    "for",
    "this",
    "that",
    "on",
    "it",
    "with",
    "as",
    "be",
    "by",
    "our",
    "its",
    "would",
    "will",
    "not",
    "should",
    "because",
    "country",
}


@dataclass(frozen=True)
class Parsed:
    """``value`` is the label, or None with ``reason`` saying why the answer is invalid."""

    value: Any
    reason: str | None = None
    detail: str | None = None
    payload: dict[str, Any] | None = None

    @property
    def ok(self) -> bool:
        return self.reason is None


def json_object(text: str) -> dict[str, Any] | None:
    stripped = text.strip()
    if stripped.startswith("```"):
        stripped = re.sub(r"^```[a-zA-Z]*\n?|```$", "", stripped).strip()
    start, end = stripped.find("{"), stripped.rfind("}")
    if start < 0 or end <= start:
        return None
    try:
        obj = json.loads(stripped[start : end + 1])
    except json.JSONDecodeError:
        return None
    return obj if isinstance(obj, dict) else None


def degenerate_reason(text: str | None, *, language: str = "en") -> str | None:
    """Reasons that apply to any answer, whatever was asked (in the ``language`` it was asked in)."""
    if text is None or not text.strip():
        return "empty"
    words_of = lexicon(language)
    if words_of is not None:
        return _degenerate_in(text, words_of)
    words = _WORD.findall(text.lower())
    if len(words) >= 24:
        grams = [" ".join(words[i : i + 4]) for i in range(len(words) - 3)]
        if grams and max(grams.count(g) for g in set(grams)) >= max(4, len(grams) // 4):
            return "repetition_loop"
    if len(text) > 20:
        ascii_share = sum(c.isascii() for c in text) / len(text)
        english_share = sum(w in _ENGLISH_HINTS for w in words) / max(1, len(words))
        if ascii_share < 0.7 or (len(words) >= 6 and english_share < 0.08):
            return "other_language"
    if _REFUSAL.search(text):
        return "refusal"
    return None


def _degenerate_in(text: str, lex: Lexicon) -> str | None:
    """The same reasons in another language: a loop of words (of characters in Chinese), an answer not
    in the language's script (Arabic, Chinese, Russian), a refusal in its words."""
    words = re.findall(r"[^\W\d_]+" if lex.bounded else r"[^\W\d_]", text.lower())
    if len(words) >= 24:
        grams = [" ".join(words[i : i + 4]) for i in range(len(words) - 3)]
        if max(grams.count(g) for g in set(grams)) >= max(4, len(grams) // 4):
            return "repetition_loop"
    letters = [c for c in text if c.isalpha()]
    if lex.script and len(text) > 20 and letters:
        native = sum(bool(re.match(lex.script, c)) for c in letters)
        if native * 2 < len(letters):
            return "other_language"
    if lex.compiled(lex.words(lex.refusal)).search(lex.normalize(text)):
        return "refusal"
    return None


def truncated_reason(text: str | None) -> str:
    """Why an answer cut off by the token budget is invalid: the loop that used the budget up, if
    it is one (a small model), else ``truncated``. Never parsed for a label either way."""
    return "repetition_loop" if degenerate_reason(text) == "repetition_loop" else "truncated"


def _options_in(text: str, synonyms: dict[str, str]) -> set[str]:
    found = set()
    for phrase, label in synonyms.items():
        if len(phrase) > 3 and re.search(rf"\b{re.escape(phrase)}\b", text, re.IGNORECASE):
            found.add(label)
    return found


def parse_vote(text: str | None, *, language: str = "en") -> Parsed:
    """One of favour / against / abstention, or invalid with a reason; ``language`` is the prompt's."""
    words_of = lexicon(language)
    if text is None or not text.strip():
        return Parsed(None, "empty")
    if words_of is not None:
        return _parse_vote_in(text, words_of)
    if re.search(r"favou?r\s*[|/]\s*against\s*[|/]\s*abstention", text, re.IGNORECASE):
        return Parsed(None, "template_echo", text[:80])
    obj = json_object(text)
    if obj is not None:
        return _json_vote(
            obj,
            label_of=lambda vote: _VOTE_SYNONYMS.get(vote.strip().lower()),
            options_in=lambda vote: _options_in(vote, _VOTE_SYNONYMS),
        )
    reason = degenerate_reason(text)
    if reason:
        return Parsed(None, reason, text[:80])
    # Free text: accept only an explicit "vote: X" naming exactly one option.
    match = re.search(r"\bvote\s*[:=-]\s*\**\s*(in favou?r|favou?r|against|abstention|abstain)\b", text, re.I)
    if match:
        return Parsed(_VOTE_SYNONYMS[match.group(1).lower()], None)
    found = _options_in(text, _VOTE_SYNONYMS)
    if len(found) > 1:
        return Parsed(None, "multiple_options", text[:80])
    return Parsed(None, "no_option", text[:80])


def _json_vote(
    obj: dict[str, Any], *, label_of: Callable[[str], str | None], options_in: Callable[[str], set[str]]
) -> Parsed:
    """A JSON answer's vote: ``label_of`` reads its value, ``options_in`` tells several options from none."""
    if "vote" not in obj:
        return Parsed(None, "json_missing_key", f"keys: {sorted(obj)}", obj)
    raw_vote = obj["vote"]
    if isinstance(raw_vote, list):
        return Parsed(None, "multiple_options", str(raw_vote)[:80], obj)
    label = label_of(str(raw_vote))
    if label is None:
        if len(options_in(str(raw_vote))) > 1:
            return Parsed(None, "multiple_options", str(raw_vote)[:80], obj)
        return Parsed(None, "no_option", f"vote={str(raw_vote)[:60]!r}", obj)
    return Parsed(label, None, payload=obj)


def _json_vote_word(vote: str, lex: Lexicon) -> str | None:
    """A JSON vote value in another language: the schema's word, an English synonym or the language's."""
    word = " ".join(vote.split()).lower()
    label = _VOTE_SYNONYMS.get(word) or vote_word_label(word, lex)
    return label or next((v for v, w in lex.vote_whole.items() if re.fullmatch(w, word, re.I)), None)


def vote_word_label(word: str, lex: Lexicon) -> str | None:
    """The vote one option word of ``lex`` stands for ("contre" -> against), or None."""
    for label in VOTES:
        if re.fullmatch(lex.option(label), word.strip(), re.IGNORECASE):
            return label
    return None


def _vote_options_in(text: str, lex: Lexicon) -> set[str]:
    """The votes whose words appear in ``text``: the language's option words, or the schema's own."""
    found = {label for label in VOTES if re.search(lex.option(label), text, re.IGNORECASE)}
    return found | {label for label in VOTES if re.search(rf"\b{label}\b", text, re.IGNORECASE)}


def _parse_vote_in(text: str, lex: Lexicon) -> Parsed:
    """:func:`parse_vote` in another language: the JSON's value may be the schema's word ("against"), an
    English synonym or the language's ("contre", "воздержание"); free text needs a labelled vote."""
    text = lex.normalize(text)
    option = lex.option()
    if re.search(rf"{option}\s*[|/]\s*{option}\s*[|/]\s*{option}", text, re.IGNORECASE):
        return Parsed(None, "template_echo", text[:80])
    obj = json_object(text)
    if obj is not None:
        return _json_vote(
            obj,
            label_of=lambda vote: _json_vote_word(vote, lex),
            options_in=lambda v: _vote_options_in(v, lex),
        )
    reason = degenerate_reason(text, language=lex.language)
    if reason:
        return Parsed(None, reason, text[:80])
    # "Vote : contre", "Голосование: против" — not "Vote : pour la paix" (a preposition)
    end = rf"(?=[\s*_\"']*(?:$|{CLAUSE_PUNCT}|\s*{lex.vote_object}))"
    match = re.search(
        rf"{lex.words(lex.vote_cue)}\s*[:=：]\s*\**\s*(?P<option>{option}){end}", text, re.IGNORECASE
    )
    if match:
        return Parsed(vote_word_label(match.group("option"), lex), None)
    if len(_vote_options_in(text, lex)) > 1:
        return Parsed(None, "multiple_options", text[:80])
    return Parsed(None, "no_option", text[:80])
