"""What the text strategies see of a record: the UN's own text where it exists, else the prompt-safe
text; never the press excerpt."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence

from nationbias.stores.corpora.corpus import context_for_prompt
from nationbias.stores.corpora.un_fields import un_operative_text, un_subject
from nationbias.stores.guard.leak import fallback_text
from nationbias.stores.records import Record

# A compact English stop list: enough to stop BM25 matching on function words; no NLTK download needed.
# "draft" too: the prompt voice (stores/guard/neutral.py) names every text "the draft", so it tells no
# subject.
_STOPWORD_TEXT = """
    a about above after again against all also am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further had has have
    having he her here hers herself him himself his how i if in into is it its itself just me more most my
    myself no nor not now of off on once only or other our ours ourselves out over own same she should so
    some such than that the their theirs them themselves then there these they this those through to too
    under until up upon very was we were what when where which while who whom why will with would you your
    yours yourself yourselves shall may might must within without among per via
    draft"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())
_FIELD_LABEL = re.compile(r"^(?:title|agenda item|topic):", re.MULTILINE)
_WORD = re.compile(r"[a-z0-9]+(?:['-][a-z0-9]+)*")


def record_text(record: Record) -> str:
    """The item's text: the UN's own (operative paragraphs first) where it exists, else the prompt-safe
    context; after the leak-guarded title / agenda / topic (the fallback already is that).

    Raw titles are not used: an adopted item's title carries its resolution number, which reveals the outcome.
    """
    un_text = un_operative_text(record)
    context = context_for_prompt(record)
    if un_text is None and context.kind == "fallback":
        return context.text
    # A UN text opens with what it is about (the states its operative paragraphs name, its key
    # phrases), so MiniLM's first 256 tokens hold the subject, not only a first "Decides …".
    body = context.text if un_text is None else f"{un_subject(record)}\n{un_text}"
    header = fallback_text(record)
    return body if header == "(no description available)" else f"{header}\n{body}"


# BM25F-style field weight: the subject line is indexed this many times beyond the body text, so a
# shared agenda item or named state outweighs the boilerplate every UN text shares ("Decides to …").
SUBJECT_REPEATS = 2


def subject_line(record: Record) -> str:
    """What the item is about, in a few words: its leak-guarded agenda item and topic, and where it
    has a UN text, the states that text names and its key phrases. Empty when none is known."""
    lines = [
        line for line in fallback_text(record).splitlines() if line.startswith(("Agenda item:", "Topic:"))
    ]
    if un_operative_text(record) is not None:
        lines.append(un_subject(record))
    return "\n".join(line for line in lines if line)


def bm25_text(record: Record) -> str:
    """What BM25 indexes and queries with: :func:`record_text`, then the subject line
    :data:`SUBJECT_REPEATS` more times. Measured on the corpus (``retrievers/quality.py``), the failed
    drafts whose top adopted precedent is on their agenda item went from 50 to 53 of 66."""
    subject = subject_line(record)
    body = record_text(record)
    return body if not subject else "\n".join([body, *[subject] * SUBJECT_REPEATS])


def prompt_safe_text(record: Record) -> str:
    """The prompt-safe context after the leak-guarded title / agenda / topic, never the UN's text."""
    context = context_for_prompt(record)
    if context.kind == "fallback":
        return context.text
    header = fallback_text(record)
    return context.text if header == "(no description available)" else f"{header}\n{context.text}"


def dense_text(record: Record) -> str:
    """What MiniLM embeds: :func:`prompt_safe_text`, not the UN's text. Measured on the corpus
    (``retrievers/quality.py``), MiniLM over the UN's texts put fewer failed drafts' top adopted
    precedents on their agenda item (41-42 of 66, three ways of cutting the text) than over the press
    descriptions and titles (45): all UN texts share one style ("Decides to extend …"), and a
    press-described draft is then matched by style, not subject."""
    return prompt_safe_text(record)


def dense_subject_text(record: Record) -> str:
    """What MiniLM embeds as the item's second vector: its :func:`subject_line`, else (none known) its
    :func:`dense_text`. Scored by the better of the two cosines, a shared subject is found even where
    the texts differ in style (a UN text against a press description)."""
    return subject_line(record) or dense_text(record)


def tokenize(text: str) -> list[str]:
    """Lower-case words without stopwords, one-character tokens or the fallback's field labels
    ("Title:", "Topic:"): two texts known only by their titles share those, not a subject."""
    text = _FIELD_LABEL.sub(" ", text.lower())
    return [word for word in _WORD.findall(text) if len(word) > 1 and word not in STOPWORDS]


def pool_fingerprint(
    pool: Sequence[Record], *, with_text: bool = True, text: Callable[[Record], str] = record_text
) -> str:
    """A short stable hash of the pool's ids (and their ``text``): names caches and collections."""
    digest = hashlib.sha256()
    for record in pool:
        digest.update(record.id.encode())
        digest.update(b"\x1f")
        if with_text:
            digest.update(text(record).encode())
        digest.update(b"\x1e")
    return digest.hexdigest()[:16]
