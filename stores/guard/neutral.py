"""Press-release contexts rewritten into the neutral, prospective voice that a draft has.

A press release is written after the vote, so it describes a failed draft in the counterfactual
("If adopted, the resolution would have demanded…") and in the press's own voice ("according to a
copy obtained by Reuters", "presented by …"). Both give the outcome away: the counterfactual alone
separates drafts from adopted items. :func:`neutralise_sentence` turns "would have demanded" into
"would demand" (verb forms from ``lemminflect``, not a hand-written table), drops the if-adopted
clause and the reporting frame, and says which rules it applied so every change can be audited.
A draft's own text needs no rewriting, only freeing from its page: :mod:`nationbias.stores.guard.draft_text`.
"""

from __future__ import annotations

import re
from functools import lru_cache

from lemminflect import getAllInflections, getAllLemmas

from nationbias.stores.guard.content_kept import lost_tokens
from nationbias.stores.guard.language import is_english

_ADVERB = r"(?:also|further|thereby|then|thus|furthermore|\w+ly)"
_WORD = r"[A-Za-z][\w’'‑-]*"

# "would [also] have [also|, among other terms,] <past participle>"
_WOULD_HAVE = re.compile(
    rf"\b(?P<would>[Ww]ould)(?P<pre>(?:\s+{_ADVERB})*)\s+have"
    rf"(?P<mid>(?:\s+{_ADVERB})*|\s*,[^,.;]{{1,40}},)\s+(?P<verb>{_WORD})"
)
# "The resolution had also proposed": a past perfect whose subject is the text itself
_HAD = re.compile(
    rf"\b(?P<subject>(?:[Tt]he )?(?:resolution|draft|text|draft resolution))\s+had"
    rf"(?P<mid>(?:\s+{_ADVERB})*)\s+(?P<verb>{_WORD})"
)
# a verb joined to one just rewritten: "would have condemned … and urged it to"
_COORDINATED = re.compile(
    rf"(?P<join>(?:\b(?:and|or|as well as|while)|;)\s+(?:{_ADVERB}\s+)*)(?P<verb>{_WORD})"
    r"(?P<next>\s+(?:the|that|a|an|all|any|its|their|it|them|to|for|on|upon|with|in|against|over|"
    r"[A-Z]\w*)\b)"
)

