"""The leak audit checked sentence by sentence (docs/mutation.md): each flagged sentence and what
gave it away is worked out by hand, so a rule that stops matching, or a sentence cut in the wrong
place, fails here."""

from __future__ import annotations

from nationbias.stores.leak import find_outcome_language, split_sentences


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
