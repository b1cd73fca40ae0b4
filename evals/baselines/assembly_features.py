"""What was known before each General Assembly roll call, as numbers: the features of the Assembly baselines.

Every feature of a (roll call, state) pair is built from roll calls dated strictly before that roll
call's date (same-day roll calls are not "before"), so one table serves every training window: a row
never depends on anything at or after its own date. Roll calls are rows of a date-sorted vote matrix;
"before" is a prefix of it, found by one ``searchsorted``.

Text similarity uses a stateless hashing vectoriser (no vocabulary or IDF fitted on any corpus), so a
later roll call cannot change an earlier one's neighbours.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
import pandas as pd

from nationbias.stores.corpora.regions import GROUPS, regional_group
from nationbias.stores.corpora.unga import ISSUES, Assembly

CODES = ("Y", "N", "A")  # matrix values 1, 2, 3; 0 is no recorded vote
NEIGHBOURS = 10


@dataclass(frozen=True, eq=False)
class Matrix:
    """The Assembly as arrays: roll calls (date order) × states, with each call's position before it."""

    rcids: np.ndarray  # (n,)
    dates: np.ndarray  # (n,) datetime64[D]
    members: np.ndarray  # (s,) ISO3
    votes: np.ndarray  # (n, s) int8: 0 none, 1 Y, 2 N, 3 A
    start: np.ndarray  # (n,) index of the first roll call on the same date: rows [0, start) are "before"
    titles: np.ndarray  # (n,) normalised titles
    flags: np.ndarray  # (n, f) amend, para, importantvote, issue codes
    groups: np.ndarray  # (s,) regional-group index (len(GROUPS) for unknown)


def matrix(assembly: Assembly) -> Matrix:
    """The vote matrix of ``assembly`` (roll calls already in date order)."""
    calls = assembly.roll_calls
    members = np.array(sorted(assembly.votes["member"].unique()))
    row = pd.Index(calls.index).get_indexer(assembly.votes["rcid"])
    col = np.searchsorted(members, assembly.votes["member"].to_numpy())
    votes = np.zeros((len(calls), len(members)), dtype=np.int8)
    votes[row, col] = assembly.votes["vote"].map({c: i + 1 for i, c in enumerate(CODES)}).to_numpy()
    dates = calls["date"].to_numpy().astype("datetime64[D]")
    flags = calls[["amend", "para", "importantvote", *ISSUES]].to_numpy(dtype=np.float32)
    groups = np.array([GROUPS.index(g) if (g := regional_group(m)) else len(GROUPS) for m in members])
    return Matrix(
        rcids=calls.index.to_numpy(),
        dates=dates,
        members=members,
        votes=votes,
        start=np.searchsorted(dates, dates, side="left"),
        titles=calls["title"].to_numpy(dtype=str),
        flags=flags,
        groups=groups,
    )


def _onehot(votes: np.ndarray) -> np.ndarray:
    """(..., 3) float32 indicators of Y, N, A."""
    return (votes[..., None] == np.arange(1, 4, dtype=np.int8)).astype(np.float32)


def _shares(counts: np.ndarray) -> np.ndarray:
    total = counts.sum(axis=-1, keepdims=True)
    return np.divide(counts, total, out=np.zeros_like(counts), where=total > 0)


def title_precedents(m: Matrix) -> tuple[np.ndarray, np.ndarray]:
    """For each roll call, the latest and second-latest earlier roll call with its title (-1: none)."""
    latest = np.full(len(m.rcids), -1)
    second = np.full(len(m.rcids), -1)
    for rows in pd.Series(np.arange(len(m.rcids))).groupby(m.titles).indices.values():
        if not m.titles[rows[0]]:
            continue
        dates = m.dates[rows]
        before = np.searchsorted(dates, dates, side="left") - 1
        latest[rows] = np.where(before >= 0, rows[np.maximum(before, 0)], -1)
        prior = np.searchsorted(dates, dates[np.maximum(before, 0)], side="left") - 1
        second[rows] = np.where((before >= 0) & (prior >= 0), rows[np.maximum(prior, 0)], -1)
    return latest, second


def _state_latest(m: Matrix, latest: np.ndarray) -> np.ndarray:
    """(n, s) each state's own vote on the latest earlier same-title roll call it voted on (0: none)."""
    out = np.zeros_like(m.votes)
    for rows in pd.Series(np.arange(len(m.rcids))).groupby(m.titles).indices.values():
        if len(rows) < 2 or not m.titles[rows[0]]:
            continue
        votes = m.votes[rows]
        last = np.maximum.accumulate(np.where(votes != 0, np.arange(len(rows))[:, None], 0), axis=0)
        filled = np.take_along_axis(votes, last, axis=0)  # each state's latest vote up to each row
        has = latest[rows] >= 0
        out[rows[has]] = filled[np.searchsorted(rows, latest[rows][has])]
    return out


