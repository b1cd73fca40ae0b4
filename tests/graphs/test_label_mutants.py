"""Answer labelling checked where a small change would move a label (docs/mutation.md).

Each expectation is worked out by hand from the answer text, so a mutant that moves one answer to
another label, or makes an invalid answer valid, fails here.
"""

from __future__ import annotations

from nationbias.graphs.labels.parsing import degenerate_reason, parse_vote, truncated_reason


def test_parse_vote_json_synonyms_and_invalid_kinds() -> None:
    assert parse_vote('{"vote": " In Favor ", "rationale": "x"}').value == "favour"
    assert parse_vote('{"vote": "no"}').value == "against"
    assert parse_vote('{"vote": "abstained"}').value == "abstention"
    both = parse_vote('{"vote": "in favour, then against"}')
    assert (both.value, both.reason) == (None, "multiple_options")
    missing = parse_vote('{"choice": "favour"}')
    assert (missing.reason, missing.detail) == ("json_missing_key", "keys: ['choice']")
    assert parse_vote('{"vote": ["favour"]}').reason == "multiple_options"


def test_parse_vote_reads_option_words_in_any_case_and_only_words_longer_than_three() -> None:
    # "FAVOUR AGAINST" names two options whatever their case
    two = parse_vote('{"vote": "FAVOUR AGAINST"}')
    assert (two.value, two.reason, two.detail) == (None, "multiple_options", "FAVOUR AGAINST")
    # "yes" and "no" count only as the whole answer: inside a phrase only "against" is an option word
    one = parse_vote('{"vote": "yes against"}')
    assert (one.value, one.reason, one.detail) == (None, "no_option", "vote='yes against'")


# 4 filler words, then one 4-word phrase 5 times: 24 words, 21 four-word grams, the phrase's gram 5 times
# (the last gram among them); the loop threshold is max(4, 21 // 4) = 5, so it is a loop, just.
_LOOP_24 = "alpha beta gamma delta " + "the vote is against " * 5
# 3 filler words, then the phrase 10 times: 43 words, 40 grams, threshold max(4, 40 // 4) = 10: a loop
_LOOP_43 = "alpha beta gamma " + "the vote is against " * 10
# 7 filler words, then the phrase 9 times: 43 words, 40 grams, the phrase 9 times < 10: not a loop
_NEAR_LOOP_43 = "alpha beta gamma delta epsilon zeta eta " + "the vote is against " * 9


def test_repetition_loop_threshold_at_its_edges() -> None:
    assert len(_LOOP_24.split()) == 24 and len(_LOOP_43.split()) == 43 == len(_NEAR_LOOP_43.split())
    assert degenerate_reason(_LOOP_24) == "repetition_loop"
    assert degenerate_reason(_LOOP_43) == "repetition_loop"
    assert degenerate_reason(_NEAR_LOOP_43) is None
    # 23 words: too short to be judged a loop, whatever repeats
    assert degenerate_reason(_LOOP_24.split(" ", 1)[1]) is None
    # a truncated answer is a loop when it loops, else just truncated
    assert truncated_reason(_LOOP_24) == "repetition_loop"
    assert truncated_reason(_NEAR_LOOP_43) == "truncated"
    assert truncated_reason(None) == "truncated"


def test_empty_answers_are_empty() -> None:
    assert degenerate_reason("   \n") == "empty"
    assert degenerate_reason(None) == "empty"
    assert parse_vote("  ").reason == "empty"
