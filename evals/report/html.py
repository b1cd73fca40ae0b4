"""HTML scaffolding for the report: page shell, sections, tables with captions, figures."""

from __future__ import annotations

import html
from pathlib import Path

import pandas as pd

from nationbias.evals.report.confusion_grid import CSS as GRID_CSS
from nationbias.evals.report.html_table import render

CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0 auto;
       max-width: 1320px; padding: 1rem 2rem 3rem; color: #1a1a1a; line-height: 1.45; }
h1 { margin-bottom: 0.2rem; }
h2 { border-bottom: 2px solid #0072B2; padding-bottom: 0.2rem; margin-top: 2.4rem; }
.subtitle { color: #555; margin-top: 0; }
.scope { font-weight: 600; margin: 0.4rem 0; max-width: 70rem; }
.banner { background: #FFF3F3; border: 2px solid #B00020; color: #B00020; font-weight: 700;
          padding: 0.7rem 1rem; border-radius: 6px; margin: 1rem 0; text-align: center; }
nav ul { columns: 3; list-style: none; padding-left: 0; }
table.data { border-collapse: collapse; margin: 1rem 0 1.6rem; font-size: 0.86rem;
             font-variant-numeric: tabular-nums; }
table.data caption { caption-side: top; text-align: left; font-weight: 600; padding-bottom: 0.3rem; }
table.data th, table.data td { border: 1px solid #d0d0d0; padding: 0.25rem 0.55rem; text-align: right; }
table.data th { background: #f0f4f8; }
table.data thead th { overflow-wrap: normal; word-break: keep-all; hyphens: manual; }
.run-id code { user-select: all; overflow-wrap: anywhere; font-size: 0.8rem; }
table.data td.long { overflow-wrap: anywhere; min-width: 7rem; }  /* long cells give way, short ones not */
table.data td .ci { display: block; color: #666; font-size: 0.78rem; white-space: nowrap; }
table.data th.group { text-align: center; }
table.data [title] .id { text-decoration: underline dotted #888; cursor: help; }
table.data tbody tr:nth-child(even) { background: #fafafa; }
figure { margin: 1rem 0 2rem; } figure img { max-width: 100%; height: auto; border: 1px solid #e0e0e0; }
figcaption { color: #555; font-size: 0.85rem; }
.note { color: #444; font-size: 0.9rem; max-width: 60rem; }
"""


class Page:
    """Collects sections, figures and CSVs in ``out_dir``."""

    def __init__(self, out_dir: Path) -> None:
        self.out_dir = out_dir
        self.sections: list[str] = []
        self.parts: list[str] = []

    def table(
        self,
        frame: pd.DataFrame,
        *,
        table_id: str,
        caption: str,
        shown: pd.DataFrame | None = None,
        csvs: dict[str, pd.DataFrame] | None = None,
    ) -> None:
        """``frame`` to ``<table_id>.csv`` and onto the page; ``shown`` (the paper's compact layout, its
        row labels in the index) replaces it on the page only. ``csvs`` names the long frames behind a
        table that gathers several runs (``name.csv`` each, linked from the caption) instead of ``frame``."""
        files = csvs if csvs is not None else {table_id: frame}
        for name, long in files.items():
            long.to_csv(self.out_dir / f"{name}.csv", index=False)
        number = (lambda i: "") if len(files) == 1 else str
        links = " ".join(
            f'<a href="{html.escape(n)}.csv" title="{html.escape(n)}.csv">CSV{number(i)}</a>'
            for i, n in enumerate(files, start=1)
        )
        self.parts.append(
            render(
                frame if shown is None else shown,
                table_id=table_id,
                caption=f"{html.escape(caption)} {links}",
                classes=f"data {table_id.split('-')[0]}",
                index=shown is not None,
            )
        )

    def figure(self, path: Path, *, alt: str) -> None:
        self.parts.append(
            f'<figure><img src="{html.escape(path.name)}" alt="{html.escape(alt)}" loading="lazy">'
            f"<figcaption>{html.escape(alt)}</figcaption></figure>"
        )

    def note(self, text: str) -> None:
        self.parts.append(f'<p class="note">{html.escape(text)}</p>')

    def close(self, section_id: str, title: str, *, first: bool = False) -> None:
        """End the section; ``first`` puts it before every other (the report's first screen)."""
        if self.parts:
            self.sections.insert(0 if first else len(self.sections), section(section_id, title, self.parts))
        self.parts = []


def section(section_id: str, title: str, parts: list[str]) -> str:
    return (
        f'<section id="{html.escape(section_id)}"><h2>{html.escape(title)}</h2>\n'
        + "\n".join(parts)
        + "</section>"
    )


def page(*, title: str, sections: list[str], banner: str | None, subtitle: str, scope: str = "") -> str:
    """The whole document; the banner (if any) at the top and the bottom, the scope line under the title."""
    flag = f'<div class="banner" role="alert">{html.escape(banner)}</div>' if banner else ""
    ids = [s.split('"', 2)[1] for s in sections]
    titles = [s.split("<h2>", 1)[1].split("</h2>", 1)[0] for s in sections]
    nav = "".join(f'<li><a href="#{i}">{t}</a></li>' for i, t in zip(ids, titles, strict=True))
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(title)}</title>"
        f"<style>{CSS}{GRID_CSS}</style></head><body>\n{flag}<h1>{html.escape(title)}</h1>"
        f'<p class="subtitle">{html.escape(subtitle)}</p>'
        + (f'<p class="scope" id="scope">{html.escape(scope)}</p>' if scope else "")
        + f'<nav aria-label="sections"><ul>{nav}</ul></nav>\n'
        + "\n".join(sections)
        + f"\n{flag}</body></html>\n"
    )
