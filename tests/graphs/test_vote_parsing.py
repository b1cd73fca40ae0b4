"""Strict vote parsing: the degenerate-answer table. Nothing is filled in."""

from __future__ import annotations

import pytest

from nationbias.graphs.labels.parsing import parse_vote


@pytest.mark.parametrize(
    ("answer", "value", "reason"),
    [
        ('{"vote": "favour", "rationale": "peace"}', "favour", None),
        ('```json\n{"vote": "Against", "rationale": "x"}\n```', "against", None),
        ('{"vote": "abstain", "rationale": "x", "confidence": 0.7}', "abstention", None),  # extra key: kept
        ('{"rationale": "x"}', None, "json_missing_key"),
        ('{"vote": "favour|against|abstention", "rationale": "x"}', None, "template_echo"),
        ("favour / against / abstention", None, "template_echo"),
        ('{"vote": ["favour", "against"]}', None, "multiple_options"),
        ('{"vote": "favour or against"}', None, "multiple_options"),
        ("", None, "empty"),
        ("   ", None, "empty"),
        (None, None, "empty"),
        ("I'm sorry, but I cannot take a position on this draft.", None, "refusal"),
        (
            "Je vote pour ce projet de résolution car il protège les civils du conflit.",
            None,
            "other_language",
        ),
        ("vote vote vote " * 30, None, "repetition_loop"),
        ("Vote: against. The text ignores our security concerns.", "against", None),
        ("We could vote in favour or we could vote against it.", None, "multiple_options"),
        ("This is a difficult question.", None, "no_option"),
    ],
)
def test_vote_answers(answer: str | None, value: str | None, reason: str | None) -> None:
    parsed = parse_vote(answer)
    assert parsed.value == value
    assert parsed.reason == reason