# (pattern, replacement, reason); applied in order, each a rule a reader can look up here
_FRAMES: tuple[tuple[re.Pattern[str], str, str], ...] = tuple(
    (re.compile(p, re.IGNORECASE if flags else 0), r, why)
    for p, r, why, flags in (
        (
            r"^\s*(?:If adopted|Had (?:it|the [^,]{1,60}?) (?:been )?(?:adopted|passed)|"
            r"If (?:it|the [^,]{1,60}?) had (?:been )?(?:adopted|passed)),\s*",
            "",
            "if-adopted clause",
            True,
        ),
        (r",\s*if (?:it had been )?adopted,", "", "if-adopted clause", True),
        (  # "Had the United States-proposed text been adopted, it would …": who proposed it is kept
            r"^(?:Had|If) the (?P<qual>[A-Z][^,]{0,60}?) (?:text|draft(?: resolution)?|resolution) "
            r"(?:had )?been (?:adopted|passed),\s*(?:it|the (?:text|draft|resolution))\b",
            r"The \g<qual> draft",
            "if-adopted clause",
            False,
        ),
        (  # the outlet is kept: a rewrite keeps every name of the sentence (stores/guard/content_kept.py)
            r",?\s*according to (?:a|the) (?:copy|draft|text|version)\b[^,.;]*?\b(?:obtained|seen) by "
            r"(?:the )?(?P<who>[A-Z][\w’'‑-]*(?: [A-Z][\w’'‑-]*)*)",
            r", according to \g<who>",
            "reporting frame: who obtained a copy",
            False,
        ),
        (
            r",\s*(?:which|that) (?:was|has been|had been) seen by (?:the )?(?P<who>[A-Z][\w’'‑-]*),?",
            r", according to \g<who>,",
            "reporting frame: who saw a copy",
            False,
        ),
        (
            r"\s*[—–]\s*(?:presented|submitted|tabled|introduced|drafted|proposed|put forward|"
            r"(?:co[‑-])?sponsored) by [^—–]+?\s*[—–]\s*",
            " ",
            "reporting frame: who presented it",
            True,
        ),
        (
            r"^(?:Presented|Tabled|Submitted|Introduced|Drafted|Proposed|Put forward|(?:Co[‑-])?sponsored)"
            r" by [^,]+?(?:\([^)]*\)[^,]*?)?,\s*",
            "",
            "reporting frame: who presented it",
            True,
        ),
        (
            r"\s+(?:was\s+)?(?:presented|submitted|tabled|introduced|drafted|proposed|put forward) by "
            rf"(?:the )?{_WORD}(?:(?: and| of)? {_WORD})*?,?\s+which\s+(?=would\b)",
            " ",
            "reporting frame: who presented it",
            False,
        ),
        (
            r"(?:(?<=draft)|(?<=text))(?: resolution)?\s+(?:presented|submitted|tabled|introduced|drafted|"
            r"proposed|put forward) by (?:the )?[A-Z][\w’'‑-]*(?: (?:of |and )?[A-Z][\w’'‑-]*)*",
            "",
            "reporting frame: who presented it",
            False,
        ),
        (
            r"(?<=\bresolution)\s+(?:presented|submitted|tabled|introduced|drafted|proposed) by "
            r"(?:the )?[A-Z][\w’'‑-]*(?: (?:of |and )?[A-Z][\w’'‑-]*)*",
            "",
            "reporting frame: who presented it",
            False,
        ),
        (
            r"\s+(?:tabled|presented|introduced|put forward) (?:today|this (?:morning|afternoon|week))",
            "",
            "reporting frame: when it was tabled",
            False,
        ),
        (
            r",?\s*which was (?:then |later |subsequently )?put to (?:a|the) vote,?",
            "",
            "reporting frame: the vote",
            True,
        ),
        (
            r"^.*?,\s*introducing the (?:draft|text)(?: resolution)?,\s*said (?:that )?"
            r"(?:it|the draft|the text)(?=\s+would\b)",
            "The draft",
            "reporting frame: who introduced it",
            True,
        ),
        (
            r"\s+is a (?:slightly )?(?:revised|amended|new) version of (?:a |the )?previous[^,]*?,"
            r"\s*which\s+",
            " ",
            "reporting frame: earlier versions",
            True,
        ),
        (
            r"^(?:By other terms|By its further terms|Further by its terms|Also by the (?:draft|text)|"
            r"By further terms),\s*",
            "",
            "opening that assumes a removed sentence",
            True,
        ),
    )
)
_FIRST_SUBJECT = (
    (re.compile(r"^(?:It|That draft resolution|This draft resolution)\b"), "The draft"),
    (re.compile(r"^(?:That|This) draft\b"), "The draft"),
    (re.compile(r"^(?:That|This) text\b"), "The draft"),
)
_FIRST_ALSO = re.compile(r"\b(would|[Tt]he draft(?: resolution)?|[Tt]he text)\s+(?:also|further)\s+")


@lru_cache(maxsize=4096)
def base_form(word: str, *, past_only: bool = True) -> str | None:
    """The bare infinitive of a past participle/past tense (``demanded`` → ``demand``), else None."""
    lowered = word.lower()
    for lemma in getAllLemmas(lowered, upos="VERB").get("VERB", ()):
        forms = getAllInflections(lemma, upos="VERB")
        past = set(forms.get("VBN", ())) | set(forms.get("VBD", ()))
        if lowered in past and (not past_only or lowered != lemma or "VBN" in forms):
            return str(lemma)
    return None


def _tense(sentence: str) -> str:
    rewritten_at = -1

    def would(match: re.Match[str]) -> str:
        nonlocal rewritten_at
        verb = base_form(match["verb"])
        if verb is None:
            return match.group(0)
        rewritten_at = match.start()
        mid = match["mid"]
        return f"{match['would']}{match['pre']}{mid} {verb}"

    def had(match: re.Match[str]) -> str:
        nonlocal rewritten_at
        verb = base_form(match["verb"])
        if verb is None:
            return match.group(0)
        rewritten_at = match.start()
        return f"{match['subject']} would{match['mid']} {verb}"

    out = _HAD.sub(had, _WOULD_HAVE.sub(would, sentence))
    return _coordinated(out, rewritten_at)


