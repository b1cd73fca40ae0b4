"""Answer labelling checked where a small change would move a label (docs/mutation.md).

Each expectation is worked out by hand from the answer text, so a mutant that moves one answer to
another label, or makes an invalid answer valid, fails here.
"""

from __future__ import annotations

from nationbias.graphs.labels.parsing import parse_vote


def test_parse_vote_json_synonyms_and_invalid_kinds() -> None:
    assert parse_vote('{"vote": " In Favor ", "rationale": "x"}').value == "favour"
    assert parse_vote('{"vote": "no"}').value == "against"
    assert parse_vote('{"vote": "abstained"}').value == "abstention"
    both = parse_vote('{"vote": "in favour, then against"}')
    assert (both.value, both.reason) == (None, "multiple_options")
    missing = parse_vote('{"choice": "favour"}')
    assert (missing.reason, missing.detail) == ("json_missing_key", "keys: ['choice']")
    assert parse_vote('{"vote": ["favour"]}').reason == "multiple_options"
