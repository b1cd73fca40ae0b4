"""Confusion matrices as the page shows them: one compact truth × answer grid per persona (3 votes by
the 3 votes plus invalid and error), shaded by count like a heatmap, side by side.

The long frame (persona, truth, predicted, count) stays in the CSV. Each cell's text is black or white,
whichever contrasts more with its shade (WCAG's ratio, at least 4.5:1 for any shade), at the table's
own size (0.86 rem, about 14 px): a label is never smaller or fainter than the page's text.
With a ``group`` (the Assembly's states: past ``figures.MANY``), one grid per group, its members pooled.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from nationbias.evals.stats.metrics import MISSES, VOTES
from nationbias.evals.tables.paper import persona_order
from nationbias.stores.domain import slug

PREDICTED = [*VOTES, *MISSES]
SHORT = {
    "favour": "favour",
    "against": "against",
    "abstention": "abst.",
    "invalid": "invalid",
    "error": "error",
}
LOW, HIGH = (247, 251, 255), (8, 48, 107)  # the shade of a zero count and of the grid's largest


def _luminance(rgb: tuple[int, int, int]) -> float:
    def channel(c: int) -> float:
        s = c / 255
        return s / 12.92 if s <= 0.03928 else ((s + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    """WCAG 2 contrast ratio of two colours."""
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def shade(count: float, top: float) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """The cell's background for ``count`` of a grid whose largest is ``top``, and its text colour."""
    t = 0.0 if top <= 0 else min(1.0, count / top)
    background = tuple(round(lo + (hi - lo) * t) for lo, hi in zip(LOW, HIGH, strict=True))
    rgb = (int(background[0]), int(background[1]), int(background[2]))
    text = max(((0, 0, 0), (255, 255, 255)), key=lambda c: contrast(rgb, c))
    return rgb, text


def _hex(rgb: tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)


def panels(confusion: pd.DataFrame, *, group: Callable[[str], str] | None = None) -> dict[str, pd.DataFrame]:
    """Truth × predicted count matrices: one per persona (the P5 in the paper's order first), or one per
    ``group`` of personas when given."""
    personas = persona_order(confusion["persona"].unique())
    if group is not None:
        keys = confusion["persona"].map(lambda p: group(str(p)))
        named = {
            f"{g} ({sub['persona'].nunique()} states)": sub for g, sub in confusion.groupby(keys, sort=True)
        }
    else:
        named = {p: confusion[confusion["persona"].eq(p)] for p in personas}
    return {
        name: sub.groupby(["truth", "predicted"])["count"]
        .sum()
        .unstack()
        .reindex(index=list(VOTES), columns=PREDICTED)
        .fillna(0)
        for name, sub in named.items()
    }


def grid_html(name: str, matrix: pd.DataFrame, *, table_id: str) -> str:
    """One persona's grid: rows the recorded vote, columns the answer."""
    top = float(matrix.to_numpy().max()) if matrix.size else 0.0
    head = "".join(f'<th scope="col">{html.escape(SHORT[c])}</th>' for c in matrix.columns)
    rows = []
    for truth, values in matrix.iterrows():
        cells = []
        for value in values:
            background, text = shade(float(value), top)
            cells.append(f'<td style="background:{_hex(background)};color:{_hex(text)}">{int(value)}</td>')
        rows.append(f'<tr><th scope="row">{html.escape(SHORT[str(truth)])}</th>{"".join(cells)}</tr>')
    return (
        f'<table class="grid" id="{html.escape(table_id)}"><caption>{html.escape(name)}</caption>'
        f'<thead><tr><th scope="col">truth ↓ answer →</th>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def confusion_grids(
    confusion: pd.DataFrame,
    *,
    out_dir: Path,
    table_id: str,
    caption: str,
    group: Callable[[str], str] | None = None,
) -> str:
    """The grids of one run side by side under ``caption``, the long frame written to ``<table_id>.csv``."""
    confusion.to_csv(out_dir / f"{table_id}.csv", index=False)
    grids = "".join(
        grid_html(name, matrix, table_id=f"{table_id}-{slug(name, keep='-_', limit=60)}")
        for name, matrix in panels(confusion, group=group).items()
    )
    link = f'<a href="{html.escape(table_id)}.csv" title="{html.escape(table_id)}.csv">CSV</a>'
    return (
        f'<div class="grids" id="{html.escape(table_id)}" role="group" aria-label="{html.escape(caption)}">'
        f'<p class="grids-caption">{html.escape(caption)} {link}</p>{grids}</div>'
    )


CSS = """
.grids { display: flex; flex-wrap: wrap; gap: 0.6rem 1.2rem; margin: 1rem 0 1.6rem; align-items: flex-start; }
.grids-caption { flex-basis: 100%; font-weight: 600; margin: 0; }
table.grid { border-collapse: collapse; font-size: 0.86rem; font-variant-numeric: tabular-nums; }
table.grid caption { font-weight: 600; text-align: left; padding-bottom: 0.2rem; }
table.grid th, table.grid td { border: 1px solid #d0d0d0; padding: 0.2rem 0.45rem; text-align: right;
                               white-space: nowrap; }
table.grid th { background: #f0f4f8; color: #1a1a1a; font-weight: 600; }
"""