def _coordinated(out: str, rewritten_at: int) -> str:
    """After a verb made prospective at ``rewritten_at``, the past verbs joined to it too."""
    if rewritten_at < 0:
        return out

    def joined(match: re.Match[str]) -> str:
        word = match["verb"]
        if word[:1].isupper():  # a name ("United Nations"), not a verb joined to the one rewritten
            return match.group(0)
        verb = base_form(word)
        return f"{match['join']}{verb}{match['next']}" if verb and verb != word.lower() else match.group(0)

    head, tail = out[:rewritten_at], out[rewritten_at:]
    return head + _COORDINATED.sub(joined, tail)


# "The Security Council today extended …", "By the text, the Council also called on …": a press
# release's report of what the Council did, in the past tense that only an adopted text gets.
_PAST_CLAUSE = (
    r"(?P<subject>(?:[Tt]he\s+)?(?:U\.?N\.?\s+|United Nations\s+)?(?:15-(?:member|nation)\s+|[Ss]ecurity\s+)?"
    r"[Cc]ouncil|[Ii]t|[Mm]embers|[Tt]he (?:[A-Z][a-z]+ )?(?:text|resolution|draft)|"
    r"[Tt]he (?:15-(?:member|nation) )?(?:organ|body))"
    r"(?P<when>(?:\s+(?:today|yesterday|this (?:morning|afternoon|evening)|on \w+day|last week|unanimously|"
    r"has|had)|\s*,[^,]{1,120},)*)"
    rf"(?P<mid>(?:\s+{_ADVERB})*)\s+(?P<verb>{_WORD})\b(?!\s+by\b)"
)
_PAST_AT_START = re.compile(r"^(?P<intro>)" + _PAST_CLAUSE)  # the sentence's own subject
_PAST = re.compile(r"^(?P<intro>(?:.{0,300}?,\s+)?)" + _PAST_CLAUSE)  # or one after an opening clause
_NOT_PAST = frozenset({"be", "have", "do"})


def _past(sentence: str) -> str:
    # The sentence's own subject first: "The Security Council extended the mandate of X, the body
    # mandated to …" is about what the Council did, not the body (the optional intro, tried
    # first, took the last clause and left "extended" as it was).
    for pattern in (_PAST_AT_START, _PAST):
        match = pattern.match(sentence)
        if match is not None and (rewritten := _past_from(sentence, match)) != sentence:
            return rewritten
    return sentence


def _past_from(sentence: str, match: re.Match[str]) -> str:
    if not match["verb"].endswith(("ed", "ook", "ade", "ew", "ave", "ent", "ut", "et")):
        return sentence
    verb = base_form(match["verb"], past_only=False)
    if verb is None or verb in _NOT_PAST or verb == match["verb"].lower():
        return sentence
    # kept: asides, and a weekday (a fact of the sentence); "has" and time words are not
    asides = "".join(re.findall(r"\s*,[^,]{1,120},|\s+on \w+day\b", match["when"]))
    head = f"{match['intro']}{match['subject']}{asides} would{match['mid']} {verb}"
    return _coordinated(head + sentence[match.end() :], len(match["intro"]))


_ASIDE = re.compile(r"\s*[—–]\s[^—–]+?\s[—–]\s*")


def without_asides(sentence: str, flagged: str) -> str | None:
    """The sentence without the dash-delimited aside that holds ``flagged`` (an aside about an
    earlier text: "— established unanimously by the Council in 2015 —"), or None if there is none."""
    for aside in _ASIDE.finditer(sentence):
        if flagged in aside.group(0):
            return _tidy(sentence[: aside.start()] + " " + sentence[aside.end() :])
    return None


def without_word(sentence: str, flagged: str) -> str | None:
    """The sentence without ``flagged`` when it is an adverb inside a dash-delimited aside about another
    text ("— established unanimously by the Council in 2015 —"), every fact of the aside kept; else None."""
    if not re.fullmatch(r"[a-z]+ly", flagged):
        return None
    for aside in _ASIDE.finditer(sentence):
        if re.search(rf"\b{flagged}\b", aside.group(0)):
            inner = re.sub(rf"\s*\b{flagged}\b", "", aside.group(0), count=1)
            return _tidy(sentence[: aside.start()] + inner + sentence[aside.end() :])
    return None


