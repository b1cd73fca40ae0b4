"""The leak audit checked sentence by sentence (docs/mutation.md): each flagged sentence and what
gave it away is worked out by hand, so a rule that stops matching, or a sentence cut in the wrong
place, fails here."""

from __future__ import annotations

import datetime as dt

from nationbias.stores.guard.leak import (
    ContextChange,
    ContextKind,
    PromptContext,
    context_for_prompt,
    fallback_text,
    find_outcome_language,
    neutral_text,
    split_sentences,
    strip_outcome_sentences,
    title_description,
)
from nationbias.stores.guard.neutral import title_as_description
from nationbias.stores.guard.text_source import TextSource, context_source, draft_text_source
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
    from nationbias.stores.guard.leak import context_for_prompt

    fragments = [
        (record.id, sentence)
        for record in corpus.records  # the drafts and every precedent a debias prompt may quote
        for sentence in split_sentences(context_for_prompt(record).text)
        if sentence[:1].isdigit() and sentence.split()[0].rstrip(",").isdigit() and "," in sentence[:6]
    ]
    assert fragments == []


def test_neutral_text_drops_a_headline_from_the_press_never_from_an_assembly_description() -> None:
    """A short line with no sentence end is a press headline (dropped), unless the record is an Assembly
    roll call, whose description is a title by nature (kept); no record at all reads as press."""
    tensed = "The draft would call for an immediate ceasefire in the region."
    headline = ContextChange("Situation in the Middle East", None, ("a headline",))
    said = "The draft calls for an immediate ceasefire in the region."
    tense = ContextChange(said, tensed, ("present tense of what the text does",))
    raw = f"Situation in the Middle East\n{said}"
    for record in (None, _record(body="unsc")):
        assert neutral_text(raw, record=record) == (tensed, (headline, tense))
    assembly = _record(body="unga", id="A/2099/L.1")
    assert neutral_text(raw, record=assembly) == (f"Situation in the Middle East\n{tensed}", (tense,))


def test_context_for_prompt_takes_the_first_usable_text_and_says_what_and_whence() -> None:
    """The complete draft, then the press context, then a partial draft; each with its kind, its source,
    whether it is partial and what was removed: the whole record compared, field by field."""
    said = (
        "The draft calls for an immediate ceasefire in the region"
        " and for the release of all hostages held there."
    )
    press_url, draft_url = "https://press.un.org/en/2099/sc1.doc.htm", "https://undocs.org/S/2099/1"
    other = "Something else entirely, which is long enough to be used as a description here."

    def expected(record: Record, raw: str, kind: ContextKind, source: TextSource, *, partial: bool) -> None:
        text, changes = neutral_text(raw, record=record)
        removed = sum(1 for c in changes if c.rewritten is None)
        want = PromptContext(text, kind, removed, changes, source=source, partial=partial)
        assert context_for_prompt(record) == want

    context = _record(context={"text": said, "url": press_url})
    expected(context, said, "context", context_source(context), partial=False)
    partial = _record(draft_text={"text": said, "url": draft_url, "complete": False})
    expected(partial, said, "draft_text", draft_text_source(partial), partial=True)
    both = _record(draft_text={"text": said, "url": draft_url, "complete": True}, context={"text": other})
    expected(both, said, "draft_text", draft_text_source(both), partial=False)
    assert context_for_prompt(both).description == "the text of the draft, from a copy of the UN document"
    # a headline dropped, the rest kept: one sentence removed
    headed = _record(context={"text": f"Council Debates Ceasefire\n{said}", "url": press_url})
    assert context_for_prompt(headed).removed_sentences == 1
    expected(headed, f"Council Debates Ceasefire\n{said}", "context", context_source(headed), partial=False)


