"""Statistics of Appendix E (run-to-run agreement) (bootstrap intervals: evals/stats/bootstrap.py).

Agreement across repeats: Fleiss' κ and the multi-χ² of the runs × classes table (DirectQA, votes),
Friedman χ² over runs (Association Test). Uncertainty: bootstrap CIs that resample *items*
(drafts, pairs, keywords), because repeats of one item are not independent evidence.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

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


def chi2_critical(dof: float, *, alpha: float = ALPHA) -> float:
    """χ²_{1−α, dof}: the critical value of a test with ``dof`` degrees of freedom (NaN when dof < 1)."""
    if np.isnan(dof) or dof < 1:
        return float("nan")
    from scipy import stats as sps  # imported on use: scipy.stats is ~0.8 s of start-up

    return float(sps.chi2.ppf(1 - alpha, dof))


def chi2_passes(statistic: float, dof: float, *, alpha: float = ALPHA) -> bool | None:
    """Agreement verdict: no significant difference between runs at their own dof.

    None when nothing was tested: a NaN statistic, or fewer than 1 degree of freedom (every run chose
    one and the same class, or one run answered), where χ² is not defined and nothing can pass.
    """
    if np.isnan(statistic) or np.isnan(dof) or dof < 1:
        return None
    return bool(statistic < chi2_critical(dof, alpha=alpha))


def fleiss_kappa(table: Any) -> float:
    """Fleiss' κ of an items × categories count table (every item rated by the same number of runs).

    NaN where κ is not defined (:func:`kappa_undefined` says why): fewer than two ratings per item, or
    one category only over the whole table (p_e = 1, so κ = 0/0 however well the runs agree).
    """
    counts = np.asarray(table, dtype=float)
    if counts.ndim != 2 or counts.shape[0] == 0:
        raise ValueError("fleiss_kappa needs a non-empty items × categories table")
    raters = counts.sum(axis=1)
    if not np.allclose(raters, raters[0]):
        raise ValueError("fleiss_kappa: every item must have the same number of ratings")
    if raters[0] < 2:
        return float("nan")
    from statsmodels.stats import inter_rater  # imported on use, like scipy.stats

    with np.errstate(invalid="ignore", divide="ignore"):
        value = float(inter_rater.fleiss_kappa(counts, method="fleiss"))
    return value


def kappa_undefined(table: Any) -> str | None:
    """Why Fleiss' κ of ``table`` (items × categories) is not defined, or None when it is."""
    counts = np.asarray(table, dtype=float)
    if counts.ndim != 2 or counts.shape[0] == 0:
        return "no item answered in every repeat"
    if counts.sum(axis=1)[0] < 2:
        return "fewer than two repeats per item"
    if (counts.sum(axis=0) > 0).sum() < 2:
        return "one category only over every item and repeat (κ = 0/0)"
    return None


def percent_agreement(table: Any) -> float:
    """The raw agreement κ corrects for chance: the share of agreeing pairs of repeats, averaged over
    items (Fleiss' P̄); with two repeats, the share of items answered the same twice. NaN with no item
    or fewer than two repeats."""
    counts = np.asarray(table, dtype=float)
    if counts.ndim != 2 or counts.shape[0] == 0:
        return float("nan")
    raters = counts.sum(axis=1)
    if (raters < 2).any():
        return float("nan")
    return float(np.mean((counts * (counts - 1)).sum(axis=1) / (raters * (raters - 1))))


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

    The dof returned is that of the table actually tested, (runs answered − 1)(classes chosen − 1);
    with one class chosen the dof is 0 and χ² is not defined (NaN: :func:`chi2_undefined` says why).
    """
    table = np.asarray(counts_by_run, dtype=float)
    if table.ndim != 2:
        raise ValueError("multi_chi2 needs a runs × classes table")
    table = table[:, table.sum(axis=0) > 0]
    table = table[table.sum(axis=1) > 0, :]
    if table.shape[0] < 2:
        return Chi2Result(float("nan"), 0, float("nan"))  # fewer than two runs answered: not tested
    if table.shape[1] < 2:
        return Chi2Result(float("nan"), 0, float("nan"))  # one class chosen: 0 dof, nothing to test
    from scipy import stats as sps  # imported on use: scipy.stats is ~0.8 s of start-up

    result = sps.chi2_contingency(table, correction=False)
    return Chi2Result(float(result.statistic), int(result.dof), float(result.pvalue))


def chi2_undefined(counts_by_run: Any) -> str | None:
    """Why the multi-χ² of a runs × classes table is not defined, or None when it is."""
    table = np.asarray(counts_by_run, dtype=float)
    if table.ndim != 2 or table.sum() == 0:
        return "no valid answer"
    if (table.sum(axis=1) > 0).sum() < 2:
        return "fewer than two repeats answered: zero degrees of freedom"
    if (table.sum(axis=0) > 0).sum() < 2:
        return "one class chosen in every repeat: zero degrees of freedom"
    return None


def friedman_undefined(ranks_by_run: Any) -> str | None:
    """Why the Friedman χ² of a blocks × runs table is not defined, or None when it is."""
    table = np.asarray(ranks_by_run, dtype=float)
    if table.ndim != 2:
        return "no ranking"
    table = table[~np.isnan(table).any(axis=1)]
    if table.shape[1] < 3:
        return "fewer than three repeats"
    if table.shape[0] < 2:
        return "fewer than two nations ranked in every repeat"
    if (table == table[:, :1]).all():
        return "every repeat gave the same ranks: no variation to test (0/0)"
    return None


def friedman(ranks_by_run: Any) -> FriedmanResult:
    """Friedman χ² with runs as treatments (ν = runs − 1) and blocks as rows (e.g. nations' mean ranks).

    Rows with a missing value are dropped; identical ranks in every run leave every block tied, where
    the statistic is 0/0: NaN, not tested (:func:`friedman_undefined` says why).
    """
    table = np.asarray(ranks_by_run, dtype=float)
    if table.ndim != 2:
        raise ValueError("friedman needs a blocks × runs table")
    table = table[~np.isnan(table).any(axis=1)]
    n_runs = table.shape[1]
    if n_runs < 3 or table.shape[0] < 2:
        return FriedmanResult(float("nan"), float("nan"), max(n_runs - 1, 0))
    if (table == table[:, :1]).all():
        return FriedmanResult(float("nan"), float("nan"), n_runs - 1)
    from scipy import stats as sps  # imported on use: scipy.stats is ~0.8 s of start-up

    result = sps.friedmanchisquare(*table.T)
    return FriedmanResult(float(result.statistic), float(result.pvalue), n_runs - 1)
