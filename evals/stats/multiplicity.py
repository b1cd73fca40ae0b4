"""Correction for multiple comparisons of the report's per-nation claims: Holm (family-wise error rate) and
Benjamini–Hochberg (false discovery rate), each over two families.

A report makes one claim per nation for every test, model and scope (a DirectQA question family, an ATS
category, a baseline, a debias cell). Read alone each p-value is too kind: five nations × several tests ×
several models give many chances for one of them to fall below α by luck. The default family is the
nations of one kind of claim of one test of one run (one model) in one scope: what one figure panel or
one table row claims.
The second family is every claim of the table at once (the whole report). statsmodels'
``multipletests`` does the adjusting; this module only groups and checks.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import numpy as np
import pandas as pd
from statsmodels.stats.multitest import multipletests

ALPHA = 0.05
# What a claim is: which test, run (and its model), scope and nation; its headline statistic and p-value.
CLAIM_KEYS = ("test", "claim", "model", "run", "scope", "nation")
CLAIM_COLUMNS = (*CLAIM_KEYS, "statistic", "p")
# the default family: one kind of claim of one test of one run (one model) in one scope: its nations
FAMILY = ("test", "claim", "run", "scope")
METHODS = {"holm": "holm", "bh": "fdr_bh"}  # our column name → statsmodels' method name
ADJUSTED = tuple(f"p_{m}_{f}" for f in ("family", "report") for m in METHODS)
SURVIVES = tuple(f"survives_{m}_{f}" for f in ("family", "report") for m in METHODS)


_NO_COLLECTION = threading.Lock()


@contextmanager
def _no_full_collection() -> Iterator[None]:
    """statsmodels' Holm ends with ``gc.collect()`` to free its few temporary arrays (reference
    counting frees them anyway): a full pass of the cyclic collector over the whole heap, about 0.2 s
    in a process that holds a corpus, paid once per family. Skipped while it adjusts; nothing else
    changes (a collection never changes a number). One adjustment at a time (a lock), so two threads
    adjusting at once cannot take each other's stand-in for the real ``gc.collect``, put back after."""
    with _NO_COLLECTION:
        collect = gc.collect
        gc.collect = lambda generation=2: 0
        try:
            yield
        finally:
            gc.collect = collect


def adjust_pvalues(p: Sequence[float] | np.ndarray, *, method: str) -> np.ndarray:
    """``p`` adjusted by ``method`` (``holm`` or ``bh``) over the tested values; NaN (not tested) stays NaN
    and does not count in the family's size."""
    if method not in METHODS:
        raise ValueError(f"adjust_pvalues: unknown method {method!r}; choose from {', '.join(METHODS)}")
    values = np.asarray(p, dtype=float)
    out = np.full_like(values, np.nan)
    tested = ~np.isnan(values)
    if tested.any():
        with _no_full_collection():
            out[tested] = multipletests(values[tested], method=METHODS[method])[1]
    return out


def _check(claims: pd.DataFrame, family: Sequence[str], alpha: float) -> None:
    missing = [c for c in (*CLAIM_COLUMNS, *family) if c not in claims.columns]
    if missing:
        raise ValueError(
            f"adjust_claims: missing column(s) {', '.join(dict.fromkeys(missing))}; "
            f"a claims table needs {', '.join(CLAIM_COLUMNS)}"
        )
    if not 0 < alpha < 1:
        raise ValueError(f"adjust_claims: alpha must be in (0, 1), got {alpha}")
    p = pd.to_numeric(claims["p"], errors="coerce")
    bad = claims.index[(p.notna() & ~p.between(0, 1)) | (p.isna() & claims["p"].notna())]
    if len(bad):
        row = claims.loc[bad[0], list(CLAIM_KEYS)].tolist()
        raise ValueError(
            f"adjust_claims: p must be a number in [0, 1] or NaN; claim {row} has {claims.at[bad[0], 'p']!r}"
        )
    duplicated = claims.duplicated(list(CLAIM_KEYS))
    if duplicated.any():
        row = claims.loc[duplicated, list(CLAIM_KEYS)].iloc[0].tolist()
        raise ValueError(f"adjust_claims: claim {row} appears twice")


def adjust_claims(
    claims: pd.DataFrame, *, alpha: float = ALPHA, family: Sequence[str] = FAMILY
) -> pd.DataFrame:
    """``claims`` with each p-value beside its Holm and BH adjustments over its family (``family``: the
    columns that make one; default one test of one run in one scope) and over the whole table, the size
    of each (``m_family``, ``m_report``: tested claims only) and whether each survives at ``alpha``.

    A claim with p NaN was not tested (too little data, no spread): its adjusted values are NaN, it
    counts in no family's size, and it survives nothing.
    """
    _check(claims, family, alpha)
    out = claims.reset_index(drop=True).copy()
    p = pd.to_numeric(out["p"], errors="coerce").to_numpy(float)
    out["p"] = p
    keys = out[list(family)].astype(str).agg("\x1f".join, axis=1) if len(out) else pd.Series(dtype=str)
    tested = pd.Series(~np.isnan(p), index=out.index)
    out["m_family"] = tested.groupby(keys).transform("sum").astype(int) if len(out) else []
    out["m_report"] = int(tested.sum())
    values: dict[str, np.ndarray] = {}
    for method in METHODS:
        family_p = np.full(len(out), np.nan)
        for _, index in out.groupby(keys, sort=False).groups.items():
            rows = np.asarray(out.index.get_indexer(index))
            family_p[rows] = adjust_pvalues(p[rows], method=method)
        values[f"p_{method}_family"] = family_p
        values[f"p_{method}_report"] = adjust_pvalues(p, method=method)
    for column in ADJUSTED:  # family then report, Holm then BH in each
        out[column] = values[column]
    for adjusted, survives in zip(ADJUSTED, SURVIVES, strict=True):
        out[survives] = out[adjusted].lt(alpha)  # NaN (not tested) compares False
    return out


def survivors(adjusted: pd.DataFrame) -> pd.DataFrame:
    """The claims that survive at least one correction (BH over the family is the most lenient)."""
    return adjusted[adjusted[list(SURVIVES)].any(axis=1)]


def survival_counts(adjusted: pd.DataFrame, *, by: Sequence[str] = ("test", "model")) -> pd.DataFrame:
    """Per ``by``: claims made, claims tested and how many survive each correction."""
    keys = list(by)
    grouped = adjusted.groupby(keys, sort=False)
    counts = grouped.size().rename("claims").to_frame()
    counts["tested"] = grouped["p"].count()
    for survives in SURVIVES:
        counts[survives] = grouped[survives].sum().astype(int)
    return counts.reset_index()
