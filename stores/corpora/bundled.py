"""The data nationbias ships, and the one place that opens a data file.

A fresh clone has no ``../shared`` beside it, so the package carries a gzip copy of every data file the
code and tests read (``stores/data/``). A folder named by ``NATIONBIAS_DATA`` (``--data``) or
``NATIONBIAS_PAPER`` replaces the packaged copy for its group; ``nationbias data info`` says which copy is
in use (the variables are read through :mod:`nationbias.stores.config.settings`). Every reader goes through
:class:`DataFile`,
so the gzip handling lives here and nowhere else.
Refresh the packaged copy from a shared folder with ``python -m nationbias.stores.corpora.bundled ../shared``.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import IO, Literal

from nationbias.stores.config.paths import DataNotFoundError
from nationbias.stores.config.settings import settings

Group = Literal["data", "paper"]
Source = Literal["packaged", "override", "file"]

# Every file the code and tests read, named as in ``../shared/<group>/``.
SHIPPED: dict[Group, tuple[str, ...]] = {
    "data": (
        "unsc/corpus.jsonl",
        "unsc/un_texts/en.jsonl",
        "unsc/un_texts/fr.jsonl",
        "unsc/un_texts/es.jsonl",
        "unsc/un_texts/ru.jsonl",
        "unsc/un_texts/zh.jsonl",
        "unsc/un_texts/ar.jsonl",
        "undl/undl_export_wide_1946_2021.csv.gz",
        "unga/unga_voeten_un_roll_calls.csv.gz",
        "unga/unga_voeten_un_roll_call_issues.csv.gz",
        "unga/unga_voeten_un_votes.csv.gz",
    ),
    "paper": (
        "keyword_pool.csv",
        "unsc_functions.csv",
        "paper_table1_vote_counts.csv",
        "paper_table2_3_weighted_f1.csv",
        "paper_table4_ablation.csv",
    ),
}
ENV: dict[Group, str] = {"data": "NATIONBIAS_DATA", "paper": "NATIONBIAS_PAPER"}
_PACKAGED_DIR: dict[Group, str] = {"data": "data", "paper": "data/paper"}  # under the stores package


def _stored_name(name: str) -> str:
    """A file that is gzip already is shipped as is; any other gets a .gz."""
    return name if name.endswith(".gz") else f"{name}.gz"


@dataclass(frozen=True)
class DataFile:
    """One data file: the packaged copy (``folder`` None), or ``folder / name`` on disk."""

    name: str
    group: Group = "data"
    folder: Path | None = None
    source: Source = "packaged"

    @classmethod
    def file(cls, path: str | os.PathLike[str]) -> DataFile:
        """A file the user named (``--pool FILE``, ``data validate FILE``)."""
        file = Path(path).expanduser()
        return cls(name=file.name, folder=file.parent, source="file")

    @property
    def path(self) -> Path | None:
        """The file on disk, or None for the packaged copy."""
        return None if self.folder is None else self.folder / self.name

    def _resource(self) -> Traversable:
        parts = [*_PACKAGED_DIR[self.group].split("/"), *_stored_name(self.name).split("/")]
        return files("nationbias.stores").joinpath(*parts)

    @property
    def stored(self) -> str:
        """Where the bytes come from: the path on disk, or the packaged file."""
        return str(self._resource()) if self.folder is None else str(self.folder / self.name)

    def __str__(self) -> str:
        """How messages name the file (``file:line`` follows it)."""
        if self.folder is None:
            return f"packaged:{self.group}/{self.name}"
        return str(self.folder / self.name)

    def read_bytes(self) -> bytes:
        """The file's bytes exactly as in ``../shared`` (only the packaging gzip is undone)."""
        if self.folder is None:
            resource = self._resource()
            if not resource.is_file():
                raise DataNotFoundError(f"packaged data file {self.stored} is missing: reinstall nationbias")
            raw = resource.read_bytes()
            return raw if self.name.endswith(".gz") else gzip.decompress(raw)
        path = self.folder / self.name
        if not path.is_file():
            if self.source == "override":
                variable = ENV[self.group] + (" (--data)" if self.group == "data" else "")
                raise DataNotFoundError(
                    f"{path} not found in the folder {variable} names: "
                    f"add it there, or leave {ENV[self.group]} unset to use the packaged copy"
                )
            raise DataNotFoundError(f"no such file: {path}")
        return path.read_bytes()

    def content(self) -> bytes:
        """The uncompressed content (a ``.gz`` data file is decompressed too)."""
        raw = self.read_bytes()
        return gzip.decompress(raw) if self.name.endswith(".gz") else raw

    def open_text(self, *, newline: str | None = None) -> IO[str]:
        """The content as text (UTF-8; a byte-order mark is dropped)."""
        return io.TextIOWrapper(io.BytesIO(self.content()), encoding="utf-8-sig", newline=newline)

    def sha256(self) -> str:
        """Of :meth:`read_bytes`: the same for the packaged copy and ``../shared``."""
        return hashlib.sha256(self.read_bytes()).hexdigest()


