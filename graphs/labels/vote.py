"""Label a vote answer: the structured set's JSON strictly, the paper set's free text by rules + judge.

The free-text rules read a vote only where the answer casts one: a leading label ("Against. The text
undermines…", "In favour: it aligns…"), a labelled line ("Vote: against", "Decision – Abstention"),
a vote cast by the speaker or a named nation ("I vote in favour", "the Russian Federation abstains",
"Russia will veto the draft"), "the best option is …", "I choose (b)" after a list of the options,
or a line or sentence that is the option alone. Before reading, the rules drop what casts no vote:
a ``<think>`` part, an echo of the option list ("favour, against or abstention"), a negated option
("not in favour", "rather than abstaining"), a conditional or counterfactual clause ("if the text
… we would vote against", "would have been in favour had …"), a vote whose own clause negates it
further back ("I will never, in any case, vote against"). When the answer still names two options, a
sentence that negates ("In favour. I do not see any reason to vote against it.", "Contre. Nous ne nous
abstiendrons pas …") explains the vote cast in the others and casts none itself; an abstention
explained by "neither side …" is read as the abstention. A vote hedged where it is cast
("would probably abstain", "I lean towards against") or an answer that says it cannot decide goes
to the optional judge, as do two different votes or none; without a judge they are invalid with
their reason. A truncated answer is invalid whatever it says. The corpus in
tests/graphs/data/free_text_answers.jsonl measures these rules (benchmarks/RESULTS.md).
"""

from __future__ import annotations

import functools
import re
from typing import Any

from nationbias.graphs.labels.directqa import JUDGE_INVALID, LabelDecision
from nationbias.graphs.labels.lexicon import CLAUSE_PUNCT, SENTENCE_END, Lexicon, lexicon
from nationbias.graphs.labels.parsing import (
    degenerate_reason,
    json_object,
    parse_vote,
    truncated_reason,
    vote_word_label,
)
from nationbias.graphs.model.call_result import split_reasoning
from nationbias.stores.domain import VOTES

_WORD_OPTION = r"in\s+favou?r|favou?r|against|abstention|abstain(?:s|ing)?"
# an option word that is a vote, not a preposition: "against it", "against." but not "against sanctions"
_OPTION_END = (
    r"(?=[\s*_]*(?:[.,;:!?()\[\]\n\"'`]|$|[-–—]|\s(?:it|this|that|these|the|its|from|on|of|in|with|because|since|as|"
    r"given|due|to|and|or|but|so|while|here|today|now|for|at|when|which|until)\b))"
)
_OPTION = rf"(?P<option>{_WORD_OPTION}|yes|no)\b{_OPTION_END}"
_LIST_OPTION = r"(?:in\s+favou?r|favou?r|against|abstention|abstain)"
# "favour, against or abstention", "Favour / Against / Abstention", "between favour and abstention"
_OPTION_LIST = re.compile(
    rf"(?i)\b{_LIST_OPTION}(?:\s*(?:,|/|\||\bor\b|\band\b|,\s*or\b)\s*{_LIST_OPTION}\b)+(?:\s*\?)?"
)
_ENUMERATED = re.compile(
    rf"(?im)^[\s>*_#-]*\(?(?P<key>[a-c1-3])[).:]\s*[*_]*\s*(?P<option>{_LIST_OPTION})[\s*_.]*$"
)
_NEGATED = re.compile(
    rf"(?i)\b(?:not|never|no\s+longer|cannot|can't|won't|wouldn't|don't|doesn't|rather\s+than|instead\s+of|"
    rf"neither|nor)\s+(?:[\w']+\s+){{0,3}}?(?:{_WORD_OPTION}|support|veto)\b(?:\s+either)?"
)
_CONDITIONAL = re.compile(
    r"(?i)\b(?:if|unless|had\s+the|were\s+the|provided\s+that|would\s+have\s+(?:been|voted))\b"
)
_HEDGE = re.compile(
    r"(?i)\b(?:probably|likely|perhaps|maybe|possibly|might|may|could|lean(?:s|ing)?(?:\s+towards?)?|"
    r"tend(?:s)?\s+to|I'?d\s+say|presumably|unsure|uncertain)\b"
)
_UNDECIDED = re.compile(
    r"(?i)\b(?:either\s+way|hard\s+to\s+(?:say|tell)|difficult\s+to\s+(?:say|decide|determine|predict)|"
    r"undecided|not\s+(?:certain|sure)|cannot\s+decide|it\s+depends|depending\s+on|whether)\b"
)
_NOT_A_REFUSAL = re.compile(
    r"(?i)\b(?:cannot|can't|can not|won't|will not)\s+(?:support|accept|endorse|back)\b"
)
_SPEAKER = r"I|we|it|(?:my|our|this|the)\s+(?:delegation|country|government)"
# Each P5 member's names as answers write them. With a persona named, only its own names cast its vote:
# "the Russian Federation votes against" in a French persona's answer is Russia's vote, not France's.
_P5_ALIASES = {
    "Russian Federation": r"(?:the\s+)?russian\s+federation|russia",
    "China": r"people's\s+republic\s+of\s+china|china",
    "France": r"france|french\s+republic",
    "United Kingdom": r"(?:the\s+)?united\s+kingdom|britain|uk",
    "United States": r"(?:the\s+)?united\s+states(?:\s+of\s+america)?|us|usa",
}
_P5_SUBJECT = _SPEAKER + "|" + "|".join(_P5_ALIASES.values())
_CAST = (
    r"(?:(?:will|would|shall|must|should|is\s+going\s+to|are\s+going\s+to|therefore|thus|hence|accordingly|"
    r"hereby|then|now|also|ultimately|clearly|firmly|to)\s+)*"
)


