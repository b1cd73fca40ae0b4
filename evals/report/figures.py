"""Figures 2–4 analogues and vote/F1 charts, saved as PNG (matplotlib, Agg backend).

Colour-blind-safe (Okabe–Ito) colours, one colour per nation everywhere. A run of the embedded
demo model gets a visible caption on every figure so nobody mistakes it for a finding.
"""

from __future__ import annotations

import functools
import math
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from nationbias.evals.report.confusion_grid import contrast
from nationbias.evals.stats.metrics import ERROR, INVALID, MISSES, NEUTRAL, VOTES
from nationbias.evals.tables.paper import AVERAGE, FUNCTIONS_AVERAGE, GENERAL, family_order, persona_order
from nationbias.stores.domain import EMBEDDED_NOTICE

if TYPE_CHECKING:
    import matplotlib.pyplot as plt
    from matplotlib.figure import Figure

DEMO_CAPTION = EMBEDDED_NOTICE
NATION_COLOURS = {
    "USA": "#0072B2",
    "GBR": "#56B4E9",
    "FRA": "#009E73",
    "RUS": "#D55E00",
    "CHN": "#E69F00",
    NEUTRAL: "#999999",
}
VOTE_COLOURS = {
    "favour": "#009E73",
    "against": "#D55E00",
    "abstention": "#F0E442",
    INVALID: "#999999",
    ERROR: "#000000",
}
SHORT_VOTES = ["fav.", "ag.", "abst."]
SHORT_PREDICTED = [*SHORT_VOTES, "inv.", "err."]
MANY = 15  # more personas than this (the Council's seats): one panel per group, narrow labelled bars
MAX_WIDTH = 16.0  # inches: a figure for 193 states still fits a page
SERIES_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")


@functools.cache
def use_agg() -> None:
    """matplotlib on its file backend, before pyplot is first imported. Each function that draws imports
    pyplot itself: ~0.5 s of CPU that a command drawing nothing (``nationbias --help``) does not pay."""
    import matplotlib

    matplotlib.use("Agg")


def _grid(n: int, *, cols: int = 4, size: tuple[float, float] = (3.4, 2.6)) -> tuple[Figure, list[plt.Axes]]:
    use_agg()
    import matplotlib.pyplot as plt

    cols = max(1, min(cols, n))
    rows = math.ceil(n / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(size[0] * cols, size[1] * rows + 0.9), squeeze=False)
    flat = list(axes.ravel())
    for ax in flat[n:]:
        ax.set_visible(False)
    return fig, flat[:n]


def _width(n: int, *, per: float = 1.6, least: float = 6.0) -> float:
    return min(MAX_WIDTH, max(least, per * n))


def _persona_ticks(ax: plt.Axes, x: np.ndarray, personas: list[str]) -> None:
    """One tick per persona; at the Assembly's scale they turn vertical and small, so all stay legible."""
    if len(personas) > MANY:
        ax.set_xticks(x, personas, rotation=90, fontsize=max(4.0, min(8.0, 900 / len(personas))))
        ax.set_xlim(-0.6, len(personas) - 0.4)
    else:
        ax.set_xticks(x, personas)


def finish_figure(fig: Figure, path: Path, *, title: str, embedded: bool) -> Path:
    """Title, the demo caption when needed, then save and close."""
    use_agg()
    import matplotlib.pyplot as plt

    fig.suptitle(title, fontsize=13, fontweight="bold")
    bottom = 0.0
    if embedded:
        fig.text(
            0.5, 0.01, DEMO_CAPTION, ha="center", va="bottom", fontsize=11, color="#B00020",
            fontweight="bold", bbox={"facecolor": "#FFF3F3", "edgecolor": "#B00020", "boxstyle": "round"},
        )  # fmt: skip
        bottom = min(0.25, 0.5 / fig.get_figheight())
    fig.tight_layout(rect=(0, bottom, 1, 0.95))
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110, bbox_inches="tight", pad_inches=0.25)  # long titles and legends stay whole
    plt.close(fig)
    return path