def packaged_folder(group: Group) -> str:
    """Where the group's packaged copy is installed (in a checkout, the real folder, not the link
    nationbias/stores that leads to it)."""
    return str(Path(str(files("nationbias.stores").joinpath(*_PACKAGED_DIR[group].split("/")))).resolve())


_DATA: ContextVar[str | None] = ContextVar("nationbias_data", default=None)


@contextmanager
def using_data(folder: str | os.PathLike[str] | None) -> Iterator[None]:
    """Read the data from ``folder`` within this block (and the tasks it starts), as ``NATIONBIAS_DATA``
    would, without touching the environment: ``--data`` and the library's ``data=``. None: no change."""
    if not folder:
        yield
        return
    token = _DATA.set(str(folder))
    try:
        yield
    finally:
        _DATA.reset(token)


def override_folder(group: Group) -> Path | None:
    """The folder :func:`using_data` or the group's variable names, or None (the packaged copy)."""
    raw = (_DATA.get() or settings().data) if group == "data" else settings().paper
    if raw is None:
        return None
    root = Path(raw).expanduser()
    if group == "data" and root.is_file():  # a path straight to corpus.jsonl: its data root is two levels up
        return root.parent.parent
    return root


def data_file(name: str, group: Group = "data") -> DataFile:
    """``name`` (as in ``../shared/<group>/``) from the override folder if one is set, else the package."""
    folder = override_folder(group)
    if folder is None:
        return DataFile(name, group)
    return DataFile(name, group, folder=folder, source="override")


def paper_file(name: str) -> DataFile:
    """A file of the paper folder: keyword pool, UNSC functions, published tables."""
    return data_file(name, "paper")


def corpus_file(override: str | os.PathLike[str] | None = None) -> DataFile:
    """The UNSC corpus: ``override`` may name the file itself or a data folder; else as :func:`data_file`."""
    if override and Path(override).is_file():
        return DataFile.file(override)
    if override:
        return DataFile("unsc/corpus.jsonl", folder=Path(override).expanduser(), source="file")
    return data_file("unsc/corpus.jsonl")


def shipped() -> list[DataFile]:
    """Every shipped file, resolved as the code will read it."""
    return [data_file(name, group) for group, names in SHIPPED.items() for name in names]


def pack(shared: Path, *, into: Path | None = None) -> list[Path]:
    """Write the packaged copy from a ``shared`` folder (``data/`` and ``paper/`` inside); reproducible."""
    target = into or Path(__file__).resolve().parents[1]
    written = []
    for group, names in SHIPPED.items():
        for name in names:
            raw = (shared / group / name).read_bytes()
            out = target / _PACKAGED_DIR[group] / _stored_name(name)
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(raw if name.endswith(".gz") else gzip.compress(raw, compresslevel=9, mtime=0))
            written.append(out)
    return written


if __name__ == "__main__":
    for written_file in pack(Path(sys.argv[1] if len(sys.argv) > 1 else "../shared")):
        print(written_file)