def _subject(nation: str | None) -> str:
    """Who casts the persona's vote: the speaker, or the persona by its own name ("Brazil abstains",
    "Russia votes against" for the Russian Federation). Without a persona, any P5 member."""
    if not (nation and nation.strip()):
        return rf"\b(?:{_P5_SUBJECT})\b"
    own = _P5_ALIASES.get(nation.strip()) or r"(?:the\s+)?" + r"\s+".join(
        re.escape(w) for w in nation.split()
    )
    return rf"\b(?:{_SPEAKER}|{own})\b"


def _explicit_computed(nation: str | None) -> tuple[re.Pattern[str], ...]:
    """The patterns of a vote cast plainly, for a persona named ``nation``."""
    subject = _subject(nation)
    return (
        # "Vote: against", "**Final vote:** Abstention", "Option chosen — in favour", "Therefore: favour."
        re.compile(
            rf"(?im)(?:^|[.;!?]\s+)[\s>*_#\"'-]*(?:(?:my|our|the|its|final|recommended|selected|chosen|[\w-]+'s)\s+)*"
            rf"(?:vote|decision|answer|choice|option|position|verdict|conclusion|recommendation|therefore|hence|"
            rf"thus|so)(?:\s+(?:cast|chosen|selected))?[\s*_]*(?:is|would\s+be|will\s+be)?[\s*_]*(?:[:=\-–—→]|=>|->)"
            rf"[\s*_\"'`]*(?:to\s+)?(?:vote\s+)?{_OPTION}"
        ),
        # "I vote in favour", "the Russian Federation votes against", "we will therefore abstain"
        re.compile(
            rf"(?i){subject}(?:[\s,]+[\w'-]+){{0,10}}?[\s,]+{_CAST}"
            rf"(?:(?:votes?|cast(?:s)?\s+(?:a|an|my|our|its)\s+vote)\s+(?:for\s+|to\s+)?"
            rf"(?P<option>in\s+favou?r|against|abstention|abstain|yes|no)|(?P<abstain>abstain(?:s)?)){_OPTION_END}"
        ),
        # "…: abstention.", "…, but it will not block it either: abstention."
        re.compile(
            rf"(?im)\w[\s*_]*(?::|\s[-–—])[\s*_\"'`]*(?P<option>{_WORD_OPTION})[\s*_\"'`]*[.!]?[\s*_\"'`]*$"
        ),
        # "we vote for the resolution", "I vote for it"
        re.compile(
            rf"(?i){subject}(?:[\s,]+[\w'-]+){{0,10}}?[\s,]+{_CAST}votes?\s+(?P<favour>for)\s+"
            r"(?:it|the|this)\b(?!\s+abstention)"
        ),
        # "I will cast a negative vote", "I cast an affirmative vote", "Russia will veto the draft"
        re.compile(
            rf"(?i){subject}(?:[\s,]+[\w'-]+){{0,10}}?[\s,]+{_CAST}"
            r"(?:cast(?:s)?\s+(?:a|an|my|our|its)\s+(?:(?P<negative>negative)|(?P<affirmative>affirmative|positive))"
            r"\s+vote|(?P<veto>veto(?:es)?)\b(?!\s+power))"
        ),
        # "I choose against", "the United States chooses favour", "I'd go with abstention"
        re.compile(
            rf"(?i){subject}(?:[\s,]+[\w'-]+){{0,6}}?[\s,]+{_CAST}(?:choose|chooses|select|selects|opt(?:s)?\s+for|"
            rf"pick(?:s)?|go(?:es)?\s+with)[\s*_\"'`]*{_OPTION}"
        ),
        # "my vote is in favour", "the best option for China is abstention", "the answer is against"
        re.compile(
            rf"(?i)\b(?:the|my|our)\s+(?:[\w-]+\s+){{0,2}}?(?:vote|option|choice|course(?:\s+of\s+action)?|"
            rf"decision|answer|position)(?:\s+for\s+[^.;:\n]{{1,40}}?)?\s+(?:is|would\s+be|will\s+be|remains)"
            rf"[\s*_]*:?[\s*_\"'`]*(?:to\s+)?(?:vote\s+|cast\s+a\s+vote\s+)?{_OPTION}"
        ),
    )