def _tidy(sentence: str) -> str:
    sentence = re.sub(r"\s{2,}", " ", sentence).strip()
    sentence = re.sub(r"\s+([,;.])", r"\1", sentence)
    return sentence[:1].upper() + sentence[1:] if sentence else sentence


_WEEKDAY = r"(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day"
_MONTH = (
    r"(?:January|February|March|April|May|June|July|August|September|October|November|December"
    r"|(?:Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)\.)"
)
# When the press says the Council acted, in words that are no fact of the draft ("today"). A date or a
# weekday is kept: "on 7 October" may be the date of an attack the draft condemns, and a rewrite keeps
# every date, month and name of the sentence it keeps (stores/guard/content_kept.py).
_WHEN = (
    r"(?:today|yesterday|tonight|earlier today|last (?:week|month)|this (?:morning|afternoon|evening|week))"
)

# A press release's dateline ("UNITED NATIONS, Aug. 5 (Xinhua) --"): not part of the sentence that follows
# it, and dropped whole as the press's furniture (:func:`split_dateline`), never cut out of a sentence.
_DATELINES: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p)
    for p in (
        r"^date \d{4}-\d{2}-\d{2}\s+",
        r"^[A-Z][A-Za-z]+(?:, [A-Z][A-Za-z]+)? \([A-Z]{2,}\)\s*[-—–]\s*",
        rf"^(?:United Nations|UNITED NATIONS|New York|NEW YORK), {_MONTH} \d{{1,2}}\s+(?=[A-Z])",
        r"^(?:[A-Z][A-Za-z.]*(?: [A-Z][A-Za-z.]*)*(?: \[[A-Z]+\])?,\s+)?"
        rf"(?:{_MONTH} \d{{1,2}}|\d{{1,2}} {_MONTH}(?: \d{{4}})?)"
        r"\s*\([A-Za-z][\w /]*\)\s*(?::|[—–-]{1,2})?\s*",  # (Xinhua), (ANI/Xinhua)
        r"^(?:UNITED NATIONS|United Nations|NEW YORK|New York)\s*(?:,[^—–:]{0,60})?\s*[—–:]\s*",
    )
)


def split_dateline(sentence: str) -> tuple[str | None, str]:
    """``(dateline, rest)``: the press datelines at the start of ``sentence`` and what follows them, or
    ``(None, sentence)``."""
    dateline, rest = "", sentence
    while True:  # "date 2021-03-27 UNITED NATIONS, March 26 (Xinhua) —": one after another
        found = next((m for p in _DATELINES if (m := p.match(rest)) and rest[m.end() :].strip()), None)
        if found is None:
            return (dateline.strip() or None), rest
        dateline, rest = f"{dateline} {found.group(0).strip()}", rest[found.end() :]


# The press's frame around a description: time words, how the Council met.
_PRESS_FRAMES: tuple[tuple[re.Pattern[str], str, str], ...] = tuple(
    (re.compile(p), r, why)
    for p, r, why in (
        (r"^[-•▪■]\s+", "", "a list's bullet"),
        (rf"(?:,\s*{_WHEN}\s*,|\s+{_WHEN}\b)", "", "time word: when the Council acted"),
        (r",\s*acting (?:through|under) its [^,]{0,80}procedure[^,]{0,80},", "", "how the Council met"),
        (r"\bin a videoconference(?: meeting\*?)?(?: today)?,?\s*", "", "how the Council met"),
    )
)

