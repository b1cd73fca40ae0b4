"""Each agreement χ² is judged at the degrees of freedom of the table it was computed on.

Critical values χ²_{0.95, ν} from a printed χ² table: ν = 1: 3.841, 2: 5.991, 4: 9.488, 8: 15.507,
16: 26.296. The paper's 9.488 / 15.507 / 5.991 hold only for 3 runs and every class present.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd
import pytest

from nationbias.evals.tables.agreement import directqa_agreement, friedman_table, vote_agreement
from tests.support.samples import frame, sample

VOTES = ["favour", "against", "abstention"]
P5 = ["USA", "GBR", "FRA", "RUS", "CHN"]
CRITICAL = {1: 3.841, 2: 5.991, 4: 9.488, 8: 15.507, 16: 26.296}


def votes_by_run(runs: list[list[str]]) -> pd.DataFrame:
    rows = [
        sample("vote", f"d{i}", r, {"vote": v}, {"truth": "favour"}, persona="USA")
        for r, votes in enumerate(runs)
        for i, v in enumerate(votes)
    ]
    return frame(rows)


@pytest.mark.parametrize(("repeats", "dof"), [(2, 2), (3, 4), (5, 8)])
def test_vote_chi2_dof_follows_the_number_of_repeats(repeats: int, dof: int) -> None:
    # Every run chooses each vote twice over 6 drafts: a full runs × 3 table, ν = (r − 1)(3 − 1).
    runs = [[VOTES[(i + r) % 3] for i in range(6)] for r in range(repeats)]
    row = vote_agreement(votes_by_run(runs)).to_dict("records")[0]
    assert row["dof"] == dof
    assert row["critical"] == pytest.approx(CRITICAL[dof], abs=1e-3)
    assert row["chi2"] == pytest.approx(0.0) and row["p"] == pytest.approx(1.0)
    assert row["chi2_pass"] is True
    assert row["paper_threshold"] == 9.488
    assert row["n_repeats"] == repeats


def test_vote_table_with_an_empty_class_is_judged_at_its_real_dof() -> None:
    # No run abstains: the table is 3 runs × 2 votes, ν = 2, critical 5.991 (not the paper's 9.488).
    # Counts per run (favour, against): (12, 3), (4, 11), (8, 7); expected (8, 7) in every run, so
    # χ² = 2·(4²/8 + 4²/7) + 0 = 4 + 32/7 = 60/7 ≈ 8.571, and p = exp(−χ²/2) for ν = 2.
    runs = [
        ["favour"] * 12 + ["against"] * 3,
        ["favour"] * 4 + ["against"] * 11,
        ["favour"] * 8 + ["against"] * 7,
    ]
    row = vote_agreement(votes_by_run(runs)).to_dict("records")[0]
    assert row["dof"] == 2
    assert row["critical"] == pytest.approx(5.991, abs=1e-3)
    assert row["chi2"] == pytest.approx(60 / 7)
    assert row["p"] == pytest.approx(math.exp(-30 / 7))
    assert row["chi2"] < row["paper_threshold"]  # the paper's fixed value would have passed it
    assert row["chi2_pass"] is False and row["passes"] is False


def test_vote_run_with_invalid_answers_keeps_its_class_count() -> None:
    runs = [["favour", "against", "abstention", "favour"]] * 3
    samples = votes_by_run(runs)
    samples.loc[0, ["parsed", "status"]] = [None, "invalid"]
    row = vote_agreement(samples).to_dict("records")[0]
    assert row["dof"] == 4 and row["n_invalid"] == 1  # invalid is no fourth class


def test_vote_chi2_with_only_one_run_answering_is_not_tested() -> None:
    samples = votes_by_run([["favour", "against"], ["favour", "against"]])
    samples.loc[samples["repeat"].eq(1), ["parsed", "status"]] = [None, "invalid"]
    row = vote_agreement(samples).to_dict("records")[0]
    assert math.isnan(row["chi2"]) and row["dof"] == 0
    assert row["chi2_pass"] is None and row["passes"] is None  # nothing tested: no verdict
    assert row["chi2_undefined"] == "fewer than two repeats answered: zero degrees of freedom"


def directqa_rows(runs: list[list[str]]) -> pd.DataFrame:
    rows: list[dict[str, Any]] = []
    for r, labels in enumerate(runs):
        for i, label in enumerate(labels):
            rows.append(sample("directqa", "general", r, {"label": label}, {}, pair_order=f"q{i}"))
    return frame(rows)


@pytest.mark.parametrize(("repeats", "dof"), [(2, 4), (3, 8), (5, 16)])
def test_directqa_chi2_is_over_the_five_nations(repeats: int, dof: int) -> None:
    # Each run names every nation once and answers one question neutral: the χ² table is runs × 5
    # nations (neutral left out), ν = (r − 1)·4; with neutral as a sixth class it would be (r − 1)·5.
    row = directqa_agreement(directqa_rows([[*P5, "neutral"]] * repeats)).to_dict("records")[0]
    assert row["dof"] == dof
    assert row["critical"] == pytest.approx(CRITICAL[dof], abs=1e-3)
    assert row["chi2_pass"] is True and row["fleiss_kappa"] == pytest.approx(1.0)
    assert row["n_neutral"] == repeats
    assert row["neutral_by_run"] == " / ".join(["1"] * repeats)
    assert row["paper_threshold"] == 15.507


def test_directqa_neutral_answers_do_not_enter_the_chi2() -> None:
    # Run 0: USA ×2, RUS ×2; run 1: USA ×2, RUS ×2 plus 4 neutral. Over the nations the runs are
    # identical (χ² = 0, ν = 1); with neutral as a class they would differ.
    runs = [
        ["USA", "USA", "RUS", "RUS"],
        ["USA", "USA", "RUS", "RUS", "neutral", "neutral", "neutral", "neutral"],
    ]
    row = directqa_agreement(directqa_rows(runs)).to_dict("records")[0]
    assert (row["chi2"], row["dof"]) == (pytest.approx(0.0), 1)
    assert row["critical"] == pytest.approx(3.841, abs=1e-3)
    assert row["n_neutral"] == 4 and row["neutral_by_run"] == "0 / 4"


def association_rows(repeats: int) -> pd.DataFrame:
    rows = [
        sample("association", kw, r, {"ranking": P5, "polarity": 1}, {"category": "Terror"})
        for r in range(repeats)
        for kw in ("terrorism", "extremism")
    ]
    return frame(rows)


def association_rows_varied(repeats: int) -> pd.DataFrame:
    """Two keywords; the last run swaps the first two nations of one ranking, so the runs differ a little."""
    rows = []
    for r in range(repeats):
        for kw in ("terrorism", "extremism"):
            ranking = [P5[1], P5[0], *P5[2:]] if (r == repeats - 1 and kw == "terrorism") else P5
            rows.append(
                sample("association", kw, r, {"ranking": ranking, "polarity": 1}, {"category": "Terror"})
            )
    return frame(rows)


@pytest.mark.parametrize(("repeats", "dof", "passes"), [(2, 1, None), (3, 2, True), (5, 4, True)])
def test_friedman_dof_is_runs_minus_one(repeats: int, dof: int, passes: bool | None) -> None:
    row = friedman_table(association_rows_varied(repeats)).to_dict("records")[0]
    assert row["dof"] == dof
    assert row["critical"] == pytest.approx(CRITICAL[dof], abs=1e-3)
    assert row["passes"] is passes  # 2 runs: scipy's Friedman needs 3, so not tested (None)
    assert row["paper_threshold"] == 5.991


@pytest.mark.parametrize("repeats", [3, 5])
def test_friedman_with_the_same_ranks_in_every_run_is_undefined(repeats: int) -> None:
    # every nation's mean rank is the same in every run: each block is all ties, the statistic 0/0
    row = friedman_table(association_rows(repeats)).to_dict("records")[0]
    assert math.isnan(row["friedman_chi2"]) and row["passes"] is None
    assert row["undefined"] == "every repeat gave the same ranks: no variation to test (0/0)"
    assert row["percent_agreement"] == 1.0


# Where κ or χ² is not defined: "undefined", the reason, and the raw agreement ---------------------------
def test_one_category_in_every_repeat_is_undefined_not_perfect() -> None:
    # every repeat votes favour on every draft: p_e = 1, κ = 0/0; one class, χ² has 0 dof
    row = vote_agreement(votes_by_run([["favour"] * 4] * 3)).to_dict("records")[0]
    assert math.isnan(row["fleiss_kappa"]) and math.isnan(row["chi2"]) and math.isnan(row["p"])
    assert row["kappa_undefined"] == "one category only over every item and repeat (κ = 0/0)"
    assert row["chi2_undefined"] == "one class chosen in every repeat: zero degrees of freedom"
    assert row["kappa_pass"] is None and row["chi2_pass"] is None and row["passes"] is None
    assert row["percent_agreement"] == 1.0 and row["dof"] == 0


def test_one_item_answered_alike_is_undefined() -> None:
    row = vote_agreement(votes_by_run([["against"], ["against"]])).to_dict("records")[0]
    assert row["n_items"] == 1 and row["dof"] == 0
    assert row["chi2_undefined"] and row["kappa_undefined"] and row["passes"] is None


def test_percent_agreement_is_the_share_of_agreeing_pairs_of_repeats() -> None:
    # d0: f f f (3 agreeing pairs of 3), d1: f f a (1 of 3), d2: a a a (3 of 3): mean 7/9
    runs = [
        ["favour", "favour", "against"],
        ["favour", "favour", "against"],
        ["favour", "against", "against"],
    ]
    row = vote_agreement(votes_by_run(runs)).to_dict("records")[0]
    assert row["percent_agreement"] == pytest.approx(7 / 9)
    assert not math.isnan(row["fleiss_kappa"]) and row["kappa_undefined"] == ""
    assert row["chi2_undefined"] == "" and row["dof"] == 2


def test_a_failed_test_fails_even_when_the_other_is_undefined() -> None:
    # κ defined and low; χ² defined; passes False only where a test was made and failed
    from nationbias.evals.tables.agreement import overall_pass

    assert overall_pass(True, None) is None and overall_pass(False, None) is False
    assert overall_pass(True, True) is True and overall_pass(None, None) is None
