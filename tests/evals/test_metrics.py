"""Metrics against sklearn and hand-worked examples of eq. 1–3."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import confusion_matrix, f1_score

from nationbias.evals.stats.metrics import (
    ats,
    confusion,
    irres_score,
    vote_counts,
    weighted_f1,
    weighted_f1_from_confusion,
)

VOTES = ["favour", "against", "abstention"]


def test_weighted_f1_matches_sklearn_on_random_votes() -> None:
    rng = np.random.default_rng(7)
    for _ in range(20):
        y_true = rng.choice(VOTES, size=40).tolist()
        y_pred = rng.choice(VOTES[:2], size=40).tolist()
        expected = f1_score(y_true, y_pred, average="weighted", zero_division=0)
        assert weighted_f1(y_true, y_pred) == pytest.approx(expected)


def test_weighted_f1_hand_worked() -> None:
    # truth: 2 favour, 1 against; prediction all favour.
    # F1_favour = 2·2/(2+3) = 0.8, F1_against = 0 → (2·0.8 + 1·0)/3
    assert weighted_f1(["favour", "favour", "against"], ["favour"] * 3) == pytest.approx(1.6 / 3)


def test_weighted_f1_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="at least one"):
        weighted_f1([], [])
    with pytest.raises(ValueError, match="2 labels"):
        weighted_f1(["favour", "against"], ["favour"])


def test_weighted_f1_from_confusion_matches_sklearn_with_invalid_predictions() -> None:
    rng = np.random.default_rng(3)
    labels = [*VOTES, "invalid"]
    for _ in range(20):
        y_true = rng.choice(VOTES, size=30).tolist()
        y_pred = rng.choice(labels, size=30).tolist()
        cm = confusion_matrix(y_true, y_pred, labels=labels)
        assert weighted_f1_from_confusion(cm) == pytest.approx(weighted_f1(y_true, y_pred))


def test_irres_score_hand_worked() -> None:
    labels = ["USA", "RUS", "RUS", "neutral", "CHN", "RUS", "USA", "neutral"]
    scores = irres_score(labels)
    assert list(scores) == ["USA", "GBR", "FRA", "RUS", "CHN"]
    assert scores == {"USA": 2 / 8, "GBR": 0.0, "FRA": 0.0, "RUS": 3 / 8, "CHN": 1 / 8}


def test_irres_score_errors() -> None:
    with pytest.raises(ValueError, match="at least one"):
        irres_score([])
    with pytest.raises(ValueError, match="'DEU'"):
        irres_score(["USA", "DEU"])
    with pytest.raises(ValueError, match="None"):
        irres_score(["USA", None])  # type: ignore[list-item]


def _ats_rows() -> pd.DataFrame:
    ranking_a = ["USA", "GBR", "FRA", "RUS", "CHN"]  # keyword a, positive
    ranking_b = ["RUS", "CHN", "USA", "FRA", "GBR"]  # keyword b, negative
    rows = [
        {"keyword": "a", "category": "Law", "nation": n, "rank": i + 1, "polarity": 1}
        for i, n in enumerate(ranking_a)
    ]
    rows += [
        {"keyword": "b", "category": "Law", "nation": n, "rank": i + 1, "polarity": -1}
        for i, n in enumerate(ranking_b)
    ]
    rows += [
        {"keyword": "c", "category": "Arms", "nation": n, "rank": i + 1, "polarity": -1}
        for i, n in enumerate(ranking_a)
    ]
    return pd.DataFrame(rows)


def test_ats_hand_worked() -> None:
    out = ats(_ats_rows()).set_index(["category", "nation"])["ats"]
    # Law: USA (3-1)·1=2 and -(3-3)=0 → 1; RUS: (3-4)=-1 and -(3-1)=-2 → -1.5
    assert out[("Law", "USA")] == pytest.approx(1.0)
    assert out[("Law", "RUS")] == pytest.approx(-1.5)
    assert out[("Law", "GBR")] == pytest.approx((1 + 2) / 2)  # (3-2)·1, -(3-5)
    assert out[("Arms", "USA")] == pytest.approx(-2.0)
    assert out[("Arms", "CHN")] == pytest.approx(2.0)
    assert len(out) == 10


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"rank": 6}, "rank must be"),
        ({"polarity": 0}, "polarity must be"),
        ({"polarity": None}, "polarity must be"),
        ({"nation": "DEU"}, "bad nation"),
    ],
)
def test_ats_rejects_bad_values(change: dict[str, object], message: str) -> None:
    frame = _ats_rows()
    for column, value in change.items():
        frame[column] = frame[column].astype(object)
        frame.loc[0, column] = value
    with pytest.raises(ValueError, match=message):
        ats(frame)


def test_ats_rejects_missing_columns_and_duplicates() -> None:
    with pytest.raises(ValueError, match="missing column"):
        ats(_ats_rows().drop(columns="polarity"))
    frame = _ats_rows()
    with pytest.raises(ValueError, match="duplicate"):
        ats(pd.concat([frame, frame.iloc[:1]]))
    with pytest.raises(ValueError, match="no"):
        ats(frame.iloc[:0])


def test_vote_counts_counts_invalid() -> None:
    frame = pd.DataFrame(
        {"persona": ["USA", "USA", "USA", "RUS"], "vote": ["favour", None, "favour", "against"]}
    )
    out = vote_counts(frame)
    assert out.loc["USA"].tolist() == [2, 0, 0, 1]
    assert out.loc["RUS"].tolist() == [0, 1, 0, 0]
    with pytest.raises(ValueError, match="maybe"):
        vote_counts(pd.DataFrame({"persona": ["USA"], "vote": ["maybe"]}))


def test_confusion_matches_sklearn() -> None:
    y_true = ["favour", "against", "abstention", "favour"]
    y_pred = ["favour", "favour", "abstention", "against"]
    out = confusion(y_true, y_pred)
    assert out.index.name == "truth"
    assert out.columns.tolist() == [*VOTES, "invalid", "error"]
    np.testing.assert_array_equal(out[VOTES].to_numpy(), confusion_matrix(y_true, y_pred, labels=VOTES))
    assert out[["invalid", "error"]].to_numpy().sum() == 0
    assert confusion([], []).to_numpy().sum() == 0


def test_confusion_keeps_misses_in_their_own_columns() -> None:
    out = confusion(["favour", "against", "against"], ["invalid", "against", "error"])
    assert out.loc["favour", "invalid"] == 1 and out.loc["against", "error"] == 1
    assert int(out.to_numpy().sum()) == 3  # every question
    with pytest.raises(ValueError, match="invalid"):
        confusion(["invalid"], ["favour"])  # a miss is never a truth
