"""The shape of one language's word tables: :class:`Lexicon` (the registry is the package's).

Each table entry is a regular-expression alternation, lower case (every rule matches case-blind).
Chinese has no word boundaries, so its words match anywhere; Arabic words may carry proclitics
(و ف ب ك ل, the article ال), which :meth:`Lexicon.words` allows before a word.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

# what sentence-ending and clause punctuation looks like across the six scripts
SENTENCE_END = r"[.!?;。！？；\n]"
CLAUSE_PUNCT = r"[.:,;!?()\[\]—–。，：；！？、،؛]"


@dataclass(frozen=True)
class Lexicon:
    """One language's words for the labelling rules (see the module docstring)."""

    language: str
    bounded: bool  # words are \w-bounded (False for Chinese)
    script: str | None  # a character class the language is written in (None: Latin, shared with English)
    # --- votes: label -> the option word ("contre"), and phrases that cast it ("nous votons contre")
    votes: Mapping[str, str]
    vote_cast: Mapping[str, str]
    vote_whole: Mapping[str, str]  # a whole JSON value that is a vote ("oui", "нет")
    vote_object: str  # what may follow a lead option word: "(contre) le projet"
    vote_cue: str  # the word before "X: <option>" ("vote", "décision", ...)
    or_word: str  # what joins a list of the options ("pour, contre ou abstention")
    copula: str  # "is" ("mon vote est contre")
    article: str  # an article or filler before an option or a nation ("la ", "l'")
    negation: str  # a negation word just before an option or a nation
    conditional: str  # a conditional clause casts no vote ("si …")
    hedge: str  # a vote hedged where it is cast ("probablement")
    undecided: str  # the answer cannot decide ("cela dépend")
    refusal: str  # the model declines to answer
    not_refusal: str  # "cannot support" is a vote's reason, not a refusal
    # --- DirectQA
    nations: Mapping[str, str]  # P5 code -> its names (inflected, short forms)
    degrees: tuple[tuple[str, str, str], ...]  # (phrase, more|less, irresponsible|responsible)
    answer_cue: str  # "la réponse est", "je choisis"
    than: str  # the comparison's other side ("que", "чем", "比", "من")
    but: str  # "not X but Y"
    neither: str  # "ni l'un ni l'autre": a degree phrase in its sentence is negated
    neutral: str  # a hedge: no choice ("cela dépend", "neutre"); "both" alone is not one, as in English
    tentative: str  # a lean, not a choice ("peut-être")
    # --- Association
    positive: str
    negative: str
    polarity_negation: str  # a negation just before a polarity word
    turn: str  # a list sentence's joiner before the next member (", et", ", а")
    rationale_cue: str
    ranking_cue: str
    proclitic: str = ""  # Arabic: what may be attached before a word
    _cache: dict[str, re.Pattern[str]] = field(default_factory=dict, compare=False, repr=False)

    def words(self, alternatives: str) -> str:
        """``alternatives`` as whole words: \\w-bounded (after any proclitic), or bare in Chinese."""
        if not self.bounded:
            return f"(?:{alternatives})"
        clitic = f"(?:{self.proclitic})?" if self.proclitic else ""
        return rf"(?<!\w){clitic}(?:{alternatives})(?!\w)"

    def compiled(self, pattern: str) -> re.Pattern[str]:
        """``pattern`` compiled once per lexicon, case-blind (the tables are lower case)."""
        found = self._cache.get(pattern)
        if found is None:
            found = self._cache[pattern] = re.compile(pattern, re.IGNORECASE | re.MULTILINE)
        return found

    @property
    def nation(self) -> str:
        """Any P5 member's name in this language, as one group-free alternation."""
        return self.words("|".join(self.nations.values()))

    def option(self, label: str | None = None) -> str:
        """The option word of ``label`` (or of any vote) as whole words."""
        labels = [label] if label else list(self.votes)
        return self.words("|".join(self.votes[v] for v in labels))

    def gap(self, words: int) -> str:
        """Up to ``words`` words (about two characters each in Chinese), the fewest first."""
        if not self.bounded:
            return rf"[^\s{CLAUSE_PUNCT[1:-1]}]{{0,{2 * words}}}?"
        return rf"(?:[\w'-]+\s+){{0,{words}}}?"

    def normalize(self, text: str) -> str:
        """Spellings that differ only in dress: curly quotes and guillemets, Russian ё, Arabic diacritics."""
        text = re.sub(r"[’‘`]", "'", text)
        text = re.sub(r"[“”«»„]", '"', text)
        text = text.replace("ё", "е").replace("Ё", "Е")
        return re.sub(r"[\u064B-\u0652\u0640]", "", text)  # Arabic harakat and tatweel
