"""The UN Digital Library importer on the real, messy export."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from nationbias.evals.cli.main import app
from nationbias.stores.corpora.bundled import data_file
from nationbias.stores.corpora.corpus import p5_vote
from nationbias.stores.corpora.undl import UndlImport, import_undl
from nationbias.stores.corpora.validate import validate_file


@pytest.fixture(scope="module")
def export(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real export, as the file a user downloads (the shipped copy's bytes)."""
    name = "undl/undl_export_wide_1946_2021.csv.gz"
    file = tmp_path_factory.mktemp("undl") / "undl_export_wide_1946_2021.csv.gz"
    file.write_bytes(data_file(name).read_bytes())
    return file


@pytest.fixture(scope="module")
def undl(export: Path) -> UndlImport:
    return import_undl(export)


def test_reads_every_security_council_resolution(undl: UndlImport) -> None:
    assert len(undl.records) == 2617
    assert undl.skipped_rows == {"General Assembly": 5238}
    assert len(undl.before(2013)) == 2085


def test_reports_every_unmapped_column(undl: UndlImport) -> None:
    assert undl.unmapped_columns == {"DONOTKNOW": 1}
    assert undl.columns["TKAZAKHSTAN"] == "KAZ" and undl.columns[" UNITED STATES"] == "USA"
    assert {" UNITED KINGDOM", "UNITED KINGDOM", "USSR", "RUSSIAN FEDERATION"} <= set(undl.merged_columns)
    assert undl.conflicts == []


def test_records_use_the_corpus_names_and_votes(undl: UndlImport) -> None:
    by_id = {r.id: r for r in undl.records}
    record = by_id["S/RES/2323 (2016)"]
    assert record.adopted and record.resolution == "2323 (2016)" and str(record.date) == "2016-12-13"
    assert p5_vote(record, "RUS") == "Y" and len(record.votes) == 15
    soviet = [r for r in undl.before(1991) if p5_vote(r, "RUS")]
    assert len(soviet) > 500  # the USSR column fills the Russian Federation's seat


def test_cli_writes_the_pre_2013_pool_under_home(export: Path, isolated_home: Path) -> None:
    result = CliRunner().invoke(app, ["data", "import-undl", str(export)], terminal_width=200)
    assert result.exit_code == 0, result.output
    out = isolated_home / "derived" / "undl_adopted_before_2013.jsonl"
    assert str(out) in result.output.replace("\n", "") and "2085 records" in result.output
    assert "unmapped column 'DONOTKNOW'" in result.output
    lines = out.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2085 and all(json.loads(line)["date"] < "2013" for line in lines)
    assert validate_file(out).ok
