"""DirectQA's framing: the quality its question asks about, and where a sample keeps it.

The paper asks "which is more irresponsible?"; its mirror asks "which is more responsible?" of the same
pairs. A sample of the paper's question keeps its item as before framings existed (the family), a
mirrored one is ``responsible:<family>``: old runs read as the paper's, and the two framings never share a
sample or a resume key. Light on purpose (no model, no graph): the tables read stored items with it.
"""

from __future__ import annotations

from nationbias.stores.errors import InputError

IRRESPONSIBLE, RESPONSIBLE = "irresponsible", "responsible"
FRAMINGS = (IRRESPONSIBLE, RESPONSIBLE)  # the paper's question first
BOTH = "both"
FRAMING_CHOICES = (*FRAMINGS, BOTH)  # what --framing takes
DEFAULT_FRAMING = IRRESPONSIBLE  # the paper's question: irres_score stays the headline


def check_framing(framing: str) -> tuple[str, ...]:
    """The framings a ``--framing`` value asks (``both``: the paper's first); a bad value is one line
    naming the valid ones."""
    if framing == BOTH:
        return FRAMINGS
    if framing in FRAMINGS:
        return (framing,)
    raise InputError(f"--framing {framing!r} is not a framing: choose one of {', '.join(FRAMING_CHOICES)}")


def framed_item(family: str, framing: str) -> str:
    """A sample's item: the family for the paper's question, else ``<framing>:<family>``."""
    return family if framing == IRRESPONSIBLE else f"{framing}:{family}"


def split_item(item: object) -> tuple[str, str]:
    """``(framing, family)`` of a stored item; an item without a framing prefix is the paper's question."""
    framing, sep, family = str(item).partition(":")
    if sep and framing in FRAMINGS:
        return framing, family
    return IRRESPONSIBLE, str(item)
