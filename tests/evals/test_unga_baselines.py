"""Assembly baselines: leave-future-out (the future permuted or dropped changes no prediction), the paper's
labels, the output's columns, and the same-title rule checked against a direct pandas computation."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import f1_score

from nationbias.evals.baselines.assembly import (
    ALL,
    COLUMNS,
    assembly_baseline_f1,
    assembly_predictions,
    assembly_scores,
)
from nationbias.stores.corpora.unga import Assembly, load_assembly
from nationbias.stores.domain import VOTE_CODES
from nationbias.stores.domain import VOTES as VOTES_LABELS
from nationbias.stores.errors import InputError

STATES = ("USA", "ISR", "CAN", "GBR", "FRA", "RUS", "CHN", "IND", "BRA", "CUB", "JPN", "NGA")
YEAR = 2010


def _since(assembly: Assembly, year: int) -> Assembly:
    """The Assembly from ``year`` on: a smaller matrix, so features build in a second."""
    calls = assembly.roll_calls[assembly.roll_calls["date"].dt.year >= year]
    votes = assembly.votes[assembly.votes["rcid"].isin(calls.index)].reset_index(drop=True)
    return Assembly(roll_calls=calls, votes=votes, unmapped=assembly.unmapped, not_votes=assembly.not_votes)


@pytest.fixture(scope="module")
def recent() -> Assembly:
    return _since(load_assembly(), 2004)


def _future_scrambled(assembly: Assembly, cutoff: pd.Timestamp, *, last_year: int) -> Assembly:
    """Every vote dated on or after ``cutoff`` permuted, every roll call after ``last_year`` dropped."""
    calls = assembly.roll_calls[assembly.roll_calls["date"].dt.year <= last_year]
    votes = assembly.votes[assembly.votes["rcid"].isin(calls.index)].reset_index(drop=True)
    future = (votes["date"] >= cutoff).to_numpy()
    shuffled = votes["vote"].to_numpy().copy()
    shuffled[future] = np.random.default_rng(0).permutation(shuffled[future])
    assert (shuffled[future] != votes["vote"].to_numpy()[future]).mean() > 0.2  # the future really changed
    votes = votes.assign(vote=shuffled)
    return Assembly(roll_calls=calls, votes=votes, unmapped=assembly.unmapped, not_votes=assembly.not_votes)


@pytest.mark.parametrize(("which", "reweight"), [("first", False), ("middle", False), ("middle", True)])
def test_the_future_permuted_or_dropped_changes_no_prediction(
    recent: Assembly, which: str, reweight: bool
) -> None:
    options = {"years": (YEAR, YEAR), "methods": ALL, "members": STATES, "window": 2, "reweight": reweight}
    before = assembly_predictions(assembly=recent, **options)
    dates = sorted(before["date"].unique())
    cutoff = pd.Timestamp(dates[0] if which == "first" else dates[len(dates) // 2])
    after = assembly_predictions(assembly=_future_scrambled(recent, cutoff, last_year=YEAR), **options)
    on_cutoff = before["date"] == cutoff
    assert on_cutoff.sum() > 0
    keys = ["baseline", "item_id", "member"]
    left = before[on_cutoff].set_index(keys)["predicted"].sort_index()
    right = after[after["date"] == cutoff].set_index(keys)["predicted"].sort_index()
    pd.testing.assert_series_equal(left, right)
    truth_changed = (
        before[on_cutoff].set_index(keys)["truth"].sort_index()
        != after[after["date"] == cutoff].set_index(keys)["truth"].sort_index()
    )
    assert truth_changed.any()  # the target's own votes were scrambled too, and nothing followed them


def test_labels_columns_and_counts(recent: Assembly) -> None:
    predictions = assembly_predictions(assembly=recent, years=(YEAR, YEAR), members=STATES, window=2)
    assert list(predictions.columns) == COLUMNS
    assert list(predictions["baseline"].unique()) == list(ALL)
    assert set(predictions["truth"]) == set(VOTE_CODES.values()) >= set(predictions["predicted"])
    votes = recent.votes[(recent.votes["date"].dt.year == YEAR) & recent.votes["member"].isin(STATES)]
    expected = Counter(VOTE_CODES[code] for code in votes["vote"])
    for _, group in predictions.groupby("baseline"):
        assert Counter(group["truth"]) == expected
        assert set(zip(group["item_id"], group["member"], strict=True)) == set(
            zip(votes["rcid"], votes["member"], strict=True)
        )
    scores = assembly_scores(predictions)
    assert list(scores["baseline"]) == list(ALL)
    assert ((scores["accuracy"] >= 0) & (scores["accuracy"] <= 1)).all()
    assert (scores["votes"] == len(votes)).all()
    per_member = assembly_scores(predictions, by=("baseline", "member"))
    assert len(per_member) == len(ALL) * len(STATES)
    usa = predictions[(predictions["baseline"] == "model") & (predictions["member"] == "USA")]
    row = per_member[(per_member["baseline"] == "model") & (per_member["member"] == "USA")].iloc[0]
    assert row["accuracy"] == (usa["truth"] == usa["predicted"]).mean()


def test_same_title_is_the_states_latest_earlier_vote_on_that_title(recent: Assembly) -> None:
    found = assembly_predictions(assembly=recent, years=(YEAR, YEAR), methods=("same_title", "majority"))
    votes = recent.votes.merge(recent.roll_calls[["title"]], left_on="rcid", right_index=True)
    sample = found[found["baseline"] == "same_title"].sample(400, random_state=1)
    majority = found[found["baseline"] == "majority"].set_index(["item_id", "member"])["predicted"]
    for row in sample.itertuples():
        title = recent.roll_calls.loc[row.item_id, "title"]
        mine = votes[(votes["title"] == title) & (votes["member"] == row.member)]
        earlier = mine[mine["date"] < row.date]
        if title and len(earlier):
            expected = VOTE_CODES[earlier.sort_values(["date", "rcid"])["vote"].iloc[-1]]
        else:
            expected = majority[(row.item_id, row.member)]
        assert row.predicted == expected, row


def test_bad_input_is_named() -> None:
    with pytest.raises(InputError, match="unknown Assembly baseline"):
        assembly_predictions(methods=("oracle",))
    with pytest.raises(InputError, match="empty year window 2019-2005"):
        assembly_predictions(years=(2019, 2005))
    with pytest.raises(InputError, match="XXX"):
        assembly_predictions(years=(2010, 2010), methods=("majority",), members=("USA", "XXX"))


def test_the_reports_baseline_table_is_sklearns_score_on_the_runs_roll_calls(recent: Assembly) -> None:
    """A run's items and states only: each cell is sklearn's weighted F1 of that baseline's predictions."""
    calls = recent.roll_calls[recent.roll_calls["date"].dt.year.isin([2011, 2012])].index[::7]
    items = [f"UNGA-{rcid}" for rcid in calls]
    personas = ["USA", "CUB", "NGA", "XXX"]  # XXX never voted: a row of NaN, not an error
    table = assembly_baseline_f1(items=items, personas=personas, assembly=recent)
    assert list(table.columns) == list(ALL) and list(table.index) == personas
    assert table.loc["XXX"].isna().all()
    full = assembly_predictions(years=(2011, 2012), members=personas[:3], assembly=recent)
    for member in personas[:3]:
        for baseline in ALL:
            rows = full[
                full["member"].eq(member) & full["baseline"].eq(baseline) & full["item_id"].isin(calls)
            ]
            labels = list(VOTES_LABELS)
            expected = f1_score(
                rows["truth"], rows["predicted"], average="weighted", labels=labels, zero_division=0
            )
            assert table.loc[member, baseline] == pytest.approx(expected)
    with pytest.raises(InputError, match="no roll call"):
        assembly_baseline_f1(items=["S/2020/1"], personas=personas, assembly=recent)


def test_a_runs_baselines_are_stored_once_and_read_back_in_a_later_process(tmp_path, monkeypatch) -> None:
    import nationbias.evals.baselines.assembly as U

    monkeypatch.setenv("NATIONBIAS_HOME", str(tmp_path))
    items = [f"UNGA-{rcid}" for rcid in load_assembly().roll_calls.query("date.dt.year == 2010").index[:3]]
    first = U.run_predictions(items=items, personas=["USA", "BRA", "XXX"])
    U._run_predictions.cache_clear()  # as a new process would start

    def refit(*args: object, **kwargs: object) -> pd.DataFrame:
        raise AssertionError("refitted although the predictions are stored")

    monkeypatch.setattr(U, "assembly_predictions", refit)
    again = U.run_predictions(items=list(reversed(items)), personas=["BRA", "USA"])  # same run, other order
    pd.testing.assert_frame_equal(first, again)
    assert set(first["member"]) == {"USA", "BRA"} and set(first["baseline"]) == set(ALL)
