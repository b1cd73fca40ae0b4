"""Bootstrap intervals for the headline numbers of each test, resampling items (drafts, pairs, keywords)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from nationbias.evals.stats.bootstrap import bootstrap_ci, bootstrap_cis, per_item_confusion, weighted_f1_ci
from nationbias.evals.stats.metrics import NEUTRAL
from nationbias.evals.tables import explicit as X
from nationbias.evals.tables import paper as T
from nationbias.graphs.labels.framing import IRRESPONSIBLE
from nationbias.stores.domain import P5


def vote_share_ci(samples: pd.DataFrame, *, n_resamples: int = 1000, seed: int = 0) -> pd.DataFrame:
    """persona, vote, share, low, high: share of all samples, drafts resampled with their repeats."""
    votes = T.vote_frame(samples)
    labels = [*T.VOTES, *T.MISSES]
    rows = []
    for persona in T.persona_order(votes["persona"].unique()):
        sub = votes[votes["persona"].eq(persona)]
        counts = pd.crosstab(sub["item"], sub["answer"]).reindex(columns=labels, fill_value=0).to_numpy(float)

        def shares(batch: np.ndarray) -> np.ndarray:  # (B, items, labels) -> (B, labels)
            totals = batch.sum(axis=1)
            return totals / totals.sum(axis=1, keepdims=True)

        cis = bootstrap_cis(counts, shares, n_resamples=n_resamples, seed=seed)
        for vote, ci in zip(labels, cis, strict=True):
            rows.append({"persona": persona, "vote": vote, "share": ci.point, "low": ci.low, "high": ci.high})
    return pd.DataFrame(rows, columns=["persona", "vote", "share", "low", "high"])


def weighted_f1_ci_table(samples: pd.DataFrame, *, n_resamples: int = 1000, seed: int = 0) -> pd.DataFrame:
    """persona, point, low, high: pooled weighted F1 over every question (a failed answer is a miss),
    drafts resampled."""
    votes = T.vote_frame(samples)
    votes = votes[votes["truth"].isin(T.VOTES)]
    rows = []
    for persona in T.persona_order(votes["persona"].unique()):
        sub = votes[votes["persona"].eq(persona)]
        _, confusions = per_item_confusion(
            sub, item_col="item", truth_col="truth", pred_col="answer", labels=list(T.VOTES), misses=T.MISSES
        )
        ci = weighted_f1_ci(confusions, n_resamples=n_resamples, seed=seed)
        rows.append({"persona": persona, "point": ci.point, "low": ci.low, "high": ci.high})
    return pd.DataFrame(rows, columns=["persona", "point", "low", "high"])


def irres_ci(samples: pd.DataFrame, *, n_resamples: int = 1000, seed: int = 0) -> pd.DataFrame:
    """family, nation, irres_score, low, high: unordered nation pairs resampled (both orders, all repeats).

    N is every question, as in :func:`nationbias.evals.tables.explicit.irres_table`: failed answers count in
    it. The paper's question only (a mirrored answer is in :mod:`nationbias.evals.tables.framing`).
    """
    qa = X.directqa_frame(samples, framing=IRRESPONSIBLE)
    qa = qa.assign(pair=qa["question"].map(lambda q: "-".join(sorted(str(q).split("-")))))
    labels = [*P5, NEUTRAL, *T.MISSES]
    families = T.family_order(qa["family"].unique())
    pairs = sorted(qa["pair"].unique())
    cube = np.zeros((len(pairs), len(families), len(labels)))
    counts = qa.groupby(["pair", "family", "answer"]).size()
    for key, n in zip(counts.index.tolist(), counts.tolist(), strict=True):
        pair, family, label = key
        cube[pairs.index(pair), families.index(family), labels.index(label)] = n
    functions = [i for i, f in enumerate(families) if f != T.GENERAL]
    scopes = [(f, [i]) for i, f in enumerate(families)]
    if functions:
        scopes.append((T.FUNCTIONS_AVERAGE, functions))
    rows = []
    for family, index in scopes:
        for j, nation in enumerate(labels[: len(P5) + 1]):

            def stat(c: np.ndarray, index: list[int] = index, j: int = j) -> float:
                totals = c[:, index, :].sum(axis=0)
                answered = totals.sum(axis=1)
                return float(
                    np.nanmean(np.where(answered > 0, totals[:, j] / np.maximum(answered, 1), np.nan))
                )

            ci = bootstrap_ci(cube, stat, n_resamples=n_resamples, seed=seed)
            rows.append(
                {"family": family, "nation": nation, "irres_score": ci.point, "low": ci.low, "high": ci.high}
            )
    return pd.DataFrame(rows, columns=["family", "nation", "irres_score", "low", "high"])


def ats_ci(samples: pd.DataFrame, *, n_resamples: int = 1000, seed: int = 0) -> pd.DataFrame:
    """category, nation, ats, low, high: keywords resampled (scores averaged over repeats first)."""
    assoc = X.association_frame(samples)
    columns = ["category", "nation", "ats", "low", "high"]
    if assoc.empty:
        return pd.DataFrame(columns=columns)
    assoc = assoc.assign(score=assoc["polarity"] * (3 - assoc["rank"]))
    wide = assoc.pivot_table(index=["keyword", "category"], columns="nation", values="score", aggfunc="mean")
    wide = wide.reindex(columns=list(P5)).reset_index()
    categories = sorted(wide["category"].unique())
    codes = wide["category"].map(categories.index).to_numpy(float)
    data = np.column_stack([codes, wide[list(P5)].to_numpy(float)])
    rows = []
    for j, nation in enumerate(P5, start=1):
        for category in [*categories, T.AVERAGE]:
            chosen = list(range(len(categories))) if category == T.AVERAGE else [categories.index(category)]

            def stat(d: np.ndarray, chosen: list[int] = chosen, j: int = j) -> float:
                means = [d[d[:, 0] == c, j].mean() if (d[:, 0] == c).any() else np.nan for c in chosen]
                return float(np.nanmean(means))

            ci = bootstrap_ci(data, stat, n_resamples=n_resamples, seed=seed)
            rows.append(
                {"category": category, "nation": nation, "ats": ci.point, "low": ci.low, "high": ci.high}
            )
    return pd.DataFrame(rows, columns=columns)
