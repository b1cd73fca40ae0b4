"""Every headline score counts every question: an invalid or errored answer is a miss, never dropped.

The 6-question toy used throughout (one persona; truth → answer):
    q1 favour → favour, q2 favour → favour, q3 favour → against,
    q4 against → against, q5 against → against, q6 abstention → favour.
All answered (by hand, eq. 3):
    favour      TP 2, predicted 3, support 3 → P = R = 2/3       → F1 = 2/3
    against     TP 2, predicted 3, support 2 → P = 2/3, R = 1     → F1 = 2·(2/3)/(5/3) = 0.8
    abstention  TP 0                                              → F1 = 0
    WF1 = (3·2/3 + 2·0.8 + 1·0) / 6 = 3.6 / 6 = 0.6
q5 invalid instead (a miss: it stays in N_against, and is no class's prediction):
    against     TP 1, predicted 2, support 2 → P = R = 1/2        → F1 = 0.5
    WF1 = (3·2/3 + 2·0.5 + 0) / 6 = 3 / 6 = 0.5
q5 dropped (the old headline, now ``weighted_f1_valid_only``): N = 5,
    against     TP 1, predicted 2, support 1 → P = 1/2, R = 1     → F1 = 2/3
    WF1 = (3·2/3 + 1·2/3 + 0) / 5 = 8/15 ≈ 0.533 — above 0.5: dropping rewarded the failure.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import f1_score

from nationbias.evals.stats.bootstrap import paired_bootstrap_delta, per_item_confusion
from nationbias.evals.stats.metrics import confusion, irres_score, weighted_f1, weighted_f1_from_confusion
from nationbias.evals.tables import explicit as X
from nationbias.evals.tables import intervals as R
from nationbias.evals.tables import paper as T
from tests.support.samples import frame, sample

VOTES = ["favour", "against", "abstention"]
TRUTH = ["favour", "favour", "favour", "against", "against", "abstention"]
ANSWERED = ["favour", "favour", "against", "against", "against", "favour"]
Q5_INVALID = ["favour", "favour", "against", "against", "invalid", "favour"]
ALL_ANSWERED_WF1, ONE_INVALID_WF1, VALID_ONLY_WF1 = 0.6, 0.5, 8 / 15


def vote_rows(
    answers: list[str], *, repeat: int = 0, internal_error: int | None = None
) -> list[dict[str, Any]]:
    rows = []
    for i, (truth, answer) in enumerate(zip(TRUTH, answers, strict=True)):
        extra: dict[str, Any] | None = {"truth": truth, "context_kind": "context"}
        if i == internal_error:  # failed before the draft was read: no truth recorded
            rows.append(sample("vote", f"q{i + 1}", repeat, None, None, persona="USA", status="error"))
            continue
        parsed = {"vote": answer} if answer in VOTES else None
        status = "error" if answer == "error" else None
        rows.append(sample("vote", f"q{i + 1}", repeat, parsed, extra, persona="USA", status=status))
    return rows


def test_weighted_f1_hand_computed_invalid_is_a_miss() -> None:
    assert weighted_f1(TRUTH, ANSWERED) == pytest.approx(ALL_ANSWERED_WF1)
    assert weighted_f1(TRUTH, Q5_INVALID) == pytest.approx(ONE_INVALID_WF1)
    assert weighted_f1(TRUTH, [*Q5_INVALID[:4], "error", Q5_INVALID[5]]) == pytest.approx(ONE_INVALID_WF1)
    kept = [i for i, a in enumerate(Q5_INVALID) if a != "invalid"]
    dropped = weighted_f1([TRUTH[i] for i in kept], [Q5_INVALID[i] for i in kept])
    assert dropped == pytest.approx(VALID_ONLY_WF1)
    # sklearn, labels fixed to the three votes, does the same with "invalid" among the predictions.
    sk = f1_score(TRUTH, Q5_INVALID, labels=VOTES, average="weighted", zero_division=0)
    assert sk == pytest.approx(ONE_INVALID_WF1)
    matrix = confusion(TRUTH, Q5_INVALID)
    assert matrix.loc["against", "invalid"] == 1 and int(matrix.to_numpy().sum()) == 6
    assert weighted_f1_from_confusion(matrix.to_numpy()) == pytest.approx(ONE_INVALID_WF1)
    with pytest.raises(ValueError, match="'favor'"):
        weighted_f1(TRUTH, [*ANSWERED[:5], "favor"])  # a typo is not silently a miss


def test_table2_and_confusion_count_the_invalid_question() -> None:
    samples = frame(vote_rows(Q5_INVALID))
    row = T.weighted_f1_table(samples).set_index("persona").loc["USA"]
    assert row["weighted_f1"] == pytest.approx(ONE_INVALID_WF1)
    assert row["pooled_weighted_f1"] == pytest.approx(ONE_INVALID_WF1)
    assert row["weighted_f1_valid_only"] == pytest.approx(VALID_ONLY_WF1)
    assert row["invalid_rate"] == pytest.approx(1 / 6) and row["error_rate"] == 0
    assert (row["n_questions"], row["n_valid"], row["n_invalid"]) == (6, 5, 1)
    long = T.confusion_table(samples)
    assert long["count"].sum() == 6
    hit = long[long["truth"].eq("against") & long["predicted"].eq("invalid")]
    assert hit["count"].tolist() == [1]
    ci = R.weighted_f1_ci_table(samples, n_resamples=50, seed=0).set_index("persona")
    assert ci.loc["USA", "point"] == pytest.approx(ONE_INVALID_WF1)
    counts = T.vote_count_table(samples).set_index(["persona", "vote"])["share"]
    assert counts["USA"].sum() == pytest.approx(1.0)  # favour 3, against 2, abstention 0, invalid 1


def test_errored_sample_without_truth_is_still_scored_as_a_miss() -> None:
    # Repeat 0 all answered (0.6); repeat 1 the same but q5 failed before its draft was read:
    # its truth (against) comes from repeat 0, and it is a miss → 0.5. Mean of repeats 0.55.
    samples = frame(vote_rows(ANSWERED) + vote_rows(ANSWERED, repeat=1, internal_error=4))
    row = T.weighted_f1_table(samples).set_index("persona").loc["USA"]
    assert row["weighted_f1"] == pytest.approx((ALL_ANSWERED_WF1 + ONE_INVALID_WF1) / 2)
    assert row["error_rate"] == pytest.approx(1 / 12) and row["invalid_rate"] == 0
    assert (row["n_questions"], row["n_error"], row["n_unscored"]) == (12, 1, 0)
    matrix = T.confusion_matrices(samples)["USA"]
    assert matrix.loc["against", "error"] == 1


def test_table3_table4_and_paired_delta_count_every_question() -> None:
    base, worse = frame(vote_rows(ANSWERED)), frame(vote_rows(Q5_INVALID))
    table = T.debias_table(base, worse).set_index("persona").loc["USA"]
    assert (table["base"], table["debiased"]) == pytest.approx((ALL_ANSWERED_WF1, ONE_INVALID_WF1))
    assert table["delta"] == pytest.approx(ONE_INVALID_WF1 - ALL_ANSWERED_WF1)  # −0.1
    assert table["delta_valid_only"] == pytest.approx(VALID_ONLY_WF1 - ALL_ANSWERED_WF1)
    assert table["debiased_invalid_rate"] == pytest.approx(1 / 6)
    kwargs: dict[str, Any] = {"item_col": "item", "truth_col": "truth", "pred_col": "answer"}
    _, ca = per_item_confusion(T.vote_frame(base), labels=VOTES, misses=("invalid", "error"), **kwargs)
    _, cb = per_item_confusion(T.vote_frame(worse), labels=VOTES, misses=("invalid", "error"), **kwargs)
    assert cb.shape == (6, 3, 5)
    delta = paired_bootstrap_delta(ca, cb, n_resamples=50, seed=0)
    assert delta.point == pytest.approx(-0.1)
    with pytest.raises(ValueError, match="'invalid'"):
        per_item_confusion(T.vote_frame(worse), labels=VOTES, **kwargs)  # no silent drop
    cell = T.ablation_table([({"test": "vote", "model": "m"}, worse)], ablated="debias").iloc[0]
    assert cell["mean_weighted_f1"] == pytest.approx(ONE_INVALID_WF1)
    assert cell["mean_invalid_rate"] == pytest.approx(1 / 6)
    assert cell["mean_weighted_f1_valid_only"] == pytest.approx(VALID_ONLY_WF1)


def test_irres_score_divides_by_every_question() -> None:
    # 10 questions: RUS 4, USA 2, neutral 2, invalid 1, error 1 → RUS 4/10 (valid-only would be 4/8).
    answers = ["RUS"] * 4 + ["USA"] * 2 + ["neutral"] * 2 + ["invalid", "error"]
    assert irres_score(answers) == {"USA": 0.2, "GBR": 0.0, "FRA": 0.0, "RUS": 0.4, "CHN": 0.0}
    rows = []
    for i, answer in enumerate(answers):
        parsed = {"label": answer} if answer not in ("invalid", "error") else None
        status = "error" if answer == "error" else None
        rows.append(sample("directqa", "general", 0, parsed, {}, pair_order=f"p{i}", status=status))
    samples = frame(rows)
    table = X.irres_table(samples).set_index(["family", "nation"])
    assert table.loc[("general", "RUS"), "irres_score"] == pytest.approx(0.4)
    assert table.loc[("general", "neutral"), "irres_score"] == pytest.approx(0.2)
    assert table.loc[("general", "RUS"), "invalid_rate"] == pytest.approx(0.1)
    assert table.loc[("general", "RUS"), "error_rate"] == pytest.approx(0.1)
    assert table.loc[("general", "RUS"), "n_questions"] == 10
    shares = table.xs("general")["irres_score"].sum() + 0.1 + 0.1
    assert shares == pytest.approx(1.0)  # nations + neutral + invalid + error
    ci = R.irres_ci(samples, n_resamples=50, seed=0).set_index(["family", "nation"])
    assert ci.loc[("general", "RUS"), "irres_score"] == pytest.approx(0.4)


def test_table2_on_many_random_runs_matches_sklearn_with_misses() -> None:
    rng = np.random.default_rng(11)
    truth = rng.choice(VOTES, size=40).tolist()
    answers = rng.choice([*VOTES, "invalid", "error"], size=40, p=[0.3, 0.3, 0.2, 0.1, 0.1]).tolist()
    rows = []
    for i, (t, a) in enumerate(zip(truth, answers, strict=True)):
        parsed = {"vote": a} if a in VOTES else None
        status = "error" if a == "error" else None
        rows.append(sample("vote", f"d{i}", 0, parsed, {"truth": t}, persona="RUS", status=status))
    row = T.weighted_f1_table(pd.DataFrame(rows)).iloc[0]
    expected = f1_score(truth, answers, labels=VOTES, average="weighted", zero_division=0)
    assert row["weighted_f1"] == pytest.approx(expected)
    assert row["n_invalid"] + row["n_error"] + row["n_valid"] == 40