# One noun for the text, whatever became of it: "the draft", never "the resolution".
_VOICE: tuple[tuple[re.Pattern[str], str, str], ...] = tuple(
    (re.compile(p), r, "the text named as a draft")
    for p, r in (
        (
            r"^(?:A|The|This|That)(?: new| brief| adopted| proposed| first| second)?(?: draft)?"
            r"(?: UN| United Nations)?(?: Security Council)? (?:resolution|text|document|project)\b(?!\s+\d)",
            "The draft",
        ),
        (r"^(?:The|This|That) draft (?:resolution|text)\b(?!\s+\d)", "The draft"),
        (
            r"\b(?P<prep>[Bb]y|[Tt]hrough|[Uu]nder|[Ii]n|[Ww]ith|[Aa]ccording to|[Oo]f|[Bb]y the terms of|"
            r"[Bb]y terms of) (?:the|this|that|its)(?: \d+-page)? (?:draft )?(?:resolution|text)"
            r"(?=[’']s\b|\b(?!\s+\d))",
            r"\g<prep> the draft",
        ),
        (r"\bthe (?:13-page |new )?draft resolution\b(?!\s+\d)", "the draft"),
        (r"(?<=, )the (?:resolution|text)(?= (?:would|also)\b)", "the draft"),
    )
)
_TEXT_SUBJECT = re.compile(
    rf"^(?P<intro>(?:[^,]{{0,60}},\s+)?)"
    r"(?P<subject>[Tt]he draft(?:,[^,]{1,60},)?|[Ii]t|[Tt]he (?:UN |15-member )?[Cc]ouncil)"
    rf"(?P<mid>(?:\s+{_ADVERB})*)\s+"
    r"(?P<verb>[a-z]+s)\b(?!\s+(?:by|of)\b)"
)


def _third_person(word: str) -> str | None:
    """The bare verb of a present third-person form (``renews`` → ``renew``), else None."""
    for lemma in getAllLemmas(word, upos="VERB").get("VERB", ()):
        if word in getAllInflections(lemma, upos="VERB").get("VBZ", ()) and lemma not in _NOT_PAST:
            return str(lemma)
    return None


def _present(sentence: str) -> str:
    """ "The draft renews …" → "The draft would renew …": the one tense every description gets. A
    verb that opens a sentence is left alone: "Decides to remain seized" is the draft's own text."""
    match = _TEXT_SUBJECT.match(sentence)
    if not match or (verb := _third_person(match["verb"])) is None:
        return sentence
    return f"{match['intro']}{match['subject']} would{match['mid']} {verb}" + sentence[match.end() :]


# Sentences that only an adopted text gets: its adoption, the press's headline.
_ADOPTION = re.compile(
    r"\b(?:Council|body|organ|Council[’']s|its|[Tt]oday[’']s) adoption\b|\badopting[’']s\b|"
    r"\b(?:this|the) (?:text|resolution|draft) adopted\b|"
    r"\badopted (?:text|resolution)s?\b|\badopting (?:two|three|a|the|this|its|resolution)\b|"
    r"\btexts? adopted by\b|\b(?:resolution|text) (?:was |were )?(?:passed|approved)\b|"
    r"\bwith (?:the )?adoption of (?:this|the) (?:text|resolution)\b|\bS/RES/\d|\bUNSCR \d|"
    rf"\badopted (?:on )?{_WEEKDAY}\b|\badopting resolutions?\b",
    re.IGNORECASE,
)
_FRAGMENT_WORDS = 4
_HEADLINE_WORDS = 24


def dropped_because(sentence: str, *, press: bool = True) -> str | None:
    """Why a press sentence goes whole, or None: a headline (a line with no sentence end, such as
    "UN Security Council renews mandate of Iran nuclear monitors"), the text's own adoption, a
    fragment left by a cut, or a sentence not in English (the press copy of another language).
    ``press=False`` (an Assembly roll call's description, a title by nature): no headline rule."""
    stripped = sentence.strip()
    if _ADOPTION.search(stripped):
        return "the text's own adoption"
    words = stripped.split()
    if len(words) < _FRAGMENT_WORDS and stripped.endswith(".") and not stripped[:1].isdigit():
        return 'a fragment ("The U.N.", "UNITED NATIONS, Aug.")'
    if len(words) >= 6 and not is_english(stripped):
        return "not in English"
    ends = stripped.endswith((".", "!", "?", ",", ";", ":", "”", '"', ")", "…", "’"))
    if press and not ends and len(words) <= _HEADLINE_WORDS and " would " not in f" {stripped} ":
        return "a headline"
    if press and stripped.startswith(("Fact Sheet", "FACT SHEET", "Press Release", "Summary transcript")):
        return "a headline"
    return None


