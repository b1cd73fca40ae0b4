"""The Assembly model's explanations: contributions add up to its scores, the scores give its votes, every
precedent is earlier, and removing the future changes no explanation."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from nationbias.evals.baselines.assembly import run_predictions
from nationbias.evals.baselines.assembly_explain import explain_assembly
from nationbias.stores.corpora.unga import Assembly, load_assembly
from nationbias.stores.errors import InputError

STATES = ("USA", "ISR", "GBR", "RUS", "CHN", "IND", "BRA", "CUB", "NGA")


def _window(assembly: Assembly, first: int, last: int) -> Assembly:
    calls = assembly.roll_calls[assembly.roll_calls["date"].dt.year.between(first, last)]
    votes = assembly.votes[assembly.votes["rcid"].isin(calls.index)].reset_index(drop=True)
    return Assembly(roll_calls=calls, votes=votes, unmapped=assembly.unmapped, not_votes=assembly.not_votes)


@pytest.fixture(scope="module")
def recent() -> Assembly:
    return _window(load_assembly(), 2003, 2012)


@pytest.fixture(scope="module")
def items(recent: Assembly) -> list[str]:
    calls = recent.roll_calls[recent.roll_calls["date"].dt.year == 2010]
    return [f"UNGA-{rcid}" for rcid in calls.index[::7][:12]]


@pytest.fixture(scope="module")
def explained(recent: Assembly, items: list[str]) -> list[dict]:
    return explain_assembly(items=items, personas=STATES, assembly=recent)


def test_contributions_add_up_to_the_score_and_the_scores_give_the_vote(explained: list[dict]) -> None:
    assert len(explained) > 50
    for e in explained:
        assert e["contributions"], e["item"]
        total = e["intercept"] + sum(c["contribution"] for c in e["contributions"])
        assert math.isclose(total, e["score"], rel_tol=1e-6, abs_tol=1e-6)
        assert e["score"] == e["scores"][e["predicted"]]
        assert max(e["scores"], key=e["scores"].__getitem__) == e["predicted"]
        assert math.isclose(sum(e["probabilities"].values()), 1.0, rel_tol=1e-9)
        assert any(c["contribution"] != 0 for c in e["contributions"])


def test_the_explained_votes_are_the_run_baselines_votes(
    recent: Assembly, items: list[str], explained: list[dict]
) -> None:
    table = run_predictions(items=items, personas=STATES, assembly=recent)
    model = table[table["baseline"] == "model"]
    rows = zip(model["item_id"], model["member"], model["predicted"], strict=True)
    expected = {(f"UNGA-{i}", m): p for i, m, p in rows}
    assert {(e["item"], e["member"]): e["predicted"] for e in explained} == expected


def test_every_precedent_is_dated_before_the_roll_call(explained: list[dict]) -> None:
    for e in explained:
        assert e["precedents"], e["item"]
        assert all(p["date"] < e["date"] for p in e["precedents"]), e["item"]
        assert {p["pool"] for p in e["precedents"]} >= {"similar text"}


def test_the_future_dropped_or_permuted_changes_no_explanation(
    recent: Assembly, items: list[str], explained: list[dict]
) -> None:
    cutoff = pd.Timestamp(min(e["date"] for e in explained))
    cut = _window(recent, 2003, 2010)
    votes = cut.votes
    future = (votes["date"] >= cutoff).to_numpy()
    shuffled = votes["vote"].to_numpy().copy()
    shuffled[future] = np.random.default_rng(1).permutation(shuffled[future])
    cut = Assembly(roll_calls=cut.roll_calls, votes=votes.assign(vote=shuffled), unmapped=cut.unmapped,
                   not_votes=cut.not_votes)  # fmt: skip
    first = [e for e in explained if e["date"] == cutoff.date().isoformat()]
    assert first
    again = explain_assembly(items=items, personas=STATES, assembly=cut)
    by_pair = {(e["item"], e["member"]): e for e in again}
    for e in first:
        other = by_pair[(e["item"], e["member"])]
        assert other["predicted"] == e["predicted"]
        assert other["precedents"] == e["precedents"]
        assert [c["contribution"] for c in other["contributions"]] == pytest.approx(
            [c["contribution"] for c in e["contributions"]], abs=1e-12
        )


def test_no_roll_call_is_a_clear_error(recent: Assembly) -> None:
    with pytest.raises(InputError, match="no roll call"):
        explain_assembly(items=["S/2017/172"], personas=STATES, assembly=recent)
