"""Bootstrap confidence intervals that resample *items* (drafts, pairs, keywords, roll calls).

Repeats of one item are not independent evidence, so every interval here resamples whole items; the
resampling itself is scipy's ``bootstrap`` (percentile by default, BCa on request).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from nationbias.evals.stats.metrics import weighted_f1_from_confusions


class CI(NamedTuple):
    point: float
    low: float
    high: float


def bootstrap_ci(
    data: Any,
    statistic: Callable[[np.ndarray], float],
    *,
    n_resamples: int = 2000,
    seed: int = 0,
    confidence_level: float = 0.95,
    method: str = "percentile",
) -> CI:
    """CI of ``statistic(data)`` resampling the rows (items) of ``data`` with replacement.

    ``statistic`` gets a resampled array of items. Degenerate data (one item, or every resample
    giving the same value) yields a CI equal to the point estimate instead of an error.
    """
    items = np.asarray(data)
    if len(items) == 0:
        raise ValueError("bootstrap_ci needs at least one item")
    point = float(statistic(items))
    if len(items) < 2:
        return CI(point, point, point)

    def on_index(sample: np.ndarray) -> float:
        return float(statistic(items[sample.astype(int)]))

    result = _bootstrap(len(items), on_index, False, n_resamples, seed, confidence_level, method)
    return _interval(point, result, 0, confidence_level)


def bootstrap_cis(
    data: Any,
    statistic: Callable[[np.ndarray], np.ndarray],
    *,
    n_resamples: int = 2000,
    seed: int = 0,
    confidence_level: float = 0.95,
    method: str = "percentile",
) -> list[CI]:
    """:func:`bootstrap_ci` for a vector of statistics at once, vectorised: resampling items is the same.

    ``statistic`` maps a batch of resamples, shape (B, items, …), to shape (B, k); one CI per column.
    At the Assembly's scale this is what keeps a report in seconds (one numpy pass per batch instead
    of a Python call per resample and per statistic).
    """
    items = np.asarray(data)
    if len(items) == 0:
        raise ValueError("bootstrap_cis needs at least one item")
    points = np.asarray(statistic(items[None]), dtype=float)[0]
    if len(items) < 2:
        return [CI(float(p), float(p), float(p)) for p in points]

    def on_index(sample: np.ndarray, axis: int = -1) -> np.ndarray:
        return np.asarray(statistic(items[sample.astype(int)]), dtype=float).T

    result = _bootstrap(len(items), on_index, True, n_resamples, seed, confidence_level, method)
    return [_interval(float(p), result, j, confidence_level) for j, p in enumerate(points)]


def _bootstrap(
    n: int, on_index: Callable[[np.ndarray], Any], vectorized: bool, n_resamples: int, seed: int,
    confidence_level: float, method: str,
) -> Any:  # fmt: skip
    from scipy import stats as sps  # imported on use: scipy.stats is ~0.8 s of start-up

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return sps.bootstrap(
            (np.arange(n),),
            on_index,
            n_resamples=n_resamples,
            vectorized=vectorized,
            batch=200 if vectorized else None,
            confidence_level=confidence_level,
            method=method,
            rng=np.random.default_rng(seed),
        )


def _interval(point: float, result: Any, j: int, confidence_level: float) -> CI:
    """Column ``j`` of a bootstrap result as a CI; a degenerate spread (resamples all equal) is the point."""
    low = float(np.ravel(result.confidence_interval.low)[j])
    high = float(np.ravel(result.confidence_interval.high)[j])
    if np.isnan(low) or np.isnan(high):
        spread = np.asarray(result.bootstrap_distribution)
        spread = spread[j] if spread.ndim > 1 else spread
        if np.nanmax(spread) == np.nanmin(spread):
            return CI(point, point, point)
        alpha = (1 - confidence_level) / 2
        low, high = (float(v) for v in np.nanquantile(spread, [alpha, 1 - alpha]))
    return CI(point, low, high)


def paired_bootstrap_delta(
    a: Any,
    b: Any,
    *,
    n_resamples: int = 2000,
    seed: int = 0,
    confidence_level: float = 0.95,
) -> CI:
    """CI of weighted F1(b) − weighted F1(a) on the same drafts, resampling drafts jointly.

    ``a`` and ``b`` are per-draft confusion contributions of shape (drafts, K, K + misses) — truth ×
    prediction counts over that draft's repeats (see :func:`per_item_confusion`) — aligned on the
    same drafts.
    """
    ca, cb = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if ca.shape != cb.shape or ca.ndim != 3:
        raise ValueError(
            "paired_bootstrap_delta: need two aligned (drafts, K, K + misses) arrays, "
            f"got {ca.shape} and {cb.shape}"
        )
    stacked = np.stack([ca, cb], axis=1)

    def delta(batch: np.ndarray) -> np.ndarray:
        scores = weighted_f1_from_confusions(batch.sum(axis=1))  # (B, 2): a and b
        return (scores[:, 1] - scores[:, 0])[:, None]

    cis = bootstrap_cis(stacked, delta, n_resamples=n_resamples, seed=seed, confidence_level=confidence_level)
    return cis[0]


def per_item_confusion(
    frame: pd.DataFrame,
    *,
    item_col: str,
    truth_col: str,
    pred_col: str,
    labels: Sequence[str],
    misses: Sequence[str] = (),
) -> tuple[list[Any], np.ndarray]:
    """(items, array items × K × (K + misses)) of truth × prediction counts.

    A prediction in ``misses`` (invalid, error) gets its own column, so it stays in the score as a
    miss; a row whose truth is not a label cannot be scored and is skipped; any other prediction is
    an error, never silently dropped.
    """
    items = sorted(frame[item_col].unique().tolist())
    position = {item: i for i, item in enumerate(items)}
    truth_code = {label: i for i, label in enumerate(labels)}
    pred_code = {label: i for i, label in enumerate([*labels, *misses])}
    out = np.zeros((len(items), len(labels), len(pred_code)))
    for item, truth, pred in zip(frame[item_col], frame[truth_col], frame[pred_col], strict=True):
        if truth not in truth_code:
            continue
        if pred not in pred_code:
            raise ValueError(
                f"per_item_confusion: item {item!r} has prediction {pred!r}; "
                f"expected one of {', '.join(pred_code)}"
            )
        out[position[item], truth_code[truth], pred_code[pred]] += 1
    return items, out


def weighted_f1_ci(confusions: np.ndarray, *, n_resamples: int = 2000, seed: int = 0) -> CI:
    """Bootstrap CI of weighted F1 from per-draft confusion contributions, resampling drafts."""
    (ci,) = bootstrap_cis(
        np.asarray(confusions, dtype=float),
        lambda batch: weighted_f1_from_confusions(batch.sum(axis=1))[:, None],
        n_resamples=n_resamples,
        seed=seed,
    )
    return ci