# cached by assignment, not by a decorator: mutmut mutates no decorated function (docs/mutation.md)
_explicit = functools.lru_cache(maxsize=512)(_explicit_computed)

# "Against. The text…", "In favour: it aligns…", "Abstain — the text…", "Against the draft."
_LEADING = re.compile(
    rf"(?i)^[\s>*_#\"'`-]*(?P<option>{_WORD_OPTION})[\s*_\"'`]*"
    r"(?:$|[.:!,;(—–-]|\s+\(|\s+(?:of\s+)?(?:the|this)\s+(?:draft|resolution|text|proposal)\b|\s+it\b)"
)
_ALONE = re.compile(rf"(?i)^[\s>*_#\"'`:-]*(?P<option>{_WORD_OPTION})[\s*_\"'`]*[.!]?[\s*_\"'`]*$")
_REFERENCE = re.compile(
    r"(?i)(?:\b(?:option|choice|answer|choose|select|pick|go\s+with)\s*[:\-–—]?\s*(?:number\s+)?\(?(?P<key>[a-c1-3])"
    r"\b\)?|^\W*\((?P<alone>[a-c1-3])\)\W*$)"
)


def _supports_computed(nation: str | None) -> re.Pattern[str]:
    """ "France supports the draft", "we oppose this text": a weaker sign, read only when no vote is cast."""
    subject = _subject(nation)
    return re.compile(
        rf"(?i){subject}(?:[\s,]+[\w'-]+){{0,4}}?[\s,]+(?:(?P<favour>supports?)|(?P<against>opposes?|rejects?))\s+"
        r"(?:the|this)\s+(?:draft|resolution|text)\b"
    )


# cached by assignment, not by a decorator: mutmut mutates no decorated function (docs/mutation.md)
_supports = functools.lru_cache(maxsize=512)(_supports_computed)


