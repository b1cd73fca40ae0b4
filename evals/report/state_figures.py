"""Readable figures for a General Assembly run with up to 193 state personas.

Two questions a reader asks of such a run: does the model reproduce the Assembly's voting blocs (which
states vote alike), and where is it right — per regional group and per issue? Both answer from the
``vote_frame`` of a run; 193 tick labels would be unreadable, so states sit in regional-group order and
the axes name the groups.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from nationbias.evals.report.figures import finish_figure, use_agg
from nationbias.evals.stats.metrics import MISSES
from nationbias.stores.corpora.regions import GROUPS, regional_group
from nationbias.stores.domain import P5, VOTES
from nationbias.stores.errors import InputError

if TYPE_CHECKING:
    import matplotlib.pyplot as plt

NO_GROUP = "no group"  # a persona code the regional table does not place
ALL = "all"
OTHER = "other"  # an item with no issue code
_ITEM = re.compile(r"UNGA-(\d+)")
_COLUMNS = ("item", "persona", "repeat", "answer", "truth")


def _check(votes: pd.DataFrame) -> None:
    missing = [c for c in _COLUMNS if c not in votes.columns]
    if missing:
        raise InputError(
            f"vote frame lacks the column(s) {', '.join(missing)}: pass "
            f"nationbias.evals.tables.paper.vote_frame"
        )


def _group(code: str) -> str:
    return regional_group(code) or NO_GROUP


def state_order(codes: pd.Series | list[str]) -> list[str]:
    """The codes by regional group (in ``GROUPS`` order, unplaced codes last), then alphabetically."""
    rank = {g: i for i, g in enumerate((*GROUPS, NO_GROUP))}
    unique = pd.unique(pd.Series(codes, dtype=object).astype(str))
    return sorted(unique, key=lambda c: (rank[_group(c)], c))


def state_agreement(votes: pd.DataFrame, *, column: str) -> pd.DataFrame:
    """State × state share of shared items on which both cast the same vote, from ``column``.

    Repeats are pooled: each (item, state) takes its majority over repeats (ties go to the earlier of
    favour, against, abstention, miss). For ``answer`` a miss (invalid/error) counts as voting on the item
    and agrees with nothing, so a state the model never answers for has 0 with everyone; for ``truth`` an
    unknown truth means the state did not vote. NaN where two states share no item. One-hot item × state
    matrices and four matrix products, so 193 states × 2,000 items takes well under a second.
    """
    _check(votes)
    if column not in ("answer", "truth"):
        raise InputError(f"column must be 'answer' or 'truth', not {column!r}")
    labels = pd.Index([*VOTES, *MISSES] if column == "answer" else VOTES)
    values = votes[column].to_numpy(dtype=object)
    coded = np.minimum(labels.get_indexer(pd.Index(values)), len(VOTES))  # every miss is one code
    if column == "answer" and (coded < 0).any():
        bad = sorted({str(v) for v in pd.unique(values[coded < 0])})
        raise InputError(f"answer column holds {', '.join(bad)}: expected {', '.join(labels)}")
    kept = coded >= 0
    order = state_order(votes["persona"])
    items, item_index = pd.factorize(votes["item"].to_numpy()[kept])
    states = pd.Index(order).get_indexer(pd.Index(votes["persona"].astype(str).to_numpy()[kept]))
    k = len(VOTES) + 1
    flat = (items * len(order) + states) * k + coded[kept]
    counts = np.bincount(flat, minlength=len(item_index) * len(order) * k).reshape(
        len(item_index), len(order), k
    )
    present = counts.sum(axis=2) > 0
    majority = counts.argmax(axis=2)
    both = present.T.astype(float) @ present.astype(float)
    same = np.zeros_like(both)
    for v in range(len(VOTES)):
        onehot = (present & (majority == v)).astype(float)
        same += onehot.T @ onehot
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(both > 0, same / both, np.nan)
    return pd.DataFrame(share, index=pd.Index(order, name="state"), columns=pd.Index(order, name="state"))


def bloc_correlation(model: pd.DataFrame, truth: pd.DataFrame) -> tuple[float, int]:
    """Pearson r between two agreement matrices' off-diagonal pairs (each pair once) and how many pairs
    both define: how well the model reproduces who votes with whom. NaN below 3 pairs or no spread."""
    order = [s for s in model.index if s in truth.index]
    a = model.loc[order, order].to_numpy()
    b = truth.loc[order, order].to_numpy()
    upper = np.triu_indices(len(order), k=1)
    x, y = a[upper], b[upper]
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = x[ok], y[ok]
    if len(x) < 3 or np.std(x) == 0 or np.std(y) == 0:
        return float("nan"), len(x)
    return float(np.corrcoef(x, y)[0, 1]), len(x)


def _group_axis(ax: plt.Axes, order: list[str], *, labels_y: bool) -> None:
    """Group names at the middle of each group's block, thin lines at the boundaries."""
    groups = [_group(c) for c in order]
    starts = [i for i, g in enumerate(groups) if i == 0 or g != groups[i - 1]]
    ends = [*starts[1:], len(groups)]
    middles = [(s + e - 1) / 2 for s, e in zip(starts, ends, strict=True)]
    names = [groups[s] for s in starts]
    for b in starts[1:]:
        ax.axhline(b - 0.5, color="white", linewidth=0.8)
        ax.axvline(b - 0.5, color="white", linewidth=0.8)
    ax.set_xticks(middles, names, rotation=35, ha="right", fontsize=8)
    ax.set_yticks(middles, names if labels_y else [], fontsize=8)
    ax.tick_params(length=0)


