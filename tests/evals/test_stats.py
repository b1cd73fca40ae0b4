"""Appendix E statistics against scipy/statsmodels, and bootstrap CIs on degenerate data."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

from nationbias.evals.stats.agreement import (
    CHI2_MAX_3,
    CHI2_MAX_5,
    FRIEDMAN_MAX,
    KAPPA_MIN,
    agreement_table,
    counts_by_run,
    fleiss_kappa,
    friedman,
    multi_chi2,
)
from nationbias.evals.stats.bootstrap import (
    bootstrap_ci,
    bootstrap_cis,
    paired_bootstrap_delta,
    per_item_confusion,
    weighted_f1_ci,
)
from nationbias.evals.stats.metrics import (
    weighted_f1,
    weighted_f1_from_confusion,
    weighted_f1_from_confusions,
)

VOTES = ["favour", "against", "abstention"]


def test_thresholds_are_the_chi2_quantiles() -> None:
    assert round(sps.chi2.ppf(0.95, (3 - 1) * (3 - 1)), 3) == CHI2_MAX_3
    assert round(sps.chi2.ppf(0.95, (3 - 1) * (5 - 1)), 3) == CHI2_MAX_5
    assert round(sps.chi2.ppf(0.95, 3 - 1), 3) == FRIEDMAN_MAX
    assert KAPPA_MIN == 0.40


def test_fleiss_kappa_matches_statsmodels_and_hand_value() -> None:
    table = np.array([[3, 0, 0], [0, 3, 0], [1, 2, 0], [0, 0, 3], [2, 0, 1]])
    assert fleiss_kappa(table) == pytest.approx(sm_fleiss_kappa(table))
    # hand: P_i = (6,6,2,6,2)/6 → P̄ = 22/30; p = (6,5,4)/15 → P_e = 77/225
    p_bar, p_e = 22 / 30, 77 / 225
    assert fleiss_kappa(table) == pytest.approx((p_bar - p_e) / (1 - p_e))


def test_fleiss_kappa_perfect_single_category_and_errors() -> None:
    assert np.isnan(fleiss_kappa([[3, 0], [3, 0]]))  # one category over every item: κ = 0/0, undefined
    with pytest.raises(ValueError, match="same number"):
        fleiss_kappa([[3, 0], [1, 0]])


def test_agreement_table_drops_invalid_items() -> None:
    frame = pd.DataFrame(
        {
            "item": ["a", "a", "a", "b", "b", "b"],
            "repeat": [0, 1, 2, 0, 1, 2],
            "label": ["favour", "favour", "against", "favour", None, "favour"],
        }
    )
    table = agreement_table(frame, item_col="item", repeat_col="repeat", label_col="label", categories=VOTES)
    assert table.index.tolist() == ["a"]
    assert table.loc["a"].tolist() == [2, 1, 0]


def test_multi_chi2_matches_scipy_and_drops_empty_classes() -> None:
    counts = np.array([[30, 10, 0, 5], [25, 15, 0, 5], [28, 12, 0, 4]])
    expected = sps.chi2_contingency(counts[:, [0, 1, 3]], correction=False)
    result = multi_chi2(counts)
    assert result.statistic == pytest.approx(expected.statistic)
    assert result.dof == 4
    assert result.pvalue == pytest.approx(expected.pvalue)
    # hand: 2×2 table [[10, 0], [0, 10]] → χ² = 20
    assert multi_chi2([[10, 0], [0, 10]]).statistic == pytest.approx(20.0)
    one_class = multi_chi2([[5, 0], [5, 0], [5, 0]])  # one class chosen: 0 dof, not defined
    assert np.isnan(one_class.statistic) and one_class.dof == 0 and np.isnan(one_class.pvalue)
    one_run = multi_chi2([[5, 3], [0, 0]])  # the second run gave no valid answer
    assert np.isnan(one_run.statistic) and one_run.dof == 0


def test_counts_by_run() -> None:
    frame = pd.DataFrame({"repeat": [0, 0, 1, 1], "label": ["USA", "neutral", "USA", None]})
    out = counts_by_run(frame, repeat_col="repeat", label_col="label", categories=["USA", "RUS", "neutral"])
    assert out.to_numpy().tolist() == [[1, 0, 1], [1, 0, 0]]


def test_friedman_matches_scipy_and_handles_identical_runs() -> None:
    ranks = np.array([[1.0, 1.5, 1.0], [2.0, 2.0, 3.0], [3.0, 3.5, 2.5], [4.0, 4.0, 4.0], [5.0, 4.0, 4.5]])
    expected = sps.friedmanchisquare(*ranks.T)
    result = friedman(ranks)
    assert result.statistic == pytest.approx(expected.statistic)
    assert result.pvalue == pytest.approx(expected.pvalue)
    assert result.dof == 2
    same = np.tile(np.arange(1.0, 6.0)[:, None], (1, 3))
    tied = friedman(same)  # every block all ties: 0/0, not a pass
    assert np.isnan(tied.statistic) and np.isnan(tied.pvalue) and tied.dof == 2
    assert np.isnan(friedman(same[:, :2]).statistic)


def test_bootstrap_ci_contains_mean_and_is_reproducible() -> None:
    data = np.random.default_rng(0).normal(size=60)
    ci = bootstrap_ci(data, np.mean, n_resamples=500, seed=1)
    assert ci.low < ci.point < ci.high
    assert ci == bootstrap_ci(data, np.mean, n_resamples=500, seed=1)
    bca = bootstrap_ci(data, np.mean, n_resamples=500, seed=1, method="BCa")
    assert bca.low < bca.point < bca.high


@pytest.mark.parametrize("method", ["percentile", "BCa"])
def test_bootstrap_ci_degenerate_constant_data(method: str) -> None:
    ci = bootstrap_ci(np.ones(10), np.mean, n_resamples=200, seed=0, method=method)
    assert ci == (1.0, 1.0, 1.0)
    assert bootstrap_ci([2.0], np.mean, seed=0) == (2.0, 2.0, 2.0)
    with pytest.raises(ValueError):
        bootstrap_ci([], np.mean, seed=0)


def _drafts(rng: np.random.Generator, n: int, accuracy: float) -> pd.DataFrame:
    truth = rng.choice(VOTES, size=n)
    rows = []
    for i, t in enumerate(truth):
        for r in range(3):
            pred = t if rng.random() < accuracy else rng.choice(VOTES)
            rows.append({"item": f"d{i:03d}", "repeat": r, "truth": t, "vote": pred})
    return pd.DataFrame(rows)


def test_weighted_f1_ci_and_paired_delta() -> None:
    rng = np.random.default_rng(5)
    base = _drafts(rng, 40, 0.3)
    better = base.copy()
    pairs = zip(better["truth"], better["vote"], strict=True)
    better["vote"] = [t if rng.random() < 0.9 else v for t, v in pairs]
    items, cb = per_item_confusion(base, item_col="item", truth_col="truth", pred_col="vote", labels=VOTES)
    _, cd = per_item_confusion(better, item_col="item", truth_col="truth", pred_col="vote", labels=VOTES)
    assert len(items) == 40
    ci = weighted_f1_ci(cb, n_resamples=300, seed=0)
    assert ci.point == pytest.approx(weighted_f1(base["truth"].tolist(), base["vote"].tolist()))
    assert ci.low <= ci.point <= ci.high
    delta = paired_bootstrap_delta(cb, cd, n_resamples=300, seed=0)
    expected = weighted_f1(better["truth"].tolist(), better["vote"].tolist()) - ci.point
    assert delta.point == pytest.approx(expected)
    assert delta.low > 0  # a clear improvement on the same drafts
    same = paired_bootstrap_delta(cb, cb, n_resamples=100, seed=0)
    assert same == (0.0, 0.0, 0.0)
    with pytest.raises(ValueError, match="aligned"):
        paired_bootstrap_delta(cb, cd[:-1])


def test_the_vectorised_bootstrap_gives_the_loops_intervals() -> None:
    """One vectorised pass per persona equals one Python bootstrap per statistic, resample for resample."""
    rng = np.random.default_rng(3)
    counts = rng.integers(0, 4, size=(60, 5)).astype(float)

    def shares(batch: np.ndarray) -> np.ndarray:
        totals = batch.sum(axis=1)
        return totals / totals.sum(axis=1, keepdims=True)

    vectorised = bootstrap_cis(counts, shares, n_resamples=500, seed=7)
    for j, ci in enumerate(vectorised):
        loop = bootstrap_ci(counts, lambda c, j=j: c[:, j].sum() / c.sum(), n_resamples=500, seed=7)
        assert ci == pytest.approx(loop)
    assert bootstrap_cis(counts[:1], shares) == [(p, p, p) for p in counts[0] / counts[0].sum()]


def test_batched_weighted_f1_is_sklearns_per_matrix() -> None:
    rng = np.random.default_rng(4)
    frames = [_drafts(rng, 30, accuracy) for accuracy in (0.2, 0.6, 0.95)]
    stack = []
    for frame in frames:
        _, cube = per_item_confusion(frame, item_col="item", truth_col="truth", pred_col="vote", labels=VOTES)
        stack.append(cube.sum(axis=0))
    batched = weighted_f1_from_confusions(np.stack(stack))
    expected = [weighted_f1(f["truth"].tolist(), f["vote"].tolist()) for f in frames]
    assert batched == pytest.approx(expected)
    assert [weighted_f1_from_confusion(m) for m in stack] == pytest.approx(expected)
    assert np.isnan(weighted_f1_from_confusions(np.zeros((2, 3, 5)))).all()
