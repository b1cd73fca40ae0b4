"""Label a vote answer: the structured set's JSON strictly, the paper set's free text by rules + judge.

The free-text rules accept only an explicit vote: a labelled line ("Vote: against"), a first-person
vote ("I vote in favour", "we would abstain"), "my vote is …", "the best option is …", or a first
line that is the option alone ("**Favour**"). Two different votes, or a mere mention of an option
("Russia has favoured ceasefires"), are left to the optional judge; without one they are invalid
with their reason. A truncated answer is invalid whatever it says.
"""

from __future__ import annotations

import re
from typing import Any

from graphs.labels import JUDGE_INVALID, LabelDecision
from graphs.parsing import degenerate_reason, json_object, parse_vote, truncated_reason
from stores.domain import VOTES

_OPTION = r"(?P<option>in\s+favou?r|favou?r|against|abstention|abstain(?:s|ed|ing)?)\b"
_LEAD = r"[\s*_\"'“”`]*"
_EXPLICIT = (
    # "Vote: against", "**Final vote** – favour", "Decision: Abstention", "My answer: in favour"
    re.compile(
        rf"(?im)^{_LEAD}(?:my\s+|our\s+|final\s+)*(?:vote|decision|answer|choice|option){_LEAD}"
        rf"(?:is|would\s+be|will\s+be)?{_LEAD}[:=\-–—]{_LEAD}(?:to\s+)?(?:vote\s+)?{_OPTION}"
    ),
    # "I vote in favour", "we would vote against", "I will abstain", "I choose to abstain"
    re.compile(
        rf"(?i)\b(?:I|we)\s+(?:(?:would|will|shall|must|should|hereby|therefore|thus)\s+)*"
        rf"(?:(?:choose|decide|opt|have\s+decided)\s+to\s+)?(?:cast\s+(?:a|my|our)\s+vote\s+|vote\s+)?{_OPTION}"
    ),
    # "I choose abstention", "we select 'against'"
    re.compile(rf"(?i)\b(?:I|we)\s+(?:would\s+|will\s+)?(?:choose|select|opt\s+for|pick){_LEAD}{_OPTION}"),
    # "my vote is in favour", "the best option is: abstention", "our decision would be against"
    re.compile(
        rf"(?i)\b(?:my|our|the\s+best|the\s+chosen)\s+(?:final\s+)?(?:vote|option|choice|decision)\s+"
        rf"(?:is|would\s+be|will\s+be){_LEAD}:?{_LEAD}(?:to\s+)?(?:vote\s+)?{_OPTION}"
    ),
)
_ALONE = re.compile(rf"(?i)^{_LEAD}{_OPTION}{_LEAD}[.!]?{_LEAD}$")


def _label(option: str) -> str:
    word = " ".join(option.lower().split())
    if word.startswith("abstain") or word == "abstention":
        return "abstention"
    return "against" if word == "against" else "favour"


def label_vote_text(text: str | None) -> LabelDecision:
    """A free-text vote: an explicit choice, or undecided (the judge may read it), or invalid."""
    if text is None or not text.strip():
        return LabelDecision(None, "empty")
    if json_object(text) is not None:  # a model that answers JSON anyway is read as JSON
        parsed = parse_vote(text)
        return LabelDecision(parsed.value, "json") if parsed.ok else LabelDecision(None, parsed.reason or "")
    degenerate = degenerate_reason(text)
    if degenerate in ("repetition_loop", "other_language"):
        return LabelDecision(None, degenerate)
    if re.search(r"favou?r\s*[|/,]\s*against\s*(?:[|/,]|or)\s*abstention\W*$", text.strip(), re.I):
        return LabelDecision(None, "template_echo")
    chosen = {_label(m.group("option")) for pattern in _EXPLICIT for m in pattern.finditer(text)}
    first_line = next((line for line in text.splitlines() if line.strip()), "")
    if alone := _ALONE.match(first_line):
        chosen.add(_label(alone.group("option")))
    if len(chosen) == 1:
        return LabelDecision(chosen.pop(), "explicit_vote")
    if len(chosen) > 1:
        return LabelDecision(None, "multiple_options", final=False)
    if degenerate == "refusal":
        return LabelDecision(None, "refusal")
    return LabelDecision(None, "no_option", final=False)


def vote_rules(answer: str | None, *, truncated: bool, free_text: bool) -> LabelDecision:
    """The rules' verdict on one vote answer; the structured set's invalid answers are final."""
    if truncated:
        return LabelDecision(None, truncated_reason(answer))
    if free_text:
        return label_vote_text(answer)
    parsed = parse_vote(answer)
    return LabelDecision(parsed.value, "json") if parsed.ok else LabelDecision(None, parsed.reason or "")


def vote_judge_schema() -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"vote": {"type": "string", "enum": [*VOTES, "none"]}},
        "required": ["vote"],
        "additionalProperties": False,
    }


def parse_judge_vote(raw: str | None) -> LabelDecision:
    """The judge's {"vote": favour|against|abstention|none}; "none" is ``no_option``."""
    obj = json_object(raw or "")
    value = obj.get("vote") if obj is not None else (raw or "").strip().strip("\"'`. ")
    if isinstance(value, str):
        word = value.strip().lower()
        if word in VOTES:
            return LabelDecision(word, "judge")
        if word == "none":
            return LabelDecision(None, "no_option")
    return LabelDecision(None, JUDGE_INVALID)
