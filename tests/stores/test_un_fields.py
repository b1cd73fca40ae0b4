"""The augmented fields and retrieval texts drawn from the UN's own texts (stores/corpora/un_fields.py)."""

from __future__ import annotations

from nationbias.retrievers.text import record_text
from nationbias.stores.corpora.augment import offline_augment
from nationbias.stores.corpora.corpus import Corpus
from nationbias.stores.corpora.offline_fields import topic_keyword
from nationbias.stores.corpora.un_fields import (
    build_phrase_table,
    clipped,
    extract_key_phrases,
    key_phrases,
    operative_first,
    phrase_table,
    text_key,
    un_operative_text,
    un_text_of,
)
from nationbias.stores.corpora.un_texts import un_texts
from nationbias.stores.guard.leak import context_for_prompt, find_outcome_language


def test_the_packaged_phrase_table_is_what_yake_draws_from_the_current_texts(corpus: Corpus) -> None:
    """Every corpus item with a UN text is in the table, and a sample re-drawn by YAKE is equal."""
    with_text = [r for r in corpus.records if un_operative_text(r) is not None]
    assert len(with_text) >= 690
    table = phrase_table()
    assert {text_key(un_operative_text(r) or "") for r in with_text} <= table.keys()
    sample = with_text[::70]
    assert build_phrase_table(sample) == {
        text_key(t): list(table[text_key(t)]) for r in sample if (t := un_operative_text(r))
    }


def test_a_text_outside_the_table_is_drawn_by_yake() -> None:
    text = "1. Decides to establish a panel on desert locust swarms and their control.\n2. Requests reports."
    assert text_key(text) not in phrase_table()
    assert key_phrases(text) == extract_key_phrases(text)
    assert any("locust" in phrase for phrase in key_phrases(text))


def test_operative_paragraphs_come_first_and_the_opening_line_goes(corpus: Corpus) -> None:
    un = un_texts("en")["S/2024/302"]
    text = operative_first(un)
    assert text.startswith("1. Urges that all Member States")
    assert "The Security Council," not in text.splitlines()
    assert clipped(text, limit=100).startswith("1. Urges") and len(clipped(text, limit=1000)) <= 1000


def test_fields_of_a_draft_with_a_un_text_come_from_what_it_says(corpus: Corpus) -> None:
    record = corpus.get("S/2024/302")  # weapons in outer space; agenda item "Non-proliferation"
    fields = offline_augment(record)
    assert "outer space" in fields.keywords and "outer space treaty" in fields.keywords
    assert not {"decides remain", "seized matter"} & set(key_phrases(un_operative_text(record) or ""))
    assert "non-proliferation" not in " ".join(fields.keywords[1:]).casefold()  # only the topic tag
    assert fields.summary.startswith("On Non-proliferation. 1. Urges that all Member States")
    assert "outer space" in record_text(record)


def test_target_nations_are_the_parties_the_operative_paragraphs_name(corpus: Corpus) -> None:
    fields = offline_augment(corpus.get("S/2023/773"))
    assert fields.target_nations[:2] == ["Israel", "Palestine"]
    assert fields.region == "Middle East"


def test_an_item_without_a_un_text_keeps_its_current_sources(corpus: Corpus) -> None:
    record = next(r for r in corpus.drafts if un_text_of(r) is None and r.context is not None)
    assert un_operative_text(record) is None
    assert record_text(record).endswith(context_for_prompt(record).text)
    assert offline_augment(record).keywords[0] == topic_keyword(record)


def test_no_field_drawn_from_a_un_text_tells_an_outcome(corpus: Corpus) -> None:
    leaks = []
    for record in corpus.records:
        text = un_operative_text(record)
        if text is None:
            continue
        fields = offline_augment(record)
        said = "\n".join([text, fields.summary, fields.action_items, " ".join(fields.keywords)])
        if find_outcome_language(said, record=record):
            leaks.append(record.id)
    assert leaks == []
