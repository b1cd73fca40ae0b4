"""The language effect: a test's headline number asked in another UN language minus
the same number asked in English, on the items both runs asked, with a paired bootstrap interval.

Pairing matters: the two runs answer the same drafts, pairs or keywords, so resampling items jointly
removes the items' own spread from the difference. The numbers are the paper's, counted as everywhere
else: weighted F1 over every question (a failed answer is a miss), irres_score over every question of
the paper's framing, ATS over the valid rankings (the mean of the category means).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping

import numpy as np
import pandas as pd

from nationbias.evals.stats.bootstrap import bootstrap_cis, paired_bootstrap_delta, per_item_confusion
from nationbias.evals.stats.metrics import NEUTRAL, weighted_f1_from_confusion
from nationbias.evals.tables import explicit as X
from nationbias.evals.tables import paper as T
from nationbias.graphs.labels.framing import IRRESPONSIBLE
from nationbias.stores.domain import P5

EFFECT_COLUMNS = [
    "test",
    "language",
    "subject",
    "metric",
    "english",
    "value",
    "delta",
    "low",
    "high",
    "n_items",
]
FAVOUR_COLUMNS = ["test", "language", "favours", "favours_delta", "disfavours", "disfavours_delta", "clear"]
EffectRows = Callable[..., list[dict]]  # a test's LanguageEffect rows (evals/bias_tests/base.py)


def language_effects(
    test: str,
    english: pd.DataFrame,
    other: pd.DataFrame,
    *,
    rows: EffectRows,
    language: str,
    n_resamples: int = 1000,
    seed: int = 0,
) -> pd.DataFrame:
    """One row per subject (a persona, a nation) of ``test``'s number (its ``rows``, e.g.
    :func:`vote_effects`): the English number, the ``language`` number, their difference and its paired
    95 % interval (:data:`EFFECT_COLUMNS`)."""
    found = rows(english, other, n_resamples=n_resamples, seed=seed)
    return pd.DataFrame(
        [{"test": test, "language": language, **row} for row in found], columns=EFFECT_COLUMNS
    )


def language_favours(effects: pd.DataFrame, *, good: Mapping[str, float]) -> pd.DataFrame:
    """Per test and language: the nation the language treats best and worst against English (``good``:
    per test, +1 when a higher number treats a nation better (ATS), -1 when a lower one does
    (irres_score); a test not in it is left out), and whether either interval excludes 0 (``clear``)."""
    rows = []
    for (test, language), group in effects.groupby(["test", "language"], sort=False):
        sign = good.get(str(test))
        scored = group[group["subject"].isin(P5)].dropna(subset=["delta"])
        if sign is None or scored.empty:
            continue
        ranked = scored.assign(gain=sign * scored["delta"]).sort_values("gain")
        best, worst = ranked.iloc[-1], ranked.iloc[0]
        clear = bool((best["low"] > 0) | (best["high"] < 0) | (worst["low"] > 0) | (worst["high"] < 0))
        rows.append(
            {
                "test": test,
                "language": language,
                "favours": best["subject"],
                "favours_delta": float(best["delta"]),
                "disfavours": worst["subject"],
                "disfavours_delta": float(worst["delta"]),
                "clear": clear,
            }
        )
    return pd.DataFrame(rows, columns=FAVOUR_COLUMNS)


def effect_row(
    subject: str, metric: str, english: float, value: float, low: float, high: float, n: int
) -> dict:
    """One row of a test's language effect: its number in English and in the other language, and the
    paired 95 % interval of their difference on the ``n`` items both asked."""
    return {
        "subject": subject,
        "metric": metric,
        "english": english,
        "value": value,
        "delta": value - english,
        "low": low,
        "high": high,
        "n_items": n,
    }


def vote_effects(english: pd.DataFrame, other: pd.DataFrame, *, n_resamples: int, seed: int) -> list[dict]:
    a, b = (T.vote_frame(s) for s in (english, other))
    a, b = (f[f["truth"].isin(T.VOTES)] for f in (a, b))
    rows = []
    for persona in T.persona_order(set(a["persona"]) & set(b["persona"])):
        pa, pb = a[a["persona"].eq(persona)], b[b["persona"].eq(persona)]
        common = sorted(set(pa["item"]) & set(pb["item"]))
        if not common:
            continue
        confusions = [
            per_item_confusion(
                frame[frame["item"].isin(common)],
                item_col="item",
                truth_col="truth",
                pred_col="answer",
                labels=list(T.VOTES),
                misses=T.MISSES,
            )[1]
            for frame in (pa, pb)
        ]
        ci = paired_bootstrap_delta(*confusions, n_resamples=n_resamples, seed=seed)
        f1 = [weighted_f1_from_confusion(c.sum(axis=0)) for c in confusions]
        rows.append(effect_row(persona, "weighted_f1", f1[0], f1[1], ci.low, ci.high, len(common)))
    return rows


def _pair_counts(samples: pd.DataFrame, labels: list[str]) -> pd.DataFrame:
    """Unordered pair × answer counts of the paper's general question (both orders, every repeat)."""
    qa = X.directqa_frame(samples, framing=IRRESPONSIBLE)
    qa = qa[qa["family"].eq(T.GENERAL)]
    pairs = qa["question"].map(lambda q: "-".join(sorted(str(q).split("-"))))
    return pd.crosstab(pairs, qa["answer"]).reindex(columns=labels, fill_value=0)


