"""The UNSC functions file has one reader: DirectQA's families and the paper tables see the same rows."""

from __future__ import annotations

from pathlib import Path

import pytest

from nationbias.evals.tables.published import unsc_functions as functions_frame
from nationbias.graphs.directqa import GENERAL, directqa_families
from nationbias.stores.corpora.bundled import DataFile
from nationbias.stores.corpora.functions import unsc_functions


def test_directqa_and_the_tables_read_the_same_functions_in_the_same_order() -> None:
    rows = unsc_functions()
    assert len(rows) == 10 and rows[0]["id"] == "int_peace_security"
    families = directqa_families()
    assert families[0].id == GENERAL
    assert [f.id for f in families[1:]] == [r["id"] for r in rows] == functions_frame()["id"].tolist()
    assert [f.role for f in families[1:]] == [r["function"] for r in rows]


def test_a_file_without_a_column_is_named_with_what_it_lacks(tmp_path: Path) -> None:
    bad = tmp_path / "unsc_functions.csv"
    bad.write_text("id,short_name\nx,X\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"unsc_functions.csv: missing column\(s\) \['function'\]"):
        unsc_functions(DataFile.file(bad))
    with pytest.raises(ValueError, match="missing column"):
        directqa_families(DataFile.file(bad))
