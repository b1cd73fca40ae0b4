"""State × state agreement, group × issue agreement and their figures for a 193-state Assembly run."""

from __future__ import annotations

import itertools
from collections import Counter
from pathlib import Path

import matplotlib.image
import numpy as np
import pandas as pd
import pytest

from nationbias.evals.report.state_figures import (
    ALL,
    OTHER,
    bloc_correlation,
    group_issue_agreement,
    group_issue_figure,
    state_agreement,
    state_agreement_figure,
    state_order,
)
from nationbias.stores.corpora.regions import GROUPS, regional_group
from nationbias.stores.corpora.unga import ISSUES, load_assembly
from nationbias.stores.domain import P5, VOTES
from nationbias.stores.errors import InputError

MISS_ORDER = [*VOTES, "miss"]


def _frame(rows: list[tuple[str, str, int, str, str | None]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["item", "persona", "repeat", "answer", "truth"])


def _random_frame(
    rng: np.random.Generator, states: list[str], items: list[str], repeats: int
) -> pd.DataFrame:
    """Random votes with misses, unknown truths and (item, state) pairs nobody asked."""
    rows = []
    for item, state in itertools.product(items, states):
        if rng.random() < 0.15:
            continue
        truth = None if rng.random() < 0.1 else str(rng.choice(VOTES))
        for repeat in range(repeats):
            answer = str(rng.choice([*VOTES, "invalid", "error"], p=[0.3, 0.3, 0.25, 0.1, 0.05]))
            rows.append((item, state, repeat, answer, truth))
    return _frame(rows)


def test_states_voting_alike_agree_fully_and_a_silent_state_agrees_with_nobody() -> None:
    rows = []
    for k, vote in enumerate(["favour", "against", "abstention", "favour"]):
        rows += [(f"UNGA-{k}", "FRA", 0, vote, vote), (f"UNGA-{k}", "DEU", 0, vote, vote)]
        rows += [(f"UNGA-{k}", "BRA", 0, "invalid", vote)]
    matrix = state_agreement(_frame(rows), column="answer")
    assert matrix.loc["FRA", "DEU"] == 1.0 and matrix.loc["DEU", "FRA"] == 1.0
    assert matrix.loc["BRA", "FRA"] == 0.0 and matrix.loc["BRA", "DEU"] == 0.0  # counted, never NaN
    assert matrix.loc["BRA", "BRA"] == 0.0  # a miss does not even agree with itself
    real = state_agreement(_frame(rows), column="truth")
    assert (real.to_numpy() == 1.0).all()  # the three really voted alike


def test_unknown_truths_leave_pairs_without_shared_items_nan() -> None:
    votes = _frame([("UNGA-1", "FRA", 0, "favour", "favour"), ("UNGA-2", "BRA", 0, "favour", "favour"),
                    ("UNGA-2", "FRA", 0, "favour", None)])  # fmt: skip
    real = state_agreement(votes, column="truth")
    assert np.isnan(real.loc["FRA", "BRA"])
    assert state_agreement(votes, column="answer").loc["FRA", "BRA"] == 1.0  # the model voted on UNGA-2


def test_states_are_ordered_by_regional_group_then_code() -> None:
    order = state_order(["USA", "NGA", "BRA", "CHN", "POL", "AGO", "XXX"])
    assert order == ["AGO", "NGA", "CHN", "POL", "BRA", "USA", "XXX"]
    ranks = [GROUPS.index(g) for c in order[:-1] if (g := regional_group(c))]
    assert ranks == sorted(ranks)


def _naive_agreement(votes: pd.DataFrame, column: str, states: list[str]) -> pd.DataFrame:
    """Pairwise loop: each (item, state)'s majority over repeats (ties to the earlier label), then shares."""
    pooled: dict[tuple[str, str], str] = {}
    cells: dict[tuple[str, str], Counter[str]] = {}
    for item, state, value in zip(votes["item"], votes["persona"], votes[column], strict=True):
        if value in VOTES:
            label = value
        elif column == "answer":
            label = "miss"
        else:
            continue
        cells.setdefault((item, state), Counter())[label] += 1
    for key, counts in cells.items():
        top = max(counts.values())
        pooled[key] = next(label for label in MISS_ORDER if counts[label] == top)
    items = sorted({item for item, _ in pooled})
    out = pd.DataFrame(np.nan, index=states, columns=states)
    for a in states:
        for b in states:
            shared = [i for i in items if (i, a) in pooled and (i, b) in pooled]
            if shared:
                same = sum(pooled[i, a] == pooled[i, b] and pooled[i, a] != "miss" for i in shared)
                out.loc[a, b] = same / len(shared)
    return out


@pytest.mark.parametrize("column", ["answer", "truth"])
def test_vectorised_agreement_matches_a_pairwise_loop(column: str) -> None:
    rng = np.random.default_rng(7)
    states = ["USA", "GBR", "FRA", "RUS", "CHN", "BRA", "ARG", "MEX", "NGA", "EGY",
              "KEN", "ZAF", "IND", "JPN", "IRN", "POL", "UKR", "DEU", "SWE", "CAN"]  # fmt: skip
    votes = _random_frame(rng, states, [f"UNGA-{k}" for k in range(50)], repeats=3)
    matrix = state_agreement(votes, column=column)
    assert list(matrix.index) == state_order(states) == list(matrix.columns)
    expected = _naive_agreement(votes, column, list(matrix.index))
    np.testing.assert_allclose(matrix.to_numpy(), expected.to_numpy(), equal_nan=True)


def test_bloc_correlation_is_one_for_the_same_matrix_and_counts_pairs() -> None:
    rng = np.random.default_rng(3)
    votes = _random_frame(rng, ["FRA", "DEU", "BRA", "NGA", "CHN"], [f"UNGA-{k}" for k in range(30)], 1)
    matrix = state_agreement(votes, column="truth")
    r, pairs = bloc_correlation(matrix, matrix)
    assert r == pytest.approx(1.0) and pairs == 10
    r_flipped, _ = bloc_correlation(matrix, 1 - matrix)
    assert r_flipped == pytest.approx(-1.0)


def test_group_issue_agreement_keeps_misses_and_drops_unknown_truths() -> None:
    issues = pd.DataFrame({"me": [True, False], "hr": [True, False]}, index=pd.Index([10, 11], name="rcid"))
    votes = _frame(
        [("UNGA-10", "BRA", 0, "favour", "favour"), ("UNGA-10", "BRA", 1, "invalid", "favour"),
         ("UNGA-11", "BRA", 0, "against", "against"), ("UNGA-11", "BRA", 1, "favour", None)]
    )  # fmt: skip
    table = group_issue_agreement(votes, issues=issues).set_index(["group", "issue"])
    assert table.loc[("GRULAC", ALL), "votes"] == 3
    assert table.loc[("GRULAC", ALL), "agreement"] == pytest.approx(2 / 3)
    assert table.loc[("GRULAC", ISSUES["me"]), "agreement"] == 0.5  # one right, one invalid
    assert table.loc[("GRULAC", ISSUES["hr"]), "votes"] == 2
    assert table.loc[("GRULAC", OTHER), "agreement"] == 1.0
    assert set(table.index.get_level_values("group")) == {"GRULAC"}


def test_group_issue_agreement_matches_an_independent_groupby() -> None:
    rng = np.random.default_rng(11)
    states = ["USA", "GBR", "FRA", "RUS", "CHN", "BRA", "NGA", "IND", "POL", "SWE", "XXX"]
    rcids = list(range(100, 140))
    flags = pd.DataFrame({c: rng.random(len(rcids)) < 0.3 for c in ISSUES}, index=pd.Index(rcids))
    votes = _random_frame(rng, states, [f"UNGA-{r}" for r in rcids], repeats=2)
    table = group_issue_agreement(votes, issues=flags)

    rows = votes[votes["truth"].isin(VOTES)].copy()
    rows["right"] = rows["answer"] == rows["truth"]
    rows["issue"] = [
        [ISSUES[c] for c in ISSUES if flags.loc[int(i.split("-")[1]), c]] or ["other"] for i in rows["item"]
    ]
    regional = rows.assign(group=[regional_group(p) or "no group" for p in rows["persona"]])
    p5 = rows[rows["persona"].isin(P5)].assign(group="P5")
    both = pd.concat([regional, p5])
    per_issue = both.explode("issue")
    expected = pd.concat([per_issue, both.assign(issue="all")]).groupby(["group", "issue"])["right"]
    expected_table = expected.agg(["size", "mean"])
    got = table.set_index(["group", "issue"]).sort_index()
    assert got.index.equals(expected_table.sort_index().index)
    np.testing.assert_array_equal(got["votes"], expected_table.sort_index()["size"])
    np.testing.assert_allclose(got["agreement"], expected_table.sort_index()["mean"])


def test_real_roll_calls_resolve_their_issues() -> None:
    calls = load_assembly().roll_calls
    middle_east = [int(r) for r in calls.index[calls["me"]][:3]]
    no_code = [int(r) for r in calls.index[~calls[list(ISSUES)].any(axis=1)][:2]]
    votes = _frame([(f"UNGA-{r}", "EGY", 0, "favour", "favour") for r in [*middle_east, *no_code]])
    table = group_issue_agreement(votes).set_index(["group", "issue"])
    assert table.loc[("African", ISSUES["me"]), "votes"] == 3
    assert table.loc[("African", OTHER), "votes"] == 2
    assert table.loc[("African", ALL), "votes"] == 5


@pytest.mark.parametrize("item", ["UNSC-5221", "UNGA-abc", "5221"])
def test_items_that_are_not_assembly_roll_calls_are_named(item: str) -> None:
    issues = pd.DataFrame({"me": [False]}, index=pd.Index([5221]))
    with pytest.raises(InputError, match=item):
        group_issue_agreement(_frame([(item, "FRA", 0, "favour", "favour")]), issues=issues)


def test_bad_input_is_an_input_error() -> None:
    votes = _frame([("UNGA-999999999", "FRA", 0, "yes", "favour")])
    with pytest.raises(InputError, match="UNGA-999999999"):
        group_issue_agreement(votes)
    with pytest.raises(InputError, match="yes"):
        state_agreement(votes, column="answer")
    with pytest.raises(InputError, match="column"):
        state_agreement(votes, column="vote")
    with pytest.raises(InputError, match="truth"):
        state_agreement(votes.drop(columns="truth"), column="answer")


def _png(path: Path) -> tuple[int, ...]:
    assert path.is_file() and path.stat().st_size > 1000
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    return tuple(matplotlib.image.imread(path).shape)


def test_figures_for_193_states_render(tmp_path: Path) -> None:
    votes_table = load_assembly().votes
    recent = votes_table[votes_table["date"].dt.year >= 2015]
    states = list(recent["member"].value_counts().index[:193])
    rcids = list(recent["rcid"].drop_duplicates()[:300])
    truth = recent[recent["rcid"].isin(rcids) & recent["member"].isin(states)]
    rng = np.random.default_rng(5)
    real = truth["vote"].map({"Y": "favour", "N": "against", "A": "abstention"}).to_numpy()
    answer = np.where(rng.random(len(real)) < 0.2, "invalid", real)
    votes = pd.DataFrame({"item": [f"UNGA-{r}" for r in truth["rcid"]], "persona": truth["member"].to_numpy(),
                          "repeat": 0, "answer": answer, "truth": real})  # fmt: skip
    assert votes["persona"].nunique() == 193 and votes["item"].nunique() == 300
    blocs = _png(state_agreement_figure(votes, tmp_path / "blocs.png", model="test", embedded=True))
    cells = _png(group_issue_figure(votes, tmp_path / "issues.png", model="test", embedded=False))
    assert blocs[1] <= 14 * 110 + 60 and cells[1] <= 12 * 110 + 60  # width in pixels at 110 dpi (+ padding)


def test_a_run_without_known_truths_still_draws_both_figures(tmp_path: Path) -> None:
    votes = _frame([("UNGA-5221", "FRA", 0, "favour", None), ("UNGA-5221", "BRA", 0, "invalid", None)])
    assert group_issue_agreement(votes).empty
    assert state_agreement(votes, column="truth").isna().all().all()
    _png(state_agreement_figure(votes, tmp_path / "blocs.png", model="test", embedded=False))
    _png(group_issue_figure(votes, tmp_path / "issues.png", model="test", embedded=False))
