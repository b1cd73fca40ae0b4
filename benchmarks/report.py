"""The rich table on the terminal and ``benchmarks/RESULTS.md``."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.table import Table

from benchmarks.common import Section, fmt_s

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"


def _verdict(ok: bool | None) -> str:
    return "" if ok is None else ("PASS" if ok else "MISS")


def print_table(sections: list[Section], console: Console | None = None) -> None:
    console = console or Console()
    table = Table(title="nationbias benchmarks", show_lines=False)
    for column in ("benchmark", "metric", "value", "target", "", "detail"):
        table.add_column(column, overflow="fold")
    for section in sections:
        for row in section.rows:
            style = {True: "green", False: "red"}.get(row.ok) if row.ok is not None else None
            verdict = f"[{style}]{_verdict(row.ok)}[/]" if style else ""
            table.add_row(section.name, row.metric, row.value, row.target, verdict, row.note)
    console.print(table)


def markdown(sections: list[Section], machine: dict[str, str], *, quick: bool, command: str) -> str:
    lines = ["# nationbias benchmarks", ""]
    if quick:
        lines += ["> **--quick smoke run**: tiny sizes, numbers are not comparable with a full run.", ""]
    lines += [f"Command: `{command}`", ""]
    lines += ["| machine | |", "|---|---|"]
    lines += [f"| {key} | {value} |" for key, value in machine.items()]
    lines.append("")
    for section in sections:
        lines += [
            f"## {section.title}",
            "",
            f"_Benchmark `{section.name}`, ran {fmt_s(section.seconds)}._",
            "",
        ]
        lines += ["| metric | value | target | | detail |", "|---|---|---|---|---|"]
        for row in section.rows:
            cells = [row.metric, row.value, row.target, _verdict(row.ok), row.note]
            lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
        lines.append("")
        for note in section.notes:
            lines += [note, ""]
    return "\n".join(lines)


def write_results(text: str, path: Path = RESULTS) -> Path:
    path.write_text(text, encoding="utf-8")
    return path
