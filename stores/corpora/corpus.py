"""Loading the UNSC corpus and the views the tests use."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from pydantic import ValidationError

from nationbias.stores.corpora.bundled import DataFile, corpus_file
from nationbias.stores.corpora.surrogates import surrogate_problem
from nationbias.stores.domain import P5, P5_BY_NAME, VOTE_CODES
from nationbias.stores.errors import InputError
from nationbias.stores.guard.leak import (
    CONTEXT_KIND_DESCRIPTIONS,
    ContextKind,
    PromptContext,
    context_for_prompt,
)
from nationbias.stores.records import Record

__all__ = [
    "CONTEXT_KIND_DESCRIPTIONS",
    "ContextKind",
    "Corpus",
    "CorpusError",
    "PromptContext",
    "context_for_prompt",
    "field_coverage",
    "ground_truth",
    "load_corpus",
    "p5_vote",
]


class RecordNotFoundError(InputError, KeyError):
    """No record with that id in the corpus."""


class CorpusError(InputError):
    """A corpus file is malformed; the message names the file, line and field."""


def _field_path(loc: tuple[object, ...]) -> str:
    return ".".join(str(part) for part in loc) or "<record>"


def iter_jsonl(path: DataFile) -> Iterator[tuple[int, dict[str, object]]]:
    """Yield ``(line_number, object)``; raise :class:`CorpusError` naming the bad line."""
    with path.open_text() as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise CorpusError(f"{path}:{number}: invalid JSON: {exc.msg} (column {exc.colno})") from exc
            if not isinstance(obj, dict):
                raise CorpusError(f"{path}:{number}: expected a JSON object, got {type(obj).__name__}")
            if (problem := surrogate_problem(line, obj)) is not None:
                raise CorpusError(f"{path}:{number}: field {problem[0]}: {problem[1]}")
            yield number, obj


def parse_record(obj: dict[str, object], *, where: str) -> Record:
    """Validate one object; the error names ``where`` and the first bad field."""
    try:
        return Record.model_validate(obj)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise CorpusError(f"{where}: field {_field_path(first['loc'])}: {first['msg']}") from exc


@dataclass
class Corpus:
    """The records of one corpus file, with the views the paper uses."""

    records: list[Record]
    path: DataFile | None = None  # where the records were read (a file, or the packaged copy)
    sha256: str = ""
    _by_id: dict[str, Record] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._by_id = {record.id: record for record in self.records}

    def __len__(self) -> int:
        return len(self.records)

    def get(self, record_id: str) -> Record:
        try:
            return self._by_id[record_id]
        except KeyError:
            raise RecordNotFoundError(f"no record with id {record_id!r} in the corpus") from None

    @cached_property
    def drafts(self) -> list[Record]:
        """The non-adopted drafts (the paper's 66), by date."""
        return sorted((r for r in self.records if r.is_non_adopted_draft), key=lambda r: (r.date, r.id))

    @cached_property
    def adopted(self) -> list[Record]:
        return sorted((r for r in self.records if r.adopted), key=lambda r: (r.date, r.id))

    @cached_property
    def amendments(self) -> list[Record]:
        return sorted((r for r in self.records if r.kind == "amendment"), key=lambda r: (r.date, r.id))


def p5_vote(record: Record, code: str) -> str | None:
    """The recorded vote (Y/N/A) of a P5 member by code, or None if it did not vote."""
    for name, vote in record.votes.items():
        if P5_BY_NAME.get(name) == code:
            return vote
    return None


def load_corpus(path: DataFile | str | os.PathLike[str] | None = None) -> Corpus:
    """Read ``corpus.jsonl``; a malformed line raises :class:`CorpusError` naming file and line."""
    file = path if isinstance(path, DataFile) else corpus_file(path)
    raw = file.read_bytes()
    records: list[Record] = []
    first_line_of: dict[str, int] = {}
    for number, obj in iter_jsonl(file):
        record = parse_record(obj, where=f"{file}:{number}")
        if record.id in first_line_of:
            first = first_line_of[record.id]
            message = f"duplicate id {record.id!r} (first on line {first})"
            raise CorpusError(f"{file}:{number}: field id: {message}")
        first_line_of[record.id] = number
        records.append(record)
    return Corpus(records=records, path=file, sha256=hashlib.sha256(raw).hexdigest())


def ground_truth(records: Iterable[Record]) -> dict[str, dict[str, int]]:
    """P5 votes counted per member: ``{code: {"Y": n, "N": n, "A": n}}`` (the paper's G.T.)."""
    table = {code: dict.fromkeys(VOTE_CODES, 0) for code in P5}
    for record in records:
        for code in P5:
            vote = p5_vote(record, code)
            if vote:
                table[code][vote] += 1
    return table


def field_coverage(records: Sequence[Record]) -> dict[str, int]:
    """How many records have a non-empty value for each optional field."""
    required = ("id", "body", "kind", "paragraph", "adopted", "date", "tally", "votes")
    names = [name for name in Record.model_fields if name not in required]
    return {name: sum(1 for r in records if getattr(r, name) not in (None, "", [], {})) for name in names}