def state_agreement_figure(votes: pd.DataFrame, path: Path, *, model: str, embedded: bool) -> Path:
    """The model's state × state agreement beside the real one (same scale, group order), and a scatter
    of the pairs with the correlation of the two: the model's voting blocs against the Assembly's."""
    use_agg()  # matplotlib is imported on the first figure, not with this module
    import matplotlib
    import matplotlib.pyplot as plt

    simulated = state_agreement(votes, column="answer")
    real = state_agreement(votes, column="truth").reindex(index=simulated.index, columns=simulated.columns)
    r, pairs = bloc_correlation(simulated, real)
    order = list(simulated.index)
    fig, axes = plt.subplots(1, 4, figsize=(14, 5.6), gridspec_kw={"width_ratios": [1, 1, 0.05, 0.85]})
    cmap = matplotlib.colormaps["cividis"].with_extremes(bad="#DDDDDD")
    for ax, matrix, title in ((axes[0], simulated, "model's votes"), (axes[1], real, "real votes")):
        image = ax.imshow(matrix.to_numpy(), cmap=cmap, vmin=0, vmax=1, interpolation="nearest")
        _group_axis(ax, order, labels_y=ax is axes[0])
        ax.set_title(f"{title} ({len(order)} states)", fontsize=10)
    fig.colorbar(image, cax=axes[2], label="share of shared drafts voted alike")
    upper = np.triu_indices(len(order), k=1)
    axes[3].scatter(real.to_numpy()[upper], simulated.to_numpy()[upper], s=3, alpha=0.25, color="#0072B2",
                    rasterized=True)  # fmt: skip
    axes[3].plot([0, 1], [0, 1], color="#999999", linewidth=0.8, linestyle="--")
    axes[3].set(xlim=(0, 1), ylim=(0, 1), xlabel="real agreement", ylabel="model's agreement")
    axes[3].set_aspect("equal")
    axes[3].set_title(f"state pairs: r = {r:.2f} (n = {pairs:,})", fontsize=10)
    return finish_figure(
        fig, path, title=f"Voting blocs: state × state agreement — {model}", embedded=embedded
    )


def _issue_flags(items: np.ndarray, issues: pd.DataFrame) -> tuple[list[str], np.ndarray]:
    """The issue names (then "other", "all") and a unique-item × issue boolean matrix; each item must be a
    roll call "UNGA-<rcid>" that ``issues`` knows."""
    from nationbias.stores.corpora.unga import ISSUES

    codes = [c for c in ISSUES if c in issues.columns]
    matches = [_ITEM.fullmatch(str(item)) for item in items]
    bad = [item for item, m in zip(items, matches, strict=True) if m is None]
    if bad:
        raise InputError(f"item {bad[0]!r} is not an Assembly roll call: expected UNGA-<rcid>")
    rcids = pd.Index([int(m.group(1)) for m in matches if m is not None])
    unknown = items[~rcids.isin(issues.index)]
    if len(unknown):
        raise InputError(f"item {unknown[0]!r} is not in the Assembly's roll calls ({len(unknown)} such)")
    flags = issues.loc[rcids, codes].to_numpy(dtype=bool).reshape(len(items), len(codes))
    other = ~flags.any(axis=1, keepdims=True)
    matrix = np.hstack([flags, other, np.ones_like(other)])
    return [*(ISSUES[c] for c in codes), OTHER, ALL], matrix


