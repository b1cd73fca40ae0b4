"""Statistics of Appendix E (run-to-run agreement) and bootstrap confidence intervals.

Agreement across repeats: Fleiss' κ and the multi-χ² of the runs × classes table (DirectQA, votes),
Friedman χ² over runs (Association Test). Uncertainty: bootstrap CIs that resample *items*
(drafts, pairs, keywords), because repeats of one item are not independent evidence.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
from scipy import stats as sps
from statsmodels.stats import inter_rater

from evals.metrics import weighted_f1_from_confusions

# The paper's thresholds (α = 0.05); tests re-derive them from scipy.stats.chi2.ppf. They hold only
# for 3 runs and every class present: verdicts use chi2_critical(dof) of the table actually tested,
# and these stay beside it as the paper's reference.
ALPHA = 0.05
KAPPA_MIN = 0.40  # Landis & Koch "moderate"; pass when κ > 0.40
CHI2_MAX_3 = 9.488  # χ²_{0.95, 4}: 3 runs × 3 vote options
CHI2_MAX_5 = 15.507  # χ²_{0.95, 8}: 3 runs × 5 nations
FRIEDMAN_MAX = 5.991  # χ²_{0.95, 2}: 3 runs


class Chi2Result(NamedTuple):
    statistic: float
    dof: int
    pvalue: float


class FriedmanResult(NamedTuple):
    statistic: float
    pvalue: float
    dof: int


class CI(NamedTuple):
    point: float
    low: float
    high: float


def chi2_critical(dof: float, *, alpha: float = ALPHA) -> float:
    """χ²_{1−α, dof}: the critical value of a test with ``dof`` degrees of freedom (NaN when dof < 1)."""
    if np.isnan(dof) or dof < 1:
        return float("nan")
    return float(sps.chi2.ppf(1 - alpha, dof))


def chi2_passes(statistic: float, dof: float, *, alpha: float = ALPHA) -> bool | None:
    """Agreement verdict: no significant difference between runs at their own dof.

    None when nothing was tested (NaN statistic); True for dof 0 with χ² = 0 (every run chose one
    and the same class, so the runs cannot differ).
    """
    if np.isnan(statistic):
        return None
    if np.isnan(dof) or dof < 1:
        return bool(statistic == 0)
    return bool(statistic < chi2_critical(dof, alpha=alpha))


def fleiss_kappa(table: Any) -> float:
    """Fleiss' κ of an items × categories count table (every item rated by the same number of runs)."""
    counts = np.asarray(table, dtype=float)
    if counts.ndim != 2 or counts.shape[0] == 0:
        raise ValueError("fleiss_kappa needs a non-empty items × categories table")
    raters = counts.sum(axis=1)
    if not np.allclose(raters, raters[0]):
        raise ValueError("fleiss_kappa: every item must have the same number of ratings")
    if raters[0] < 2:
        return float("nan")
    with np.errstate(invalid="ignore", divide="ignore"):
        value = float(inter_rater.fleiss_kappa(counts, method="fleiss"))
    if np.isnan(value) and (counts.max(axis=1) == raters).all():
        # Every item got one category from every run, but only one category occurs overall:
        # perfect agreement that κ cannot express (p_e = 1). Report it as 1.
        return 1.0
    return value


def agreement_table(
    frame: pd.DataFrame, *, item_col: str, repeat_col: str, label_col: str, categories: Sequence[str]
) -> pd.DataFrame:
    """Items × categories counts over repeats, for Fleiss' κ.

    Rows with a label outside ``categories`` (invalid answers) are dropped, then only items answered
    in every repeat are kept, since κ needs equal raters per item. Callers count what was dropped.
    """
    valid = frame[frame[label_col].isin(list(categories))]
    n_repeats = frame[repeat_col].nunique()
    per_item = valid.groupby(item_col)[repeat_col].nunique()
    complete = per_item[per_item == n_repeats].index
    kept = valid[valid[item_col].isin(complete)]
    table = pd.crosstab(kept[item_col], kept[label_col]).reindex(columns=list(categories), fill_value=0)
    table.columns.name = None
    return table.astype(int)


def counts_by_run(
    frame: pd.DataFrame, *, repeat_col: str, label_col: str, categories: Sequence[str]
) -> pd.DataFrame:
    """Runs × categories counts, for the multi-χ²; invalid labels are left out."""
    valid = frame[frame[label_col].isin(list(categories))]
    table = pd.crosstab(valid[repeat_col], valid[label_col]).reindex(columns=list(categories), fill_value=0)
    table.columns.name = None
    return table.astype(int)


def multi_chi2(counts_by_run: Any) -> Chi2Result:
    """χ² test of homogeneity of the runs × classes table; classes never chosen are dropped.

    The dof returned is that of the table actually tested, (runs answered − 1)(classes chosen − 1).
    """
    table = np.asarray(counts_by_run, dtype=float)
    if table.ndim != 2:
        raise ValueError("multi_chi2 needs a runs × classes table")
    table = table[:, table.sum(axis=0) > 0]
    table = table[table.sum(axis=1) > 0, :]
    if table.shape[0] < 2:
        return Chi2Result(float("nan"), 0, float("nan"))  # fewer than two runs answered: not tested
    if table.shape[1] < 2:
        return Chi2Result(0.0, 0, 1.0)  # every run chose the same one class: no difference to test
    result = sps.chi2_contingency(table, correction=False)
    return Chi2Result(float(result.statistic), int(result.dof), float(result.pvalue))


def friedman(ranks_by_run: Any) -> FriedmanResult:
    """Friedman χ² with runs as treatments (ν = runs − 1) and blocks as rows (e.g. nations' mean ranks).

    Rows with a missing value are dropped; identical ranks in every run give χ² = 0, p = 1.
    """
    table = np.asarray(ranks_by_run, dtype=float)
    if table.ndim != 2:
        raise ValueError("friedman needs a blocks × runs table")
    table = table[~np.isnan(table).any(axis=1)]
    n_runs = table.shape[1]
    if n_runs < 3 or table.shape[0] < 2:
        return FriedmanResult(float("nan"), float("nan"), max(n_runs - 1, 0))
    if (table == table[:, :1]).all():
        return FriedmanResult(0.0, 1.0, n_runs - 1)
    result = sps.friedmanchisquare(*table.T)
    return FriedmanResult(float(result.statistic), float(result.pvalue), n_runs - 1)


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
