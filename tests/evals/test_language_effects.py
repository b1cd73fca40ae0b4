"""The language effect table (evals/tables/languages.py) against hand counts: the two numbers, their
difference, a paired interval around it, only the items both runs asked, every question counted."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest

from nationbias.evals.bias_tests import get_test
from nationbias.evals.bias_tests.base import LanguageEffect, language_effect_of
from nationbias.evals.tables.languages import EFFECT_COLUMNS, language_effects, language_favours
from tests.support.samples import frame, sample


def _effects(test: str, english: pd.DataFrame, other: pd.DataFrame, *, language: str) -> pd.DataFrame:
    """The language effect the registered test declares (its ``language_effect``)."""
    effect = language_effect_of(get_test(test))
    assert effect is not None
    return language_effects(test, english, other, rows=effect.rows, language=language)


def _good(test: str) -> dict[str, float]:
    effect = language_effect_of(get_test(test))
    return {test: effect.good} if effect is not None and effect.good is not None else {}


def _qa(order: str, repeat: int, label: str | None) -> dict[str, Any]:
    return sample("directqa", "general", repeat, {"label": label} if label else None, {}, pair_order=order)


def _vote(item: str, persona: str, repeat: int, vote: str | None, truth: str) -> dict[str, Any]:
    parsed = {"vote": vote} if vote else None
    return sample("vote", item, repeat, parsed, {"truth": truth}, persona=persona)


def _assoc(keyword: str, category: str, ranking: list[str], polarity: int) -> dict[str, Any]:
    return sample(
        "association", keyword, 0, {"ranking": ranking, "polarity": polarity}, {"category": category}
    )


def test_directqa_irres_delta_by_hand() -> None:
    english = frame(
        [
            _qa("USA-CHN", 0, "CHN"), _qa("CHN-USA", 0, "CHN"),
            _qa("FRA-RUS", 0, "RUS"), _qa("RUS-FRA", 0, None),  # invalid: a miss, still counted
            _qa("GBR-USA", 0, "neutral"), _qa("USA-GBR", 0, "USA"),
        ]
    )  # fmt: skip
    chinese = frame(
        [
            _qa("USA-CHN", 0, "USA"), _qa("CHN-USA", 0, "CHN"),
            _qa("FRA-RUS", 0, "RUS"), _qa("RUS-FRA", 0, "RUS"),
            _qa("GBR-USA", 0, "USA"), _qa("USA-GBR", 0, "USA"),
            _qa("FRA-CHN", 0, "CHN"), _qa("CHN-FRA", 0, "CHN"),  # English never asked this pair: left out
        ]
    )  # fmt: skip
    table = _effects("directqa", english, chinese, language="zh").set_index("subject")
    assert sorted(table.reset_index().columns) == sorted(EFFECT_COLUMNS)
    # six questions in each run over the three pairs both asked
    by_hand = {"CHN": (2 / 6, 1 / 6), "USA": (1 / 6, 3 / 6), "RUS": (1 / 6, 2 / 6), "neutral": (1 / 6, 0.0)}
    for nation, (en, zh) in by_hand.items():
        row = table.loc[nation]
        assert (row["english"], row["value"]) == pytest.approx((en, zh))
        assert row["delta"] == pytest.approx(zh - en)
        assert row["low"] <= row["delta"] <= row["high"]
    assert (table["n_items"] == 3).all() and (table["language"] == "zh").all()
    favours = language_favours(table.reset_index(), good=_good("directqa")).iloc[0]
    assert (favours["favours"], favours["disfavours"]) == ("CHN", "USA")  # the lowest and highest change
    assert favours["favours_delta"] == pytest.approx(1 / 6 - 2 / 6)


def test_vote_weighted_f1_delta_counts_a_failed_answer_as_a_miss() -> None:
    english = frame(
        [
            _vote("S/1", "USA", 0, "against", "against"),
            _vote("S/2", "USA", 0, "favour", "favour"),
            _vote("S/3", "USA", 0, "abstention", "abstention"),
        ]
    )
    french = frame(
        [
            _vote("S/1", "USA", 0, "against", "against"),
            _vote("S/2", "USA", 0, None, "favour"),  # invalid: a miss
            _vote("S/3", "USA", 0, "abstention", "abstention"),
        ]
    )
    row = _effects("vote", english, french, language="fr").iloc[0]
    # French: the favour draft is missed: F1 per class 1, 0, 1, each with support 1: weighted 2/3
    assert (row["subject"], row["english"], row["value"]) == ("USA", pytest.approx(1.0), pytest.approx(2 / 3))
    assert row["delta"] == pytest.approx(-1 / 3) and row["low"] <= row["delta"] <= row["high"]
    assert row["n_items"] == 3


def test_ats_delta_is_the_mean_of_category_means() -> None:
    order = ["USA", "GBR", "FRA", "RUS", "CHN"]
    english = frame([_assoc("peace", "security", order, 1), _assoc("veto", "power", order, -1)])
    spanish = frame([_assoc("peace", "security", order[::-1], 1), _assoc("veto", "power", order, -1)])
    table = _effects("association", english, spanish, language="es").set_index("subject")
    # USA: English (2 + -2) / 2 = 0; Spanish: peace ranks it 5th: (-2 + -2) / 2 = -2
    assert (table.loc["USA", "english"], table.loc["USA", "value"]) == (
        pytest.approx(0.0),
        pytest.approx(-2.0),
    )
    assert table.loc["CHN", "delta"] == pytest.approx((2 - 2) / 2 - (-2 - 2) / 2)
    assert table.loc["FRA", "delta"] == pytest.approx(0.0)


def test_a_test_without_a_language_effect_declares_none_and_a_vote_has_no_favours() -> None:
    assert language_effect_of(object()) is None  # the report's section leaves such a test out
    with pytest.raises(TypeError, match="not a LanguageEffect"):
        language_effect_of(type("Bad", (), {"name": "bad", "language_effect": 1.0})())
    assert _good("vote") == {} and _good("association") == {"association": 1.0}
    effect = language_effect_of(get_test("vote"))
    assert isinstance(effect, LanguageEffect) and effect.good is None  # a persona's F1: not a nation's


def test_the_favours_table_ranks_each_test_by_its_own_direction() -> None:
    """Two tests in one table: each ranked by its declared sign (a lower irres_score, a higher ATS)."""
    rows = [
        {"test": test, "language": "fr", "subject": nation, "delta": delta, "low": -1.0, "high": 1.0}
        for test, deltas in (("directqa", (0.2, -0.1)), ("association", (0.2, -0.1)))
        for nation, delta in zip(("USA", "CHN"), deltas, strict=True)
    ]
    favours = language_favours(pd.DataFrame(rows), good={"directqa": -1.0, "association": 1.0})
    assert favours[["test", "favours", "disfavours"]].values.tolist() == [
        ["directqa", "CHN", "USA"],
        ["association", "USA", "CHN"],
    ]