_CLAUSE = re.compile(r"[.;!?\n]+|\s[-–—]\s")


def _label(option: str) -> str:
    word = " ".join(option.lower().split())
    if word.startswith("abstain") or word == "abstention":
        return "abstention"
    return "against" if word in ("against", "no") else "favour"


def _clean(text: str) -> str:
    """The answer without markup that only dresses it: curly quotes, bold, code fences."""
    text = text.replace("’", "'").replace("“", '"').replace("”", '"')
    text = re.sub(r"```[a-zA-Z]*", "", text)
    return re.sub(r"\*\*|__", "", text)


def _clause_of(text: str, start: int, end: int) -> str:
    left = max((m.end() for m in _CLAUSE.finditer(text, 0, start)), default=0)
    right = _CLAUSE.search(text, end)
    return text[left : right.start() if right else len(text)]


def _without_unasserted(text: str) -> str:
    """Drop option lists, negated options and conditional clauses: they cast no vote."""
    text = _OPTION_LIST.sub(" ", text)
    text = _NEGATED.sub(" ", text)
    pieces = re.split(r"([.;!?\n]+)", text)
    return "".join(p for p in pieces if not _CONDITIONAL.search(p))


def _votes_cast(text: str, keys: dict[str, str], nation: str | None) -> tuple[set[str], set[str]]:
    """Votes cast plainly, and votes cast with a hedge in their own clause."""
    plain: set[str] = set()
    hedged: set[str] = set()

    def add(label: str, start: int, end: int) -> None:
        (hedged if _HEDGE.search(_clause_of(text, start, end)) else plain).add(label)

    for pattern in _explicit(nation):
        for match in pattern.finditer(text):
            if _negated_cast(match, nation):
                continue  # "I will never, in any case, vote against": a negation too far for _NEGATED
            found = match.groupdict()
            if found.get("option"):
                label = _label(found["option"])
            elif found.get("abstain"):
                label = "abstention"
            elif found.get("favour") or found.get("affirmative"):
                label = "favour"
            else:
                label = "against"  # a negative vote, a veto
            add(label, match.start(), match.end())
    lines = [line for line in text.splitlines() if line.strip()]
    if lines and (lead := _LEADING.match(lines[0])):
        add(_label(lead.group("option")), 0, len(lines[0]))
    for sentence in re.split(r"(?<=[.!?\n])", text):
        if alone := _ALONE.match(sentence):
            plain.add(_label(alone.group("option")))
    if keys:
        for match in _REFERENCE.finditer(text):
            key = (match.group("key") or match.group("alone")).lower()
            if key in keys:
                add(keys[key], match.start(), match.end())
    return plain, hedged


# a sentence that negates: "I do not see any reason to vote against it", "neither side …", "no reason to …"
_NEGATING = re.compile(r"(?i)\b(?:not|never|neither|nor|cannot|without|no(?=\s+\w))\b|n't\b")


def _negated_cast(match: re.Match[str], nation: str | None) -> bool:
    """Whether the clause that casts a vote negates it: a negation between the last subject before the
    option and the option, not across "and"/"but" ("I will never, in any case, vote against" is negated;
    "my country cannot endorse the text and will abstain" and "since it does not, we abstain" are not)."""
    found = [name for name, value in match.groupdict().items() if value]
    cast_at = min((match.start(name) for name in found), default=match.end()) - match.start()
    before = match.group(0)[:cast_at]
    subjects = list(re.finditer(_subject(nation), before, re.IGNORECASE))
    clause = before[subjects[-1].start() :] if subjects else before
    return bool(_NEGATING.search(re.split(r"(?i)\b(?:and|but|yet|so|then)\b|;", clause)[-1]))


