"""The leak audit checked sentence by sentence (docs/mutation.md): each flagged sentence and what
gave it away is worked out by hand, so a rule that stops matching, or a sentence cut in the wrong
place, fails here."""

from __future__ import annotations

import datetime as dt

from nationbias.stores.leak import (
    fallback_text,
    find_outcome_language,
    split_sentences,
    strip_outcome_sentences,
    title_description,
)
from nationbias.stores.neutral import title_as_description
from nationbias.stores.records import Record, Tally


def _record(**fields: object) -> Record:
    base: dict[str, object] = {
        "id": "S/2099/1",
        "kind": "draft",
        "adopted": False,
        "date": dt.date(2099, 1, 1),
        "tally": Tally(yes=9, no=1, abstain=5),
        "votes": {},
    }
    return Record.model_validate(base | fields)


def test_each_sentence_is_flagged_once_with_its_first_rule() -> None:
    text = "The draft would extend the mandate. It was vetoed by one member.\nThe vote was 12-1-2. Aid flows."
    assert split_sentences(text) == [
        "The draft would extend the mandate.",
        "It was vetoed by one member.",
        "The vote was 12-1-2.",
        "Aid flows.",
    ]
    hits = [(h.label, h.match, h.sentence) for h in find_outcome_language(text)]
    assert hits == [
        ("veto", "vetoed", "It was vetoed by one member."),
        ("tally", "12-1-2", "The vote was 12-1-2."),
    ]


def test_an_items_own_resolution_number_gives_its_adoption_away() -> None:
    adopted = _record(adopted=True, resolution=" 2334 (2016)")
    text = (
        "It recalls RESOLUTION 2334 on settlements. It recalls resolution 23345. It recalls resolution 2335."
    )
    hits = [(h.label, h.match) for h in find_outcome_language(text, record=adopted)]
    assert hits == [("resolution number", "RESOLUTION 2334")]
    # an outcome rule that matches first is the one reported, once per sentence
    both = find_outcome_language("Resolution 2334 was adopted unanimously.", record=adopted)
    assert [(h.label, h.match) for h in both] == [("adopted", "was adopted")]
    # without the record, or for an item with no resolution number (or none that starts with digits)
    assert find_outcome_language(text) == []
    assert find_outcome_language(text, record=_record()) == []
    assert find_outcome_language(text, record=_record(resolution="A/RES/2334")) == []


def test_outcome_sentences_are_removed_whole_and_counted() -> None:
    text = (
        "The text is fine. It was vetoed by one member. It was vetoed by one member.\n"
        "The vote was 12-1-2.\n"
        "Aid would flow. Talks would resume."
    )
    assert strip_outcome_sentences(text) == ("The text is fine.\nAid would flow. Talks would resume.", 3)
    record = _record(adopted=True, resolution="2334 (2016)")
    assert strip_outcome_sentences("It recalls resolution 2334. Aid would flow.", record=record) == (
        "Aid would flow.",
        1,
    )
    assert strip_outcome_sentences("Nothing to see.\n\nStill nothing.") == (
        "Nothing to see.\nStill nothing.",
        0,
    )


def test_a_titles_resolution_number_never_reaches_the_fallback() -> None:
    assert (
        title_description("Draft resolution [ on the situation in Syria ] (S/2099/1)")
        == "on the situation in Syria"
    )
    assert (
        title_description("Security Council resolution 2334 (2016) on settlements")
        == "Security Council  on settlements"
    )
    record = _record(
        title="Draft resolution [on the situation in Syria]",
        agenda_item="The situation in the Middle East",
        topic="Syria",
    )
    said = title_as_description("on the situation in Syria")
    assert fallback_text(record) == f"{said}\nAgenda item: The situation in the Middle East\nTopic: Syria"
    assert fallback_text(_record(topic="Syria")) == "Topic: Syria"
    assert fallback_text(_record(agenda_item="Items vetoed in 2099")) == "(no description available)"
    assert fallback_text(_record()) == "(no description available)"


def test_the_fallback_drops_a_line_that_names_the_items_own_resolution() -> None:
    record = _record(
        adopted=True,
        resolution="2334 (2016)",
        agenda_item="Follow-up to resolution 2334",
        topic="Settlements",
    )
    assert fallback_text(record) == "Topic: Settlements"


def test_an_abbreviation_does_not_end_a_sentence() -> None:
    text = (
        "It extends until Aug. 31, 2019 the mandate. Mr. Feltman spoke. "
        "The U.N. Security Council met at 3 p.m. "
        "Then Koffi A. Afande (Togo) spoke, e.g. on aid. Talks resume."
    )
    assert split_sentences(text) == [
        "It extends until Aug. 31, 2019 the mandate.",
        "Mr. Feltman spoke.",
        "The U.N. Security Council met at 3 p.m.",
        "Then Koffi A. Afande (Togo) spoke, e.g. on aid.",
        "Talks resume.",
    ]
    # joined through an abbreviation, an outcome sentence still goes whole, never a fragment of it
    assert strip_outcome_sentences("Aid flows. It was vetoed on Sept. 5 by one member. Talks resume.") == (
        "Aid flows. Talks resume.",
        1,
    )


def test_no_prompt_text_begins_with_a_date_fragment(corpus) -> None:  # type: ignore[no-untyped-def]
    """S/2018/785 read "…until Sept." and "30, 2019 the mandate…" as two sentences."""
    from nationbias.stores.leak import context_for_prompt

    fragments = [
        (record.id, sentence)
        for record in corpus.records  # the drafts and every precedent a debias prompt may quote
        for sentence in split_sentences(context_for_prompt(record).text)
        if sentence[:1].isdigit() and sentence.split()[0].rstrip(",").isdigit() and "," in sentence[:6]
    ]
    assert fragments == []
