"""The UNSC's functions (the paper's Appendix C.3), read in one place.

DirectQA asks one question family per function and the tables list them in the paper's order; both
read the file here, so its columns are checked once and the two cannot drift apart.
"""

from __future__ import annotations

import csv

from nationbias.stores.corpora.bundled import DataFile, paper_file
from nationbias.stores.errors import InputError

FUNCTIONS_FILE = "unsc_functions.csv"
COLUMNS = ("id", "short_name", "function")


def functions_file() -> DataFile:
    """The paper folder's functions file (packaged, or under ``NATIONBIAS_PAPER``)."""
    return paper_file(FUNCTIONS_FILE)


def unsc_functions(file: DataFile | None = None) -> list[dict[str, str]]:
    """One row per function (``id``, ``short_name``, ``function``), in the paper's order."""
    file = file or functions_file()
    with file.open_text(newline="") as handle:
        rows = list(csv.DictReader(handle))
    missing = set(COLUMNS) - set(rows[0] if rows else {})
    if missing:
        raise InputError(f"{file}: missing column(s) {sorted(missing)}")
    return rows
