"""The p-values behind the report's per-nation claims, one test per kind of claim, each with its null.

- :func:`binomial_share_test`: a nation named more (or less) often than under no preference (DirectQA).
- :func:`stratified_t_test`: a mean of item scores against a value, over one or several strata, judged at
  its own (Welch–Satterthwaite) degrees of freedom (ATS against 0, a vote share against the record).
- :func:`bootstrap_distribution` and :func:`bootstrap_pvalue`: a bootstrapped statistic against a value,
  from the very resamples behind the report's interval (a debias delta against 0, a model's weighted F1
  against a baseline's), so the p-value and the interval never disagree.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np
from scipy import stats as sps


class Outcome(NamedTuple):
    """A test's outcome: the estimate the report shows, the test statistic, its dof (NaN: none) and p."""

    estimate: float
    statistic: float
    df: float
    p: float


NOT_TESTED = Outcome(float("nan"), float("nan"), float("nan"), float("nan"))


def binomial_share_test(count: int, trials: int) -> float:
    """Two-sided exact binomial p-value of ``count`` successes in ``trials`` against one half.

    DirectQA's null of no preference: when a nation is one of the two in a question and the model names
    one of the two, it names this nation with probability 1/2 (every pair is asked in both orders, so the
    position is balanced). Neutral and failed answers name nobody: they count in the paper's N (the
    irres_score's denominator) but are no trial here. NaN when there was no trial.
    """
    if trials < 0 or not 0 <= count <= trials:
        raise ValueError(
            f"binomial_share_test: need 0 <= count <= trials, got count={count}, trials={trials}"
        )
    if trials == 0:
        return float("nan")
    return float(sps.binomtest(int(count), int(trials), 0.5, alternative="two-sided").pvalue)


def stratified_t_test(
    strata: Sequence[Sequence[float]] | Sequence[np.ndarray], *, null: float = 0.0
) -> Outcome:
    """t-test of the mean over strata of each stratum's mean (e.g. the ATS average over categories) against
    ``null``, each stratum's items independent.

    The standard error is √(Σ s²ₖ/nₖ)/K and the dof Welch–Satterthwaite's, (Σ s²ₖ/nₖ)² / Σ (s²ₖ/nₖ)²/(nₖ−1);
    with one stratum this is the one-sample t-test on nₖ − 1 dof. Not tested (NaN) when a stratum has fewer
    than two items, or when no item varies (the t-statistic is undefined); p = 1 when every item equals
    ``null``.
    """
    groups = [np.asarray(g, dtype=float) for g in strata]
    groups = [g[~np.isnan(g)] for g in groups]
    if not groups or any(len(g) == 0 for g in groups):
        return NOT_TESTED
    estimate = float(np.mean([g.mean() for g in groups]))
    if any(len(g) < 2 for g in groups):
        return Outcome(estimate, float("nan"), float("nan"), float("nan"))
    parts = np.array([g.var(ddof=1) / len(g) for g in groups])
    if parts.sum() == 0:
        if all((g == null).all() for g in groups):
            return Outcome(estimate, 0.0, float("nan"), 1.0)
        return Outcome(estimate, float("nan"), float("nan"), float("nan"))
    k = len(groups)
    se = float(np.sqrt(parts.sum())) / k
    dof = float(
        parts.sum() ** 2 / sum(v**2 / (len(g) - 1) for v, g in zip(parts, groups, strict=True) if v > 0)
    )
    t = (estimate - null) / se
    return Outcome(estimate, float(t), dof, float(2 * sps.t.sf(abs(t), dof)))


def bootstrap_distribution(
    data: Any,
    statistic: Callable[[np.ndarray], np.ndarray],
    *,
    n_resamples: int = 2000,
    seed: int = 0,
) -> tuple[float, np.ndarray]:
    """(point, resampled values) of the first column of a vectorised ``statistic`` over the items of ``data``.

    The resampling is exactly that of :func:`nationbias.evals.stats.bootstrap.bootstrap_cis` (the same call
    of scipy's ``bootstrap``, the same generator and batches), so for the same ``seed`` and ``n_resamples``
    these are the resamples behind the interval the report shows. ``statistic`` maps (B, items, …) to (B, k).
    With one item there is nothing to resample: no values (its p-value is NaN, not tested).
    """
    items = np.asarray(data)
    if len(items) == 0:
        raise ValueError("bootstrap_distribution needs at least one item")
    point = float(np.asarray(statistic(items[None]), dtype=float)[0, 0])
    if len(items) < 2:
        return point, np.array([])  # one item: no spread to read, so not tested

    def on_index(sample: np.ndarray, axis: int = -1) -> np.ndarray:
        return np.asarray(statistic(items[sample.astype(int)]), dtype=float).T

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = sps.bootstrap(
            (np.arange(len(items)),),
            on_index,
            n_resamples=n_resamples,
            vectorized=True,
            batch=200,
            confidence_level=0.95,
            method="percentile",
            rng=np.random.default_rng(seed),
        )
    spread = np.asarray(result.bootstrap_distribution, dtype=float)
    return point, (spread[0] if spread.ndim > 1 else spread)


def bootstrap_pvalue(distribution: Sequence[float] | np.ndarray, *, null: float = 0.0) -> float:
    """Two-sided percentile-bootstrap p-value of a statistic against ``null``: twice the smaller share of
    resamples on either side of it, each share counted (1 + k)/(B + 1) so that it is never 0.

    It is the smallest α at which the (1 − α) percentile interval leaves ``null`` out, so p < 0.05 goes with a
    95% interval that excludes it. NaN resamples (an empty class) are left out; NaN if none is left.
    """
    values = np.asarray(distribution, dtype=float)
    values = values[~np.isnan(values)]
    if len(values) == 0:
        return float("nan")
    b = len(values)
    below = (1 + np.count_nonzero(values <= null)) / (b + 1)
    above = (1 + np.count_nonzero(values >= null)) / (b + 1)
    return float(min(1.0, 2 * min(below, above)))