def neutralise_sentence(
    sentence: str, *, first: bool = False, press: bool = True
) -> tuple[str, tuple[str, ...]]:
    """The sentence in a draft's voice, and the reasons for each change (empty if none).

    ``first``: the sentence opens the context, so "It would also …" becomes "The draft would …"
    (a context must not begin mid-description). An empty text means the sentence is dropped
    (a headline, or a sentence about the text's own adoption); the reasons say why.
    """
    dropped = dropped_because(sentence, press=press)
    if dropped:
        return "", (dropped,)
    reasons: list[str] = []
    text = sentence

    def keeps(new: str) -> bool:
        """A step is taken only if it keeps every fact of the text (stores/guard/content_kept.py): one that
        would drop a name, a date or a number is skipped, and what it would have fixed stays (the leak
        guard then removes the sentence whole if that was an outcome)."""
        return new != text and not lost_tokens(text, new)

    for pattern, replacement, why in (*_FRAMES, *_PRESS_FRAMES):
        new = _tidy(pattern.sub(replacement, text))
        if pattern.search(text) and keeps(new):
            reasons.append(why)
            text = new
    new = _tense(text)
    if keeps(new):
        reasons.append("counterfactual tense")
        text = new
    new = _past(text)
    if keeps(new):
        reasons.append("past tense of what the Council did")
        text = new
    for pattern, replacement, why in _VOICE:
        new = pattern.sub(replacement, text)
        if keeps(new):
            reasons.append(why)
            text = new
    new = _present(text)
    if keeps(new):
        reasons.append("present tense of what the text does")
        text = new
    if first:
        for pattern, subject in _FIRST_SUBJECT:
            new = pattern.sub(subject, text)
            if keeps(new):
                text = new
                reasons.append("opening that assumes a removed sentence")
                break
        new = _FIRST_ALSO.sub(r"\1 ", text, count=1)
        if keeps(new):
            text = new
            reasons.append("opening that assumes a removed sentence")
    if not reasons:
        return sentence.strip(), ()
    return _tidy(text), tuple(dict.fromkeys(reasons))


# A UN Digital Library title names what a text does as a noun ("on extension of the mandate of …");
# the prompt says it as a draft would, like every other description.
_TITLE_VERBS = {
    "extension": "extend",
    "renewal": "renew",
    "establishment": "establish",
    "authorization": "authorize",
    "implementation": "implement",
    "cessation": "call for the cessation",
    "increase": "increase",
    "deployment": "deploy",
    "appointment": "appoint",
    "modification": "modify",
    "lifting": "lift",
    "termination": "terminate",
    "destruction": "address the destruction",
    "strengthening": "strengthen",
    "prevention": "address the prevention",
    "protection": "address the protection",
}
_TITLE = re.compile(r"^on (?P<head>[a-z]+)(?: of)?\s+(?P<rest>.+)$", re.DOTALL)


def title_as_description(title: str) -> str:
    """ "on extension of the mandate of UNMISS until 30 May 2015" → "The draft would extend the mandate
    of UNMISS until 30 May 2015."; an -ing head is kept as a verb ("on condemning" → "would condemn");
    any other title becomes "The draft would address …"."""
    text = title.strip().rstrip(".")
    clipped = re.search(r"\s*\S*\[\.*\]?$", text)  # the export cuts long titles: "… the Co[...]"
    end = "."
    if clipped:
        text, end = text[: clipped.start()].rstrip(" ,;"), " …"
    match = _TITLE.match(text)
    if match is None:
        return f"The draft would address {text}{end}"
    head, rest = match["head"], match["rest"]
    verb = _TITLE_VERBS.get(head)
    if verb is None and head.endswith("ing"):
        verb = base_form_of_ing(head)
    if verb is None:
        return f"The draft would address {text.removeprefix('on ')}{end}"
    return f"The draft would {verb} {rest}{end}"


def base_form_of_ing(word: str) -> str | None:
    """``condemning`` → ``condemn`` (lemminflect), else None."""
    for lemma in getAllLemmas(word, upos="VERB").get("VERB", ()):
        if word in getAllInflections(lemma, upos="VERB").get("VBG", ()):
            return str(lemma)
    return None