def test_context_for_prompt_length_rules_at_their_edges_and_the_reasons_for_a_fallback() -> None:
    """80 characters are enough; fewer need one whole sentence of at least 40. A rejected text is named with
    why (too short, or its outcome language), several joined by "; "."""
    eighty = "The draft would call for a ceasefire in the region and a release of the hostages"
    forty, thirty_nine = "The draft would enable aid to pass soon.", "The draft would enable aid to pass now."
    assert (len(eighty), len(forty), len(thirty_nine)) == (80, 40, 39)
    for text, kind in (
        (eighty, "context"),
        (eighty[:-1], "fallback"),
        (forty, "context"),
        (thirty_nine, "fallback"),
    ):
        record = _record(body="unga", id="A/2099/L.1", context={"text": text})  # no headline rule: a title
        assert context_for_prompt(record).kind == kind, text
    short = _record(context={"text": "The draft would help."})
    assert context_for_prompt(short).fallback_reason == "the context < 80 characters"
    both = _record(
        context={"text": "The draft would help."},
        draft_text={"text": "The Council adopted the resolution.", "complete": False},
    )
    reason = "the context < 80 characters; the draft text still revealed the outcome after rewriting"
    assert context_for_prompt(both).fallback_reason == reason
    nothing = context_for_prompt(_record(title="Middle East"))
    assert (nothing.kind, nothing.fallback_reason) == ("fallback", "no context or draft text")


def test_the_prompt_context_memo_tells_apart_records_that_differ_in_one_field_it_reads() -> None:
    """Same id, one field apart: each record gets its own context (the memo's key holds every field read)."""
    said = (
        "The draft calls for an immediate ceasefire in the region"
        " and for the release of all hostages held there."
    )
    again = said.replace("an immediate", "a lasting")
    press = {"text": said, "url": "https://press.un.org/en/2099/sc1.doc.htm"}
    pairs = [
        ({"context": press}, {"context": press | {"text": again}}),
        ({"context": press}, {"context": press | {"url": "https://www.reuters.com/world/a-story"}}),
        (
            {"draft_text": {"text": said, "complete": False}},
            {"draft_text": {"text": again, "complete": False}},
        ),
        (
            {"draft_text": {"text": said, "complete": False, "url": "https://undocs.org/S/2099/1"}},
            {"draft_text": {"text": said, "complete": False, "url": "https://www.reuters.com/world/a-story"}},
        ),
    ]
    for first, second in pairs:
        one, two = context_for_prompt(_record(**first)), context_for_prompt(_record(**second))
        assert (one.text, one.source) != (two.text, two.source), (first, second)
        assert context_for_prompt(_record(**second)) == two


def test_without_a_record_no_sentence_is_read_as_naming_its_resolution() -> None:
    """Only a record's own resolution number counts: without a record, "resolution none" is plain text."""
    text = "Under the resolution none of the parties may export arms."
    assert find_outcome_language(text) == []
    assert strip_outcome_sentences(text) == (text, 0)


def test_neutral_text_sentence_by_sentence_asides_and_the_rest_of_a_line() -> None:
    """The outcome word of an aside about another text goes and the sentence stays, every fact of the
    aside kept, unless what is left still reveals the outcome (here the record's own resolution number);
    a dropped sentence drops nothing after it on its line; only the first kept sentence is read as the
    context's opening."""
    extend = "The draft would extend the mission — established in 2015 — for a year."
    aside = "The draft would extend the mission — established unanimously in 2015 — for a year."
    why = ("an aside about another text had outcome language ('unanimously')",)
    assert neutral_text(aside) == (extend, (ContextChange(aside, extend, why),))
    own = _record(resolution="2231 (2015)", adopted=True)
    still = "The draft would build on resolution 2231 — endorsed unanimously in 2015 — for a year."
    reveals = ("reveals the outcome: adopted ('unanimously')",)
    assert neutral_text(still, record=own) == ("", (ContextChange(still, None, reveals),))
    more = "The draft would extend the mission for one more year."
    adopted = "The resolution was adopted unanimously."
    reasons = ("the text named as a draft", "reveals the outcome: adopted ('was adopted')")
    assert neutral_text(f"{adopted} {more}") == (more, (ContextChange(adopted, None, reasons),))
    fragment = "Council Extends Mission."
    cut = ('a fragment ("The U.N.", "UNITED NATIONS, Aug.")',)
    assert neutral_text(f"{fragment} {more}") == (more, (ContextChange(fragment, None, cut),))
    opening = "The draft calls for a ceasefire."
    now = ("present tense of what the text does",)
    tensed = ContextChange(opening, "The draft would call for a ceasefire.", now)
    also = "It would also demand aid for the region."
    assert neutral_text(f"{opening} {also}") == (f"The draft would call for a ceasefire. {also}", (tensed,))
