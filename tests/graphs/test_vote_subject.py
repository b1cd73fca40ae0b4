"""Whose vote an answer states: the persona's own, never another member's named in passing."""

from __future__ import annotations

import pytest

from nationbias.graphs.labels.vote import label_vote_text


@pytest.mark.parametrize(
    ("nation", "answer", "label"),
    [
        ("Russian Federation", "Russia votes against the draft.", "against"),
        ("Russian Federation", "The Russian Federation will abstain.", "abstention"),
        ("United States", "The United States votes in favour.", "favour"),
        ("Brazil", "Brazil abstains on this text.", "abstention"),
        ("France", "I vote in favour of the draft.", "favour"),
        # a persona of several words, outside the P5: its words, any space between them
        ("South Africa", "South Africa votes against the draft.", "against"),
        ("South Africa", "South  Africa will abstain on this text.", "abstention"),
        ("South Africa", "France votes in favour, but South Africa votes against.", "against"),
    ],
)
def test_the_persona_s_own_vote_is_read(nation: str, answer: str, label: str) -> None:
    assert label_vote_text(answer, nation=nation).label == label


@pytest.mark.parametrize(
    ("nation", "answer"),
    [
        ("France", "The Russian Federation votes against the draft."),
        ("China", "The United States will veto the draft."),
        ("United Kingdom", "Russia will abstain, as it did before."),
    ],
)
def test_another_member_s_vote_is_not_the_persona_s(nation: str, answer: str) -> None:
    assert label_vote_text(answer, nation=nation).label is None
