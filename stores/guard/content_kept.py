"""What a rewrite must keep of a sentence: its facts, whatever becomes of its voice.

The rewriter (:mod:`nationbias.stores.guard.neutral`) may change a sentence's voice ("would have demanded" →
"would demand") or drop a whole sentence for a stated reason; a sentence it keeps holds, counted with
repeats, every token of its source sentence that contains a digit ("2023", "7"), every month name and
every capitalised word that does not start the sentence (names of states, bodies, places). Deleting
"on 7 October" as if it said when the Council acted took the date of an attack out of a draft.
"""

from __future__ import annotations

import re
from collections import Counter

MONTHS = frozenset(
    {
        *("January", "February", "March", "April", "May", "June", "July", "August", "September"),
        *("October", "November", "December", "Jan", "Feb", "Mar", "Apr", "Jun", "Jul", "Aug", "Sep", "Sept"),
        *("Oct", "Nov", "Dec"),
    }
)
_TOKEN = re.compile(r"[^\W_](?:[\w’'.\-/]*[^\W_])?")


def fact_tokens(sentence: str) -> Counter[str]:
    """The tokens of ``sentence`` a rewrite must keep: with a digit, a month name, or capitalised and
    not the sentence's first word."""
    found: Counter[str] = Counter()
    for index, token in enumerate(_TOKEN.findall(sentence)):
        if any(c.isdigit() for c in token) or token in MONTHS or (index > 0 and token[:1].isupper()):
            found[token] += 1
    return found


def lost_tokens(original: str, rewritten: str) -> Counter[str]:
    """The tokens of ``original`` that ``rewritten`` does not hold (with repeats): empty when it kept
    every fact. A token that only moved to the start of the rewrite still counts as kept."""
    kept = Counter(_TOKEN.findall(rewritten))
    return fact_tokens(original) - kept