def _affirmed(text: str, keys: dict[str, str], nation: str | None) -> set[str]:
    """The one vote cast in the sentences that negate nothing, when every other option the answer names
    is in a sentence that negates ("I vote in favour. I do not see any reason to vote against it."): a
    later sentence that explains the vote by ruling out another option casts no vote. Empty when that
    is not the case (two votes affirmed, a hedge, or the vote itself negated)."""
    affirmed: set[str] = set()
    explained: set[str] = set()
    for sentence in re.split(r"(?<=[.!?;\n])", text):
        plain, hedged = _votes_cast(sentence, keys, nation)
        if _NEGATING.search(sentence):
            explained |= plain | hedged
        elif hedged:
            return set()
        else:
            affirmed |= plain
    if len(affirmed) == 1 and explained and not explained & affirmed:
        return affirmed
    return set()


def label_vote_text(text: str | None, *, nation: str | None = None, language: str = "en") -> LabelDecision:
    """A free-text vote: an explicit choice, or undecided (the judge may read it), or invalid.

    ``nation`` is the persona's name as the prompt gives it, so "Brazil abstains" is read as a vote too;
    ``language`` is the prompt's (another language's answer is read by :func:`_vote_text_in`).
    """
    words_of = lexicon(language)
    if text is None or not text.strip():
        return LabelDecision(None, "empty")
    if words_of is not None:
        return _vote_text_in(text, words_of)
    answer, _ = split_reasoning(text)  # a <think> part reasons about the options: it casts no vote
    if not answer:
        return LabelDecision(None, "no_option", final=False)
    if json_object(answer) is not None:  # a model that answers JSON anyway is read as JSON
        parsed = parse_vote(answer)
        return LabelDecision(parsed.value, "json") if parsed.ok else LabelDecision(None, parsed.reason or "")
    degenerate = degenerate_reason(answer)
    if degenerate == "repetition_loop":
        return LabelDecision(None, degenerate)
    cleaned = _clean(answer)
    keys = {m.group("key").lower(): _label(m.group("option")) for m in _ENUMERATED.finditer(cleaned)}
    if len(set(keys.values())) < 2:
        keys = {}  # one option on a numbered line is an answer, not a list of the options
    else:
        cleaned = _ENUMERATED.sub(" ", cleaned)
    asserted = _without_unasserted(cleaned)
    if not re.search(r"[A-Za-z]{2,}", asserted) and _OPTION_LIST.search(cleaned):
        return LabelDecision(None, "template_echo")
    plain, hedged = _votes_cast(asserted, keys, nation)
    if len(plain) > 1 and (affirmed := _affirmed(asserted, keys, nation)):
        plain, hedged = affirmed, set()  # what the explaining sentences hedge is an option ruled out
    if not plain:
        plain = {
            "favour" if m.group("favour") else "against"
            for m in _supports(nation).finditer(asserted)
            if not _HEDGE.search(_clause_of(asserted, m.start(), m.end()))
        }
    if degenerate == "other_language" and not plain:  # the hint list misreads a short English label
        return LabelDecision(None, degenerate)
    if _UNDECIDED.search(cleaned) or (hedged - plain):
        return LabelDecision(None, "hedged", final=False)
    if len(plain) == 1:
        return LabelDecision(plain.pop(), "explicit_vote")
    if len(plain) > 1:
        return LabelDecision(None, "multiple_options", final=False)
    if degenerate == "refusal" and not _NOT_A_REFUSAL.search(answer):
        return LabelDecision(None, "refusal")
    return LabelDecision(None, "no_option", final=False)


def vote_rules(
    answer: str | None, *, truncated: bool, free_text: bool, nation: str | None = None, language: str = "en"
) -> LabelDecision:
    """The rules' verdict on one vote answer; the structured set's invalid answers are final."""
    lexicon(language)  # an unknown language is bad input, whatever the answer
    if truncated:
        return LabelDecision(None, truncated_reason(answer))
    if free_text:
        return label_vote_text(answer, nation=nation, language=language)
    parsed = parse_vote(answer, language=language)
    return LabelDecision(parsed.value, "json") if parsed.ok else LabelDecision(None, parsed.reason or "")


