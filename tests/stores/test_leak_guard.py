"""The leak guard over every prompt the corpus can produce: no outcome language ever gets through."""

from __future__ import annotations

import pytest

from nationbias.stores.corpora.corpus import Corpus, context_for_prompt
from nationbias.stores.guard.leak import (
    find_outcome_language,
    split_sentences,
    strip_outcome_sentences,
    title_description,
)
from nationbias.stores.guard.neutral import title_as_description
from nationbias.stores.records import Record


def _pool(corpus: Corpus) -> list[Record]:
    return corpus.drafts + corpus.adopted


def test_no_prompt_text_carries_outcome_language(corpus: Corpus) -> None:
    records = _pool(corpus)
    assert len(records) == 66 + 679
    leaks = {}
    for record in records:
        ctx = context_for_prompt(record)
        assert ctx.text.strip() and ctx.kind in ("context", "draft_text", "fallback")
        hits = find_outcome_language(ctx.text, record=record)
        if hits:
            leaks[record.id] = [(h.label, h.match) for h in hits]
    assert leaks == {}


def test_prompt_text_never_comes_from_the_press_excerpt(corpus: Corpus) -> None:
    for record in _pool(corpus):
        if record.press_excerpt is None:
            continue
        ctx = context_for_prompt(record)
        own = " ".join(
            filter(
                None,
                [
                    record.context.text if record.context else "",
                    record.draft_text.text if record.draft_text else "",
                    record.title or "",
                    record.agenda_item or "",
                    record.topic or "",
                ],
            )
        )
        flat = " ".join(own.split())
        rewrites = {c.rewritten: c.original for c in ctx.changes if c.rewritten is not None}
        if record.title:  # a title is said as a draft would ("The draft would extend …")
            said = title_as_description(title_description(record.title))
            rewrites.update({s: record.title for s in split_sentences(said)})
        for change in ctx.changes:  # every change is traceable to the record's own text
            assert " ".join(change.original.split()) in flat, (record.id, change.original)
        for line in ctx.text.splitlines():
            for sentence in split_sentences(line.split(": ", 1)[-1] if ctx.kind == "fallback" else line):
                known = " ".join(sentence.split()) in flat or sentence in rewrites
                assert known or sentence == "(no description available)", (record.id, sentence)


def test_draft_text_that_opens_with_the_outcome_is_stripped_sentence_by_sentence(corpus: Corpus) -> None:
    record = corpus.get("S/2024/312")
    raw = record.draft_text.text if record.draft_text else ""
    assert "The vote was 12-1-2." in raw
    text, removed = strip_outcome_sentences(raw, record=record)
    assert removed >= 3
    assert "12-1-2" not in text and "veto" not in text.lower() and "abstained" not in text
    assert "Having examined the application" in text or "The Security Council" in text


def test_contexts_with_a_counterfactual_are_rewritten_with_the_original_kept(corpus: Corpus) -> None:
    s2015 = context_for_prompt(corpus.get("S/2015/562"))
    assert s2015.kind == "context" and s2015.removed_sentences == 0 and "Had it passed" not in s2015.text
    assert s2015.text.startswith("The Council, under Chapter VII of the United Nations Charter, would adopt")
    first = s2015.changes[0]
    assert first.original.startswith("Had it passed, the Council") and "would have adopted" in first.original
    assert first.rewritten is not None and first.rewritten in s2015.text
    assert first.reasons == ("if-adopted clause", "counterfactual tense")
    # "Had the draft been adopted, it would have extended …" keeps its provision, in the draft's voice
    s2017 = context_for_prompt(corpus.get("S/2017/962"))
    assert s2017.kind == "context"
    assert s2017.text.startswith("The draft would extend the Mechanism")


def test_adopted_fallback_hides_the_resolution_number(corpus: Corpus) -> None:
    fallbacks = [r for r in corpus.adopted if r.title and context_for_prompt(r).kind == "fallback"]
    assert fallbacks
    for record in fallbacks:
        number = (record.resolution or "").split(" ")[0]
        assert f"resolution {number}" not in context_for_prompt(record).text


def test_kind_counts_are_reported_for_the_drafts(corpus: Corpus) -> None:
    kinds = [context_for_prompt(r).kind for r in corpus.drafts]
    assert kinds.count("context") >= 50 and kinds.count("draft_text") + kinds.count("fallback") <= 16


@pytest.mark.parametrize(
    "sentence",
    [
        "The draft received 11 votes in favour to 1 against, with 3 abstentions.",
        "The vote was 12-1-2.",
        "The Russian Federation vetoed the draft.",
        "China and Russia voted in favour.",
        "The United Kingdom and Switzerland abstained.",
        "The Council failed to adopt the draft resolution.",
        "The resolution was adopted unanimously.",
        "Security Council Adopts Resolution 2122 (2013), Aiming to Strengthen Women's Role.",
        "Had it passed, the Council would have demanded a ceasefire.",
        "Favour (4): China, Gabon, Russian Federation, United Arab Emirates",
        "Against: United Kingdom, United States",
        # the press's counterfactual: only a text that was not adopted is described this way
        "The Council would have called on all States to cooperate with the investigation.",
        "If adopted, the resolution would demand a ceasefire.",
        "The text would also have urged the immediate implementation of a cessation of hostilities.",
    ],
)
def test_checker_flags_outcome_language(sentence: str) -> None:
    assert find_outcome_language(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "Requests the Secretary-General to report within 90 days of the adoption of this resolution.",
        "Demands that all parties allow safe and unhindered humanitarian access.",
        "The Council would call on all States to cooperate with the investigation.",
        "Decides to extend the mandate of the Mission until 31 May 2025.",
    ],
)
def test_checker_leaves_ordinary_draft_language(sentence: str) -> None:
    assert find_outcome_language(sentence) == []
