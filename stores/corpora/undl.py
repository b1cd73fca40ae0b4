"""Import a UN Digital Library voting export (wide: one column per country) into :class:`Record`.

The export is messy the way a downloaded file is: a byte-order mark, upper-case names with typos
(``TKAZAKHSTAN``), junk prefixes (``AY DENMARK``), columns with leading spaces that duplicate
clean ones, and count columns whose names do not say what they hold (``ABSENT COUNT`` counts the
``A`` abstentions, ``NO-VOTE COUNT`` the ``X`` non-votes). Every column that cannot be mapped is
reported with how many cells it holds; nothing is dropped silently.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
from pydantic import ValidationError

from nationbias.stores.corpora.countries import name_for, to_iso3
from nationbias.stores.errors import InputError
from nationbias.stores.records import Record, Tally, Vote

META_COLUMNS = (
    "Council",
    "Date",
    "Title",
    "Resolution",
    "TOTAL VOTES",
    "NO-VOTE COUNT",
    "ABSENT COUNT",
    "NO COUNT",
    "YES COUNT",
    "Link",
    "token",
)
SEAT_SUCCESSORS = {"SUN": "RUS"}  # the Soviet seat is the Russian Federation's (as the UN holds)
_VOTES: dict[str, Vote] = {"Y": "Y", "N": "N", "A": "A"}
_RESOLUTION = re.compile(r"S/RES/(\d+)\s*\((\d{4})\)")


@dataclass
class UndlImport:
    """What an import produced and everything it could not use."""

    path: Path
    records: list[Record] = field(default_factory=list)
    columns: dict[str, str] = field(default_factory=dict)  # country column -> ISO3
    unmapped_columns: dict[str, int] = field(default_factory=dict)  # column -> non-blank cells
    merged_columns: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    skipped_rows: Counter[str] = field(default_factory=Counter)
    non_votes: int = 0
    abstain_count_mismatches: int = 0

    def before(self, year: int) -> list[Record]:
        return [r for r in self.records if r.date.year < year]


REQUIRED_COLUMNS = ("Council", "Date", "Title", "Resolution", "ABSENT COUNT", "Link", "token")


class UndlError(InputError):
    """The file is not a usable UN Digital Library export; the message names the file (and line)."""


def read_export(path: Path) -> pd.DataFrame:
    try:
        frame = pd.read_csv(path, encoding="utf-8-sig", dtype=str, keep_default_na=False)
    except (ValueError, UnicodeDecodeError, OSError, EOFError) as exc:  # pandas parser errors: ValueError
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise UndlError(f"{path}: not a readable CSV export ({reason})") from exc
    missing = [c for c in REQUIRED_COLUMNS if c not in {col.strip() for col in frame.columns}]
    if missing:
        raise UndlError(f"{path}: not a UN Digital Library export: missing column(s) {', '.join(missing)}")
    return frame


def _map_columns(frame: pd.DataFrame, result: UndlImport) -> dict[str, list[str]]:
    """Country columns grouped by ISO3 (a state can have several: renames, typos, stray spaces)."""
    by_code: dict[str, list[str]] = {}
    for column in frame.columns:
        if column.strip() in META_COLUMNS:
            continue
        code = to_iso3(column)
        if code is None:
            result.unmapped_columns[column] = int((frame[column].str.strip() != "").sum())
            continue
        code = SEAT_SUCCESSORS.get(code, code)
        result.columns[column] = code
        by_code.setdefault(code, []).append(column)
    result.merged_columns = sorted(c for cols in by_code.values() if len(cols) > 1 for c in cols)
    return by_code


def _votes(
    row: Mapping[Hashable, Any], by_code: dict[str, list[str]], result: UndlImport, label: str
) -> dict[str, Vote]:
    votes: dict[str, Vote] = {}
    for code, columns in by_code.items():
        cells = {str(row[c]).strip().upper() for c in columns} - {""}
        result.non_votes += int("X" in cells)
        cells -= {"X"}
        if len(cells) > 1:
            result.conflicts.append(f"{label}: {name_for(code)} has votes {sorted(cells)} in {columns}")
            continue
        if cells:
            vote = cells.pop()
            if vote in _VOTES:
                votes[name_for(code)] = _VOTES[vote]
            else:
                result.conflicts.append(f"{label}: {name_for(code)} has unknown vote code {vote!r}")
    return votes


def import_undl(path: str | os.PathLike[str], *, council: str = "Security Council") -> UndlImport:
    """Records for every ``council`` resolution in the export (all adopted: the export lists resolutions)."""
    file = Path(path)
    frame = read_export(file)
    frame = frame.rename(columns={c: c.strip() for c in frame.columns if c.strip() in META_COLUMNS})
    result = UndlImport(path=file)
    by_code = _map_columns(frame, result)
    # rows as plain dicts of the cells: a pandas Series' __getitem__ per cell cost ~4 s of CPU for the
    # export's 700,000 country cells, and DataFrame.to_dict("records") still boxes each cell one by one
    # (~2 s); itertuples reads each column once
    columns: list[Hashable] = list(frame.columns)
    rows = (dict(zip(columns, values, strict=True)) for values in frame.itertuples(index=False, name=None))
    for index, row in zip(frame.index, rows, strict=True):
        try:
            record = _record(row, by_code, result, council)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(part) for part in first["loc"]) or "<record>"
            line = int(str(index)) + 2  # the header is line 1
            raise UndlError(f"{file}:{line}: field {where}: {first['msg']}") from exc
        if record is not None:
            result.records.append(record)
    return result


def _record(
    row: Mapping[Hashable, Any], by_code: dict[str, list[str]], result: UndlImport, council: str
) -> Record | None:
    """One row as a record, or None when it is skipped (and counted as such)."""
    if row["Council"].strip() != council:
        result.skipped_rows[row["Council"].strip() or "(blank council)"] += 1
        return None
    symbol = _RESOLUTION.search(row["Resolution"])
    if symbol is None:
        result.skipped_rows[f"unparsed symbol {row['Resolution']!r}"] += 1
        return None
    resolution = f"{symbol.group(1)} ({symbol.group(2)})"
    votes = _votes(row, by_code, result, f"S/RES/{resolution}")
    counted = Counter(votes.values())
    if str(row["ABSENT COUNT"]).strip() not in ("", str(counted["A"])):
        result.abstain_count_mismatches += 1
    notes = [f"Imported from the UN Digital Library export, record {row['token']}: {row['Link']}"]
    if not votes:
        notes.append("Adopted without a vote: every member is marked X (non-voting) in the export.")
    return Record(
        id=f"S/RES/{resolution}",
        kind="draft",
        adopted=True,
        resolution=resolution,
        date=row["Date"].strip(),
        title=row["Title"].strip() or None,
        tally=Tally(yes=counted["Y"], no=counted["N"], abstain=counted["A"]),
        votes=votes,
        notes=notes,
    )


def write_records(records: list[Record], path: Path) -> Path:
    """Write JSONL atomically: a failed run leaves no partial file behind."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    with tmp.open("w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record.model_dump(mode="json"), ensure_ascii=False) + "\n")
    tmp.replace(path)
    return path