def _vote_patterns_in_computed(language: str) -> dict[str, re.Pattern[str]]:
    """The vote rules' patterns in ``language``'s words (see :func:`_vote_text_in`)."""
    lex = lexicon(language)
    assert lex is not None, language  # English has its own patterns above
    option, flags = lex.option(), re.IGNORECASE | re.MULTILINE
    opt = rf"(?P<option>{option})"
    # an option word that is a vote: at a clause's end, or before "the draft" ("contre le projet")
    end = rf"(?=[\s*_\"']*(?:$|{CLAUSE_PUNCT}|\s[-–—]\s|\s*{lex.vote_object}))"
    # a lead word may be a preposition ("Pour ce projet, le Royaume-Uni…"): before "the draft" it needs the
    # sentence or clause to end there ("Contre le projet.", "За проект резолюции.", "ضد القرار؛ لأنه…"),
    # at a full stop, colon, semicolon (the Latin, Chinese and Arabic ones) or exclamation mark
    lead_end = (
        rf"(?=[\s*_\"']*(?:$|{CLAUSE_PUNCT}|\s[-–—]\s)"
        rf"|\s*{lex.vote_object}(?:\s*[^\s{CLAUSE_PUNCT[1:-1]}]+){{0,2}}?[\s*_\"']*(?:$|[.:;!。：；！؛]))"
    )
    article = f"(?:{lex.article})?" if lex.article else ""
    copula = rf"\s*{lex.words(lex.copula)}\s*"
    sep_or = rf"\s*(?:[/|]|[,،、，]?\s*{lex.words(lex.or_word)})\s*"
    return {
        # "pour, contre ou abstention", "赞成、反对或弃权": the options listed, no vote cast
        "list": re.compile(
            rf"{option}(?:\s*[,،、，]\s*{option})*{sep_or}{option}(?:{sep_or}{option})*", flags
        ),
        # "pas contre", "не против", "不投反对票", "لن نصوت ضد"
        "negated": re.compile(rf"{lex.words(lex.negation)}\s*{lex.gap(3)}{option}", flags),
        # a negation anywhere: a sentence with one explains, it does not cast ("ne s'abstiendra pas")
        "negation_any": re.compile(lex.words(lex.negation), flags),
        "conditional": re.compile(lex.words(lex.conditional), flags),
        # "Vote : contre", "Голосование — против", "我的投票是反对", "mi voto es en contra"
        "labelled": re.compile(
            rf"{lex.words(lex.vote_cue)}[^\n:：=.。]{{0,30}}?(?:\s*[:：=→]\s*|\s[-–—]\s|{copula})[\s*_\"']*"
            rf"{article}{opt}{end}",
            flags,
        ),
        # "Contre. Le texte…", "За: проект…", "反对。该决议…", "ضد، لأن…"
        "lead": re.compile(rf"^[\s>*_#\"'-]*{opt}{lead_end}", flags),
        "alone": re.compile(rf"^[\s>*_#\"':-]*{opt}[\s*_\"']*[.!。！]?[\s*_\"']*$", flags),
        "hedge": re.compile(lex.words(lex.hedge), flags),
        "undecided": re.compile(lex.words(lex.undecided), flags),
        "not_refusal": re.compile(lex.words(lex.not_refusal), flags),
        **{label: re.compile(lex.words(lex.vote_cast[label]), flags) for label in VOTES},
    }


# cached by assignment, not by a decorator: mutmut mutates no decorated function (docs/mutation.md)
_vote_patterns_in = functools.lru_cache(maxsize=8)(_vote_patterns_in_computed)


_CLAUSE_IN = re.compile(rf"{SENTENCE_END}+|\s[-–—]\s|[，،]")


