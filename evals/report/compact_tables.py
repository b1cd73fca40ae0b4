"""The paper's compact layouts of Tables 1–3, built from the long frames the CSVs keep.

Table 1: one row per nation, a column group per vote with the model's count beside the ground truth
(G.T.), the count's 95% interval under it. Tables 2 and 3: one row per model (the paper's rows), one
column per nation, the 95% interval under each figure. Cells are
:class:`nationbias.evals.report.html_table.Cell`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from nationbias.evals.report.html_table import Cell
from nationbias.evals.stats.metrics import MISSES, VOTES
from nationbias.evals.tables.paper import persona_order

MODEL, TRUTH, PAPER = "model", "G.T.", "paper"
FAILED = "not a vote"


def _num(value: Any) -> float:
    return float(value) if value is not None and not pd.isna(value) else float("nan")


def _interval(low: float, high: float, digits: int, sign: str = "") -> str | None:
    if pd.isna(low) or pd.isna(high):
        return None
    return f"[{low:{sign}.{digits}f}, {high:{sign}.{digits}f}]"


def _figure(value: float, digits: int) -> Cell:
    return Cell("—" if pd.isna(value) else f"{value:.{digits}f}")


def votes_compact(
    counts: pd.DataFrame, ci: pd.DataFrame, *, paper: Mapping[tuple[str, str], float] | None = None
) -> pd.DataFrame:
    """Table 1: nations × (favour, against, abstention) × (model, G.T.[, paper]), then the answers that
    were not a vote (invalid, error) and the drafts.

    ``counts`` is :func:`nationbias.evals.tables.paper.vote_count_table`'s frame (mean count of the repeats),
    ``ci`` the
    share intervals of :func:`nationbias.evals.tables.intervals.vote_share_ci`: a count's interval is its
    share's times the
    drafts. ``paper`` maps (nation, vote) to the paper's count for the same model, when it ran it.
    """
    merged = counts.merge(ci[["persona", "vote", "low", "high"]], on=["persona", "vote"], how="left")
    rows = {}
    for persona in persona_order(merged["persona"]):
        sub = merged[merged["persona"].eq(persona)].set_index("vote")
        n = _num(sub["n_drafts"].iloc[0])
        row: dict[tuple[str, str], Cell] = {}
        for vote in VOTES:
            mean = _num(sub.at[vote, "mean_count"]) if vote in sub.index else float("nan")
            low, high = (
                _num(sub.at[vote, c]) * n if vote in sub.index else float("nan") for c in ("low", "high")
            )
            row[(vote, MODEL)] = Cell(f"{mean:.1f}", under=_interval(low, high, 1))
            row[(vote, TRUTH)] = _figure(
                _num(sub.at[vote, "ground_truth"]) if vote in sub.index else float("nan"), 0
            )
            if paper is not None:
                row[(vote, PAPER)] = _figure(_num(paper.get((persona, vote))), 1)
        for miss in MISSES:
            row[(FAILED, miss)] = _figure(_num(sub.at[miss, "mean_count"]) if miss in sub.index else 0.0, 1)
        row[("drafts", "")] = _figure(n, 0)
        rows[persona] = row
    frame = pd.DataFrame.from_dict(rows, orient="index")
    frame.columns = pd.MultiIndex.from_tuples([tuple(c) for c in frame.columns])
    frame.index.name = "nation"
    return frame


def f1_compact(
    runs: Mapping[str, tuple[str, pd.DataFrame]],
    *,
    plain: Mapping[str, tuple[str, Mapping[str, float]]] | None = None,
    digits: int = 2,
) -> pd.DataFrame:
    """Table 2: one row per model (``label → (run id, frame of persona, point, low, high)``), one column
    per nation, the interval under each figure; ``plain`` rows (the paper's, the baselines') have no
    interval. The ``run`` column names where each row comes from."""
    extra = dict(plain or {})
    nations = persona_order(
        [p for _, f in runs.values() for p in f["persona"]] + [p for _, s in extra.values() for p in s]
    )
    rows: dict[str, dict[str, object]] = {}
    for label, (run_id, frame) in runs.items():
        by = frame.set_index("persona")
        row: dict[str, object] = {"run": run_id}
        for nation in nations:
            if nation not in by.index:
                row[nation] = Cell("—")
                continue
            point, low, high = (_num(by.at[nation, c]) for c in ("point", "low", "high"))
            row[nation] = Cell(_figure(point, digits).text, under=_interval(low, high, digits))
        rows[label] = row
    for label, (source, values) in extra.items():
        rows[label] = {"run": source} | {n: _figure(_num(values.get(n)), digits) for n in nations}
    frame = pd.DataFrame.from_dict(rows, orient="index", columns=["run", *nations])
    frame.index.name = "model"
    return frame


def debias_compact(
    table: pd.DataFrame, *, base: tuple[str, str], debiased: tuple[str, str], digits: int = 2
) -> pd.DataFrame:
    """Table 3 for one model: the base row, then the debiased row as the paper prints it, ``(+Δ) F1``,
    with the paired bootstrap interval of Δ under it. ``table`` is the long Table 3 frame (persona, base,
    debiased, delta, paired_delta_low, paired_delta_high); ``base``/``debiased`` are (label, run id)."""
    nations = persona_order(table["persona"])
    by = table.set_index("persona")
    first: dict[str, object] = {"run": base[1]}
    second: dict[str, object] = {"run": debiased[1]}
    for nation in nations:
        first[nation] = _figure(_num(by.at[nation, "base"]), digits)
        value, delta = _num(by.at[nation, "debiased"]), _num(by.at[nation, "delta"])
        text = _figure(value, digits).text
        if not pd.isna(delta):
            text = f"({delta:+.{digits}f}) {text}"
        span = _interval(
            _num(by.at[nation, "paired_delta_low"]), _num(by.at[nation, "paired_delta_high"]), digits, "+"
        )
        second[nation] = Cell(text, under=f"Δ {span}" if span else None)
    frame = pd.DataFrame.from_dict(
        {base[0]: first, debiased[0]: second}, orient="index", columns=["run", *nations]
    )
    frame.index.name = "model"
    return frame


def paper_debias_rows(
    base: Mapping[str, float], debiased: Mapping[str, float], *, name: str, digits: int = 2
) -> pd.DataFrame:
    """The paper's own Table 3 rows for the same model, in the same layout."""
    nations = persona_order([*base, *debiased])
    first: dict[str, object] = {"run": PAPER}
    second: dict[str, object] = {"run": PAPER}
    for nation in nations:
        b, d = _num(base.get(nation)), _num(debiased.get(nation))
        first[nation] = _figure(b, digits)
        second[nation] = Cell(
            f"({d - b:+.{digits}f}) {d:.{digits}f}"
            if not (pd.isna(b) or pd.isna(d))
            else _figure(d, digits).text
        )
    frame = pd.DataFrame.from_dict(
        {f"paper: {name}": first, f"paper: {name} + RAG, Rflx": second},
        orient="index",
        columns=["run", *nations],
    )
    frame.index.name = "model"
    return frame


def fit(frame: pd.DataFrame, *, max_nations: int = 10) -> pd.DataFrame:
    """Nations as rows when there are too many for columns (every seat, the Assembly): the paper's models
    × nations layout holds the P5, not 190 states on a 1,400-pixel page."""
    if len(frame.columns) - 1 <= max_nations:
        return frame
    turned = frame.T
    turned.index.name = "nation"
    return turned