def neighbours(m: Matrix, texts: list[str], k: int = NEIGHBOURS) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` most similar earlier roll calls by text (indices, -1 padded) and their cosine similarity."""
    from sklearn.feature_extraction.text import HashingVectorizer  # imported on use: sklearn starts slowly

    vectors = HashingVectorizer(
        n_features=2**18, ngram_range=(1, 2), stop_words="english", alternate_sign=False, norm="l2"
    ).transform(texts)
    similarity = (vectors @ vectors.T).toarray().astype(np.float32)
    index = np.full((len(texts), k), -1)
    score = np.zeros((len(texts), k), dtype=np.float32)
    for row, before in enumerate(m.start):
        if before == 0:
            continue
        top = min(k, before)
        candidates = np.argpartition(-similarity[row, :before], top - 1)[:top]
        order = candidates[np.argsort(-similarity[row, candidates], kind="stable")]
        index[row, :top], score[row, :top] = order, similarity[row, order]
    return index, score


@cache
def _cumulative(m: Matrix) -> np.ndarray:
    """(n+1, s, 3) each state's Y/N/A counts over roll calls [0, r)."""
    return np.concatenate([np.zeros((1, *m.votes.shape[1:], 3), np.float32), _onehot(m.votes).cumsum(0)])


def texts_of(assembly: Assembly) -> tuple[str, ...]:
    """Each roll call's text for similarity: its description, else its short title."""
    calls = assembly.roll_calls
    return tuple(d or s for d, s in zip(calls["descr"], calls["short"], strict=True))


@cache
def links(m: Matrix, texts: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each roll call's latest and second-latest same-title precedents and its text neighbours with their
    similarity: the earlier roll calls the features read, computed once for the features and their
    explanations (:mod:`nationbias.evals.baselines.assembly_explain`)."""
    latest, second = title_precedents(m)
    near, sim = neighbours(m, list(texts))
    return latest, second, near, sim


def features(m: Matrix, texts: tuple[str, ...], rows: np.ndarray, cols: np.ndarray) -> pd.DataFrame:
    """The features of the pairs (roll call ``rows[i]``, state ``cols[i]``), each from earlier roll calls."""
    latest, second, near, sim = links(m, texts)
    own_latest = _state_latest(m, latest)
    onehot = _onehot(m.votes)  # (n, s, 3)
    out: dict[str, np.ndarray] = {}

    def put(name: str, values: np.ndarray) -> None:
        if values.ndim == 1:
            out[name] = values
        else:
            for j, code in enumerate(CODES):
                out[f"{name}_{code}"] = values[:, j]

    has, has2 = latest[rows] >= 0, second[rows] >= 0
    prec, prec2 = np.maximum(latest[rows], 0), np.maximum(second[rows], 0)
    put("title_own", _onehot(own_latest[rows, cols]))
    put("title_item_own", _onehot(np.where(has, m.votes[prec, cols], 0)))
    put("title_second_own", _onehot(np.where(has2, m.votes[prec2, cols], 0)))
    call_shares = _shares(onehot.sum(1))  # (n, 3) all states' vote shares on each roll call
    put("title_all", call_shares[prec] * has[:, None])
    put("title_age_years", np.where(has, (m.dates[rows] - m.dates[prec]).astype(float) / 365.25, 99.0))
    group_counts = np.stack([onehot[:, m.groups == g].sum(1) for g in range(len(GROUPS) + 1)], axis=1)
    bloc = group_counts[prec, m.groups[cols]] - onehot[prec, cols]
    put("title_bloc", _shares(bloc) * has[:, None])
    weights = sim[rows] * (near[rows] >= 0)  # (r, k)
    votes_near = onehot[np.maximum(near[rows], 0), cols[:, None]]  # (r, k, 3)
    put("near_own", _shares((votes_near * weights[..., None]).sum(1)))
    put("near1_own", votes_near[:, 0])
    near1, has_near = np.maximum(near[rows, 0], 0), (near[rows, 0] >= 0)[:, None]
    put("near1_all", call_shares[near1] * has_near)
    put("near1_bloc", _shares(group_counts[near1, m.groups[cols]] - onehot[near1, cols]) * has_near)
    put("near1_sim", sim[rows, 0])
    cumulative = _cumulative(m)
    before = m.start[rows]
    year_ago = np.searchsorted(m.dates, m.dates[rows] - np.timedelta64(365, "D"), side="left")
    put("recent_own", _shares(cumulative[before, cols] - cumulative[year_ago, cols]))
    put("history_own", _shares(cumulative[before, cols]))
    for j, code in enumerate(("amend", "para", "important", *ISSUES)):
        out[f"flag_{code}"] = m.flags[rows, j]
    for j, code in enumerate(ISSUES):
        issue_counts = _issue_cumulative(m, j)
        out[f"issue_{code}_N"], out[f"issue_{code}_A"] = _shares(issue_counts[before, cols])[:, 1:].T
    out["group"] = m.groups[cols].astype(np.float32)
    return pd.DataFrame(out)


@cache
def _issue_cumulative(m: Matrix, issue: int) -> np.ndarray:
    """(n+1, s, 3) each state's counts over earlier roll calls carrying issue code ``issue``."""
    marked = _onehot(m.votes) * m.flags[:, 3 + issue, None, None]
    return np.concatenate([np.zeros((1, *marked.shape[1:]), np.float32), marked.cumsum(0)])
