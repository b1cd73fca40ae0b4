"""One table of the report as HTML: escaped cells, a figure with its interval under it, long ids shortened.

``DataFrame.to_html`` cannot put a title on a cell or a line under a figure, and the paper's compact
tables need both: a cell is either a plain value or a :class:`Cell`. Identifier columns (run ids, data
hashes, model specs, prompt hashes) are shortened by the shortener registered for their name, the full
value kept in the cell's ``title`` so it shows on hover and stays in the CSV.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import pandas as pd


class Cell(NamedTuple):
    """A figure as the page shows it: its text, an optional line under it (the interval), a hover text and
    a link (``href``: e.g. to the item's samples in the sample browser)."""

    text: str
    under: str | None = None
    title: str | None = None
    href: str | None = None


ELLIPSIS = "…"


def middle(value: str, limit: int) -> str:
    """``value`` cut in the middle to ``limit`` characters: run ids differ at their ends."""
    if len(value) <= limit:
        return value
    head = (limit - 1) // 2
    return value[:head] + ELLIPSIS + value[len(value) - (limit - 1 - head) :]


def prefix(value: str, limit: int) -> str:
    """The first ``limit`` characters: enough of a hash to tell two apart."""
    return value if len(value) <= limit else value[:limit] + ELLIPSIS


def model_name(spec: str, limit: int = 24) -> str:
    """A model spec without its provider and organisation (``together:meta-llama/X`` → ``X``); a row's
    framework suffix (`` + RAG k=1, no Rflx, keyword``) stays whole: it is what tells two rows apart."""
    model, plus, framework = spec.partition(" + ")
    return middle(model.split(":", 1)[-1].rsplit("/", 1)[-1], limit) + plus + framework


def prompt_names(value: str) -> str:
    """``name=name@v1:hash, …`` → ``name@v1, …``: the template names and versions, not their hashes."""
    parts = [p.strip() for p in value.split(",") if p.strip()]
    return ", ".join(re.sub(r":[0-9a-f]{6,}$", "", p.split("=", 1)[-1]) for p in parts)


# column name → how its values are shortened on the page (the CSV keeps them whole)
SHORTENERS: dict[str, Callable[[str], str]] = {
    "data_sha256": lambda v: prefix(v, 10),
    "model": model_name,
    "judge": model_name,
    "prompt_versions": prompt_names,
}


# columns of run ids: shown whole, in a <code> a click selects entirely (to copy it into `report`)
RUN_ID_COLUMNS = frozenset({"run_id", "run"})
LONG = 160  # any other text longer than this is cut, whole on hover
WRAP = 24  # a cell longer than this may break anywhere (class ``long``): it, not the short cells, gives way


def shortener(column: Any) -> Callable[[str], str]:
    name = str(column[-1] if isinstance(column, tuple) else column)
    if name in SHORTENERS:
        return SHORTENERS[name]
    if name.endswith(("sha256", "_hash")):
        return SHORTENERS["data_sha256"]
    return lambda v: prefix(v, LONG)


LONG_NAME = 12  # a header name longer than this may wrap after its underscores, a shorter one never


def heading(name: Any) -> str:
    """A column name as it is (``data_sha256``, ``baseline: same_title``): a header wraps at its spaces,
    never inside a short name ("data_ sha256"); a name longer than ``LONG_NAME`` may wrap after an
    underscore (``weighted_f1_<wbr>valid_only``) so a wide table still fits the page."""
    words = str(name).split(" ")
    return " ".join(
        "_<wbr>".join(html.escape(p) for p in w.split("_")) if len(w) > LONG_NAME else html.escape(w)
        for w in words
    )


def plain(value: Any) -> str:
    """A plain value's text: floats to three decimals, missing values as a dash."""
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        return "—"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def run_id_html(value: Any, tag: str = "td") -> str:
    """A run id whole, copyable with one click (``user-select: all``), breakable anywhere on a narrow page."""
    text = plain(value)
    return f'<{tag} class="run-id"><code>{html.escape(text)}</code></{tag}>'


def cell_html(value: Any, short: Callable[[str], str] | None, tag: str = "td") -> str:
    if isinstance(value, Cell):
        title = f' title="{html.escape(value.title)}"' if value.title else ""
        under = f'<span class="ci">{html.escape(value.under)}</span>' if value.under else ""
        text = f'<span class="id">{html.escape(value.text)}</span>' if title else html.escape(value.text)
        if value.href:
            text = f'<a href="{html.escape(value.href)}">{text}</a>'
        return f"<{tag}{title}>{text}{under}</{tag}>"
    text = plain(value)
    shown = short(text) if short is not None and text != "—" else text
    wrap = ' class="long"' if len(shown) > WRAP else ""
    if shown != text:
        inner = f'<span class="id">{html.escape(shown)}</span>'
        return f'<{tag}{wrap} title="{html.escape(text)}">{inner}</{tag}>'
    return f"<{tag}{wrap}>{html.escape(text)}</{tag}>"


def _is_run_id(column: Any) -> bool:
    return str(column[-1] if isinstance(column, tuple) else column) in RUN_ID_COLUMNS


def _header(columns: pd.Index, index_name: str | None) -> str:
    """One header row, or two when the columns have two levels (a group over its sub-columns)."""
    corner = [index_name] if index_name is not None else []
    if not isinstance(columns, pd.MultiIndex):
        cells = "".join(f"<th>{heading(c)}</th>" for c in [*corner, *columns])
        return f"<tr>{cells}</tr>"
    top, bottom = [], []
    for name in corner:
        top.append(f'<th rowspan="2">{heading(name)}</th>')
    groups: list[tuple[str, int]] = []
    for group, _ in columns:
        if groups and groups[-1][0] == group:
            groups[-1] = (group, groups[-1][1] + 1)
        else:
            groups.append((group, 1))
    top += [f'<th colspan="{n}" class="group">{heading(g)}</th>' for g, n in groups]
    bottom = [f"<th>{heading(sub)}</th>" for _, sub in columns]
    return f"<tr>{''.join(top)}</tr><tr>{''.join(bottom)}</tr>"


def render(
    frame: pd.DataFrame,
    *,
    table_id: str,
    caption: str,
    classes: str = "data",
    index: bool = False,
    shorteners: Mapping[Any, Callable[[str], str]] | None = None,
) -> str:
    """``<table>`` with ``caption`` (HTML, already escaped) first; ``index`` puts the row labels in front."""
    extra = dict(shorteners or {})
    shorts = [extra.get(c) or shortener(c) for c in frame.columns]
    ids = [_is_run_id(c) and c not in extra for c in frame.columns]
    rows = []
    labels = frame.index.tolist() if index else [None] * len(frame)
    for label, values in zip(labels, frame.itertuples(index=False, name=None), strict=True):
        head = ""
        if index:
            head = (
                run_id_html(label, "th")
                if _is_run_id(frame.index.name) and not isinstance(label, Cell)
                else cell_html(label, extra.get("index") or shortener(frame.index.name), "th")
            )
        body = "".join(
            run_id_html(v) if is_id and not isinstance(v, Cell) else cell_html(v, s)
            for v, s, is_id in zip(values, shorts, ids, strict=True)
        )
        rows.append(f"<tr>{head}{body}</tr>")
    corner = (str(frame.index.name or "")) if index else None
    return (
        f'<table class="{html.escape(classes)}" id="{html.escape(table_id)}"><caption>{caption}</caption>'
        f"<thead>{_header(frame.columns, corner)}</thead><tbody>{''.join(rows)}</tbody></table>"
    )