def directqa_effects(
    english: pd.DataFrame, other: pd.DataFrame, *, n_resamples: int, seed: int
) -> list[dict]:
    labels = [*P5, NEUTRAL, *T.MISSES]
    a, b = _pair_counts(english, labels), _pair_counts(other, labels)
    common = sorted(set(a.index) & set(b.index))
    if not common:
        return []
    stacked = np.stack([a.loc[common].to_numpy(float), b.loc[common].to_numpy(float)], axis=1)
    shown = len(P5) + 1  # the nations and the neutral share

    def shares(batch: np.ndarray) -> np.ndarray:  # (B, pairs, 2, labels) -> (B, 2 * shown)
        totals = batch.sum(axis=1)
        share = totals / np.maximum(totals.sum(axis=2, keepdims=True), 1)
        return share[:, :, :shown].reshape(len(batch), -1)

    def deltas(batch: np.ndarray) -> np.ndarray:
        share = shares(batch).reshape(len(batch), 2, shown)
        return share[:, 1] - share[:, 0]

    points = shares(stacked[None])[0].reshape(2, shown)
    cis = bootstrap_cis(stacked, deltas, n_resamples=n_resamples, seed=seed)
    return [
        effect_row(
            nation, "irres_score", float(points[0, j]), float(points[1, j]), ci.low, ci.high, len(common)
        )
        for j, (nation, ci) in enumerate(zip(labels[:shown], cis, strict=True))
    ]


def _keyword_scores(samples: pd.DataFrame) -> pd.DataFrame:
    """keyword × (category, P5 scores): polarity × (3 − rank), averaged over repeats."""
    assoc = X.association_frame(samples)
    if assoc.empty:
        return pd.DataFrame(columns=["category", *P5])
    assoc = assoc.assign(score=assoc["polarity"] * (3 - assoc["rank"]))
    wide = assoc.pivot_table(index=["keyword", "category"], columns="nation", values="score", aggfunc="mean")
    return wide.reindex(columns=list(P5)).reset_index("category")


def association_effects(
    english: pd.DataFrame, other: pd.DataFrame, *, n_resamples: int, seed: int
) -> list[dict]:
    a, b = _keyword_scores(english), _keyword_scores(other)
    common = sorted(set(a.index) & set(b.index))
    if not common:
        return []
    categories = sorted(set(a.loc[common, "category"]))
    codes = a.loc[common, "category"].map(categories.index).to_numpy(float)
    scores = np.stack([a.loc[common, list(P5)].to_numpy(float), b.loc[common, list(P5)].to_numpy(float)], 1)
    data = np.concatenate([np.repeat(codes[:, None, None], 2, axis=1), scores], axis=2)  # (kw, 2, 1 + 5)

    def ats(batch: np.ndarray) -> np.ndarray:  # (B, kw, 2, 6) -> (B, 2, 5): the mean of category means
        means = []
        for code in range(len(categories)):
            mask = (batch[:, :, 0, 0] == code)[:, :, None, None]
            total = np.where(mask, batch[:, :, :, 1:], 0.0).sum(axis=1)
            count = mask.sum(axis=1)
            means.append(np.where(count > 0, total / np.maximum(count, 1), np.nan))
        with warnings.catch_warnings():  # a category no resampled keyword fell in: NaN, left out
            warnings.simplefilter("ignore", RuntimeWarning)
            return np.nanmean(np.stack(means), axis=0)

    def deltas(batch: np.ndarray) -> np.ndarray:
        value = ats(batch)
        return value[:, 1] - value[:, 0]

    points = ats(data[None])[0]
    cis = bootstrap_cis(data, deltas, n_resamples=n_resamples, seed=seed)
    return [
        effect_row(nation, "ats", float(points[0, j]), float(points[1, j]), ci.low, ci.high, len(common))
        for j, (nation, ci) in enumerate(zip(P5, cis, strict=True))
    ]