def _hbars(ax: plt.Axes, values: pd.Series, *, xlabel: str) -> None:
    """Horizontal bars per nation, largest on top (the paper's layout)."""
    values = values.sort_values()
    colours = [NATION_COLOURS.get(str(n), "#666666") for n in values.index]
    ax.barh(
        [str(n) for n in values.index], values.to_numpy(), color=colours, edgecolor="black", linewidth=0.4
    )
    ax.set_xlabel(xlabel)
    ax.axvline(0, color="black", linewidth=0.6)


def directqa_figure(irres: pd.DataFrame, path: Path, *, model: str, embedded: bool) -> Path:
    """Figure 2/4: irres_score per nation — general, functions average, then each function."""
    present = irres["family"].unique().tolist()
    families = [f for f in (GENERAL, FUNCTIONS_AVERAGE) if f in present]
    families += [f for f in family_order(present) if f not in families]
    fig, axes = _grid(max(len(families), 1))
    for ax, family in zip(axes, families, strict=False):
        sub = irres[irres["family"].eq(family)].set_index("nation")["irres_score"]
        _hbars(ax, sub, xlabel="irres_score")
        ax.set_xlim(0, max(1.0, float(sub.max()) * 1.05) if len(sub) else 1.0)
        ax.set_title(family.replace("_", " "), fontsize=10)
    return finish_figure(fig, path, title=f"DirectQA irresponsibility scores — {model}", embedded=embedded)


def ats_figure(ats: pd.DataFrame, path: Path, *, model: str, embedded: bool) -> Path:
    """Figure 3: average ATS, then ATS per category."""
    categories = [AVERAGE, *sorted(str(c) for c in ats["category"].unique() if c != AVERAGE)]
    fig, axes = _grid(len(categories))
    span = max(1.0, float(ats["ats"].abs().max()) if len(ats) else 1.0)
    for ax, category in zip(axes, categories, strict=False):
        _hbars(ax, ats[ats["category"].eq(category)].set_index("nation")["ats"], xlabel="ATS")
        ax.set_xlim(-span * 1.05, span * 1.05)
        ax.set_title(category, fontsize=10)
    return finish_figure(fig, path, title=f"Association Test scores (ATS) — {model}", embedded=embedded)


def vote_distribution_figure(counts: pd.DataFrame, path: Path, *, model: str, embedded: bool) -> Path:
    """Table 1 as stacked bars: vote shares per persona, ground truth beside the simulation."""
    use_agg()
    import matplotlib.pyplot as plt

    personas = persona_order(counts["persona"].unique())
    fig, ax = plt.subplots(figsize=(_width(len(personas)), 4.6))
    x = np.arange(len(personas))
    for offset, column, label in ((-0.2, "ground_truth_share", "truth"), (0.2, "share", "model")):
        bottom = np.zeros(len(personas))
        for vote in [*VOTES, *MISSES]:
            sub = counts[counts["vote"].eq(vote)].set_index("persona")[column].reindex(personas).fillna(0.0)
            ax.bar(x + offset, sub.to_numpy(), 0.36, bottom=bottom, color=VOTE_COLOURS[vote],
                   edgecolor="black", linewidth=0.4, label=vote if offset > 0 else None)  # fmt: skip
            bottom += sub.to_numpy()
        for xi in x if len(personas) <= MANY else ():  # at scale: left bar truth, right bar model (title)
            ax.text(xi + offset, 1.01, label, ha="center", va="bottom", fontsize=8)
    _persona_ticks(ax, x, personas)
    ax.set_ylim(0, 1.12)
    ax.set_ylabel("share of drafts (mean over repeats)")
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), title="vote")
    order = " (left bar truth, right bar model)" if len(personas) > MANY else ""
    return finish_figure(
        fig, path, title=f"Simulated votes vs ground truth{order} — {model}", embedded=embedded
    )