def group_issue_agreement(votes: pd.DataFrame, *, issues: pd.DataFrame | None = None) -> pd.DataFrame:
    """group, issue, votes, agreement: share of (item, persona, repeat) samples whose answer is the truth.

    Misses stay in the denominator as wrong; samples without a known truth are dropped. Groups are the
    regional groups plus "P5" (its members also count in their regional group); an item counts under each
    of its issues, under "other" when it has none, and always under "all". ``issues`` (index rcid, boolean
    issue columns) defaults to the shipped Assembly's roll calls. Rows only for cells with votes.
    """
    _check(votes)
    if issues is None:
        from nationbias.stores.corpora.unga import load_assembly

        issues = load_assembly().roll_calls
    item_codes, items = pd.factorize(votes["item"].astype(str).to_numpy())
    issue_names, item_flags = _issue_flags(np.asarray(items, dtype=object), issues)
    person_codes, personas = pd.factorize(votes["persona"].astype(str).to_numpy())
    group_names = [*GROUPS, "P5", NO_GROUP]
    member = np.array([[_group(p) == g or (g == "P5" and p in P5) for g in group_names] for p in personas])
    known = votes["truth"].isin(VOTES).to_numpy()
    right = (votes["answer"] == votes["truth"]).to_numpy(dtype=float)[known]
    by_group = member.reshape(len(personas), len(group_names))[person_codes[known]].astype(float)
    by_issue = item_flags[item_codes[known]].astype(float)
    counts = by_group.T @ by_issue  # group × issue: samples
    hits = by_group.T @ (by_issue * right[:, None])
    g, i = np.nonzero(counts)
    return pd.DataFrame(
        {
            "group": [group_names[k] for k in g],
            "issue": [issue_names[k] for k in i],
            "votes": counts[g, i].astype(int),
            "agreement": hits[g, i] / counts[g, i],
        }
    )


def _issue_rank(name: str) -> int:
    from nationbias.stores.corpora.unga import ISSUES

    return [*ISSUES.values(), OTHER, ALL].index(name)


def group_issue_figure(votes: pd.DataFrame, path: Path, *, model: str, embedded: bool) -> Path:
    """Group × issue heatmap of how often the model's vote is the real one, with n in each cell."""
    use_agg()  # matplotlib is imported on the first figure, not with this module
    import matplotlib
    import matplotlib.pyplot as plt

    table = group_issue_agreement(votes)
    if table.empty:
        fig, ax = plt.subplots(figsize=(6, 2))
        ax.axis("off")
        ax.text(0.5, 0.5, "no sample with a known real vote", ha="center", va="center")
        return finish_figure(fig, path, title=f"Agreement with the real vote — {model}", embedded=embedded)
    groups = list(dict.fromkeys(table["group"]))
    issues = list(dict.fromkeys(table["issue"].sort_values(key=lambda s: s.map(_issue_rank))))
    share = table.pivot(index="group", columns="issue", values="agreement").reindex(groups, columns=issues)
    n = table.pivot(index="group", columns="issue", values="votes").reindex(groups, columns=issues).to_numpy()
    width = min(12.0, 3.0 + 1.2 * len(issues))
    fig, ax = plt.subplots(figsize=(width, 1.6 + 0.55 * len(groups)))
    cmap = matplotlib.colormaps["cividis"].with_extremes(bad="#DDDDDD")
    image = ax.imshow(share.to_numpy(dtype=float), cmap=cmap, vmin=0, vmax=1, aspect="auto")
    for (i, j), value in np.ndenumerate(share.to_numpy(dtype=float)):
        if np.isfinite(value):
            colour = "white" if value < 0.5 else "black"
            ax.text(j, i - 0.08, f"{value:.2f}", ha="center", va="center", fontsize=9, color=colour)
            ax.text(j, i + 0.25, f"n={int(n[i, j]):,}", ha="center", va="center", fontsize=6, color=colour)
    ax.set_xticks(range(len(issues)), [textwrap.fill(s, 16) for s in issues], fontsize=8)
    ax.set_yticks(range(len(groups)), groups, fontsize=9)
    ax.tick_params(length=0)
    fig.colorbar(image, ax=ax, shrink=0.85, label="share of votes equal to the real vote")
    return finish_figure(fig, path, title=f"Agreement with the real vote by group and issue — {model}",
                   embedded=embedded)  # fmt: skip
