"""Validate a corpus file and report every problem, one line each, naming file, line and field.

:func:`load_corpus` stops at the first schema error; this module goes on to the end so that a
user fixes a file in one pass. Errors make ``nationbias data validate`` exit 2; warnings (a
tally that disagrees with the votes, a veto list that disagrees with the P5 votes) do not.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from nationbias.stores.corpora.bundled import DataFile
from nationbias.stores.corpora.countries import to_iso3
from nationbias.stores.corpora.surrogates import surrogate_problem
from nationbias.stores.domain import P5_NAMES
from nationbias.stores.records import Record


@dataclass(frozen=True)
class Problem:
    """One finding about one field of one line."""

    file: DataFile
    line: int
    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: field {self.field}: {self.message}"


@dataclass
class ValidationReport:
    path: DataFile
    records: list[Record] = field(default_factory=list)
    errors: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors


def _loc(loc: tuple[Any, ...]) -> str:
    return ".".join(str(part) for part in loc) or "<record>"


def _schema_message(error: Any) -> str:
    kind, value = error["type"], error.get("input")
    if kind == "missing":
        return "missing required field"
    if kind == "literal_error" and error["loc"][:1] == ("votes",):
        return f"vote code {value!r} is not Y, N or A"
    message = str(error["msg"]).removeprefix("Value error, ")
    if error["loc"] == ("date",) and not message.startswith("not an ISO date"):
        return f"not an ISO date (YYYY-MM-DD): {value!r}: {message}"
    return message


def _vote_problems(obj: dict[str, Any], *, file: DataFile, line: int) -> list[Problem]:
    votes = obj.get("votes")
    if not isinstance(votes, dict):
        return []
    problems = [
        Problem(file, line, f"votes.{name}", f"member name {name!r} does not resolve to a country")
        for name in votes
        if to_iso3(name) is None
    ]
    if obj.get("kind") == "draft" and obj.get("adopted") is False:
        codes = {to_iso3(name) for name in votes}
        problems += [
            Problem(file, line, f"votes.{name}", f"P5 member {code} is missing from a non-adopted draft")
            for code, name in P5_NAMES.items()
            if code not in codes
        ]
    return problems


def _consistency_warnings(record: Record, *, file: DataFile, line: int) -> list[Problem]:
    counts = Counter(record.votes.values())
    tally = record.tally
    warnings = []
    if (counts["Y"], counts["N"], counts["A"]) != (tally.yes, tally.no, tally.abstain):
        warnings.append(
            Problem(
                file,
                line,
                "tally",
                f"tally {tally.yes}-{tally.no}-{tally.abstain} disagrees with the votes "
                f"{counts['Y']}-{counts['N']}-{counts['A']}",
            )
        )
    if not record.adopted:
        vetoes = sorted(code for code, name in P5_NAMES.items() if record.votes.get(name) == "N")
        if vetoes != sorted(record.vetoed_by):
            warnings.append(
                Problem(
                    file, line, "vetoed_by", f"vetoed_by {sorted(record.vetoed_by)} but P5 votes N: {vetoes}"
                )
            )
    return warnings


def validate_file(source: DataFile | str | os.PathLike[str]) -> ValidationReport:
    """Check every line of a JSONL corpus (a file, or the packaged one); never raises for bad content."""
    path = source if isinstance(source, DataFile) else DataFile.file(source)
    report = ValidationReport(path=path)
    first_line_of: dict[str, int] = {}
    with path.open_text() as handle:
        for line, text in enumerate(handle, start=1):
            if not text.strip():
                continue
            try:
                obj = json.loads(text)
            except json.JSONDecodeError as exc:
                message = f"invalid JSON: {exc.msg} (column {exc.colno})"
                report.errors.append(Problem(path, line, "<line>", message))
                continue
            if not isinstance(obj, dict):
                message = f"expected a JSON object, got {type(obj).__name__}"
                report.errors.append(Problem(path, line, "<line>", message))
                continue
            if (problem := surrogate_problem(text, obj)) is not None:
                report.errors.append(Problem(path, line, *problem))
                continue
            record_id = obj.get("id")
            if isinstance(record_id, str):
                if record_id in first_line_of:
                    first = first_line_of[record_id]
                    message = f"duplicate id {record_id!r} (first on line {first})"
                    report.errors.append(Problem(path, line, "id", message))
                else:
                    first_line_of[record_id] = line
            report.errors += _vote_problems(obj, file=path, line=line)
            try:
                record = Record.model_validate(obj)
            except ValidationError as exc:
                report.errors += [
                    Problem(path, line, _loc(error["loc"]), _schema_message(error)) for error in exc.errors()
                ]
                continue
            report.records.append(record)
            report.warnings += _consistency_warnings(record, file=path, line=line)
    report.errors.sort(key=lambda p: (p.line, p.field))
    return report