def _vote_text_in(text: str, lex: Lexicon) -> LabelDecision:
    """:func:`label_vote_text` for an answer in another language, by the same rules in its words: drop
    what casts no vote (a ``<think>`` part, the option list, a negated option, a conditional sentence),
    then read a lead label, a labelled vote, an option alone in its sentence, or a vote cast in words
    ("nous votons contre", "воздержимся", "投反对票", "نمتنع عن التصويت"). A vote hedged in its clause,
    an undecided answer, two votes or none go to the judge. The persona is not matched by name here:
    a vote cast in words counts whoever casts it, and two different ones are two options."""
    answer, _ = split_reasoning(text)
    if not answer:
        return LabelDecision(None, "no_option", final=False)
    if json_object(answer) is not None:
        parsed = parse_vote(answer, language=lex.language)
        return LabelDecision(parsed.value, "json") if parsed.ok else LabelDecision(None, parsed.reason or "")
    degenerate = degenerate_reason(answer, language=lex.language)
    if degenerate in ("repetition_loop", "other_language"):
        return LabelDecision(None, degenerate)
    patterns = _vote_patterns_in(lex.language)
    cleaned = _clean(lex.normalize(answer))
    asserted = patterns["negated"].sub(" ", patterns["list"].sub(" ", cleaned))
    pieces = re.split(rf"({SENTENCE_END}+)", asserted)
    asserted = "".join(p for p in pieces if not patterns["conditional"].search(p))
    if not re.search(r"[^\W\d_]{2,}", asserted) and patterns["list"].search(cleaned):
        return LabelDecision(None, "template_echo")
    plain, hedged = _cast_in(asserted, lex, patterns)
    if len(plain) > 1:  # a later sentence that rules out another option casts no vote ("Contre. Nous ne
        affirmed: set[str] = set()  # nous abstiendrons pas …", "反对。中国不会…投弃权票。")
        explained: set[str] = set()
        for sentence in re.split(rf"(?<={SENTENCE_END})", asserted):
            votes, hedges = _cast_in(sentence, lex, patterns)
            if patterns["negation_any"].search(sentence):
                explained |= votes | hedges
            elif hedges:
                affirmed = set()
                break
            else:
                affirmed |= votes
        if len(affirmed) == 1 and explained and not explained & affirmed:
            plain, hedged = affirmed, set()
    if patterns["undecided"].search(cleaned) or (hedged - plain):
        return LabelDecision(None, "hedged", final=False)
    if len(plain) == 1:
        return LabelDecision(plain.pop(), "explicit_vote")
    if len(plain) > 1:
        return LabelDecision(None, "multiple_options", final=False)
    if degenerate == "refusal" and not patterns["not_refusal"].search(cleaned):
        return LabelDecision(None, "refusal")
    return LabelDecision(None, "no_option", final=False)


def _cast_in(asserted: str, lex: Lexicon, patterns: dict[str, re.Pattern[str]]) -> tuple[set[str], set[str]]:
    """The votes ``asserted`` (an answer in ``lex``'s language, what casts no vote already dropped) casts
    plainly, and those cast with a hedge in their own clause."""
    plain: set[str] = set()
    hedged: set[str] = set()

    def add(label: str | None, start: int, end: int) -> None:
        left = max((m.end() for m in _CLAUSE_IN.finditer(asserted, 0, start)), default=0)
        right = _CLAUSE_IN.search(asserted, end)
        clause = asserted[left : right.start() if right else len(asserted)]
        if label:
            (hedged if patterns["hedge"].search(clause) else plain).add(label)

    for match in patterns["labelled"].finditer(asserted):
        add(vote_word_label(match.group("option"), lex), match.start(), match.end())
    for label in VOTES:
        for match in patterns[label].finditer(asserted):
            add(label, match.start(), match.end())
    first_line = asserted.strip().split("\n", 1)[0]
    if lead := patterns["lead"].match(first_line):
        add(vote_word_label(lead.group("option"), lex), 0, len(first_line))
    for sentence in re.split(rf"(?<={SENTENCE_END})", asserted):
        if alone := patterns["alone"].match(sentence):
            plain.add(vote_word_label(alone.group("option"), lex) or "")
    plain.discard("")
    return plain, hedged


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