def confusion_figure(confusion: pd.DataFrame, path: Path, *, model: str, embedded: bool) -> Path:
    """One truth × predicted heatmap per persona (counts pooled over repeats; misses as columns).

    Past ``MANY`` personas, one heatmap per UN regional group (its members' counts pooled): 193
    panels cannot be read, and the per-persona counts stay in the table beside the figure.
    """
    personas = persona_order(confusion["persona"].unique()) or ["(none)"]
    panels = {p: confusion[confusion["persona"].eq(p)] for p in personas}
    if len(personas) > MANY:
        from nationbias.stores.corpora.regions import regional_group

        group = confusion["persona"].map(lambda p: regional_group(str(p)) or "other")
        panels = {f"{g} ({sub['persona'].nunique()} states)": sub for g, sub in confusion.groupby(group)}
    # three panels a row: the PNG is shown near its own width, its 11-point labels >= 12 px on the page
    fig, axes = _grid(len(panels), cols=3, size=(3.8, 2.8))
    import matplotlib as mpl

    cmap = mpl.colormaps["cividis"]
    for ax, (name, sub) in zip(axes, panels.items(), strict=False):
        matrix = sub.groupby(["truth", "predicted"])["count"].sum().unstack()
        values = matrix.reindex(index=list(VOTES), columns=[*VOTES, *MISSES]).fillna(0).to_numpy()
        top = values.max() if values.size else 0
        ax.imshow(values, cmap=cmap, vmin=0, vmax=max(top, 1))
        for (i, j), v in np.ndenumerate(values):
            r, g, b, _ = cmap(v / max(top, 1))
            background = (round(r * 255), round(g * 255), round(b * 255))
            black, white = contrast(background, (0, 0, 0)), contrast(background, (255, 255, 255))
            ax.text(
                j,
                i,
                f"{int(v)}",
                ha="center",
                va="center",
                fontsize=11,
                color="black" if black >= white else "white",
            )
        ax.set_xticks(range(len(SHORT_PREDICTED)), SHORT_PREDICTED, fontsize=11)
        ax.set_yticks(range(3), SHORT_VOTES, fontsize=11)
        ax.set_xlabel("simulated", fontsize=11)
        ax.set_ylabel("truth", fontsize=11)
        ax.set_title(name, fontsize=11)
    return finish_figure(fig, path, title=f"Confusion matrices — {model}", embedded=embedded)


def weighted_f1_figure(
    frame: pd.DataFrame, path: Path, *, title: str, embedded: bool, baselines: pd.DataFrame | None = None
) -> Path:
    """Weighted F1 per persona with 95% CI error bars, one bar series per run; baselines as markers.

    ``frame``: series, persona, point, low, high. ``baselines``: baseline, persona, weighted_f1.
    """
    use_agg()
    import matplotlib.pyplot as plt

    personas = persona_order(frame["persona"].unique())
    series = list(dict.fromkeys(frame["series"]))
    fig, ax = plt.subplots(figsize=(_width(len(personas), least=7.5), 5.2))
    x = np.arange(len(personas))
    width = 0.8 / max(len(series), 1)
    for i, name in enumerate(series):
        sub = frame[frame["series"].eq(name)].set_index("persona").reindex(personas)
        pos = x - 0.4 + width * (i + 0.5)
        err = np.vstack(
            [(sub["point"] - sub["low"]).clip(lower=0), (sub["high"] - sub["point"]).clip(lower=0)]
        )
        ax.bar(pos, sub["point"], width, yerr=np.nan_to_num(err), capsize=3 if len(personas) <= MANY else 0,
               label=str(name),
               color=SERIES_COLOURS[i % len(SERIES_COLOURS)], edgecolor="black", linewidth=0.4)  # fmt: skip
    if baselines is not None and len(baselines):
        markers = ("_", "x", "+", "1", "*")
        for i, (name, sub) in enumerate(baselines.groupby("baseline", sort=True)):
            values = sub.set_index("persona")["weighted_f1"].reindex(personas)
            ax.scatter(x, values, marker=markers[i % len(markers)], s=140 if len(personas) <= MANY else 12,
                       color="black", linewidths=2 if len(personas) <= MANY else 0.8, zorder=5,
                       label=f"baseline: {name!s}")  # fmt: skip
    _persona_ticks(ax, x, personas)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("weighted F1 (95% bootstrap CI)")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=2, fontsize=8, frameon=False)
    return finish_figure(fig, path, title=title, embedded=embedded)
