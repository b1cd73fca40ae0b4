"""The data that ships inside the package: identical to ../shared, in the wheel, overridable, reported."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import zipfile
from importlib import metadata
from pathlib import Path

import pytest
from typer.testing import CliRunner

from nationbias.evals.cli.main import app
from nationbias.evals.tables.published import published_vote_counts
from nationbias.graphs.association import load_pool
from nationbias.stores.config.paths import DataNotFoundError
from nationbias.stores.corpora.bundled import SHIPPED, DataFile, data_file, paper_file, shipped
from nationbias.stores.corpora.corpus import load_corpus

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared"
ALL = [(group, name) for group, names in SHIPPED.items() for name in names]


def test_the_packaged_copy_is_byte_identical_to_shared() -> None:
    if not (SHARED / "data").is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"CI must have the source of truth at {SHARED} to check the packaged copy against it")
        pytest.skip(f"no {SHARED} beside the repository to compare the packaged copy with (outside CI)")
    different = [
        f"{group}/{name}"
        for group, name in ALL
        if DataFile(name, group).read_bytes() != (SHARED / group / name).read_bytes()
    ]
    assert different == [], f"refresh with: uv run python -m nationbias.stores.corpora.bundled {SHARED}"


def test_every_packaged_file_is_listed_and_every_listed_file_is_packaged() -> None:
    stored = {
        p.relative_to(REPO / "stores" / "data").as_posix() for p in (REPO / "stores" / "data").rglob("*.*")
    }
    listed = {
        ("paper/" if group == "paper" else "") + (name if name.endswith(".gz") else f"{name}.gz")
        for group, name in ALL
    }
    assert stored == listed


def test_the_wheel_holds_every_shipped_file(tmp_path: Path) -> None:
    uv = shutil.which("uv")
    assert uv, "uv is needed to build the wheel (pip install uv)"
    subprocess.run([uv, "build", "--wheel", "--out-dir", str(tmp_path)], cwd=REPO, check=True, timeout=300)
    [wheel] = tmp_path.glob("nationbias-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    # one installed name: the card's folders beneath nationbias/, nothing else at the top but the dist-info
    dist_info = f"nationbias-{metadata.version('nationbias')}.dist-info"
    assert {n.split("/")[0] for n in names} == {"nationbias", dist_info}
    assert {
        f"nationbias/{p}/__init__.py" for p in ("graphs", "retrievers", "prompts", "stores", "evals")
    } <= names
    stored = {
        f"nationbias/stores/{p.relative_to(REPO / 'stores').as_posix()}"
        for p in (REPO / "stores/data").rglob("*.gz")
    }
    assert len(stored) == len(ALL) and stored <= names
    assert "nationbias/stores/corpora/bundled.py" in names
    browser = {
        f"nationbias/evals/report/browser/{p.name}" for p in (REPO / "evals/report/browser").iterdir()
    }  # the sample browser
    pages = {"samples.html", "samples.js", "sample-view.js", "samples.css"}
    assert browser == {f"nationbias/evals/report/browser/{p}" for p in pages} and browser <= names
    assert "nationbias/stores/tables/prices.toml" in names  # the price table --dry-run and --max-cost read
    entry_points = zipfile.ZipFile(wheel).read(f"{dist_info}/entry_points.txt").decode()
    assert "nationbias = nationbias.evals.cli.main:app" in entry_points
    assert not any("nation-level-bias-paper" in n for n in names)  # the paper's own text is not shipped


def test_without_overrides_every_reader_uses_the_packaged_copy() -> None:
    assert all(file.folder is None for file in shipped())
    corpus = load_corpus()
    assert str(corpus.path) == "packaged:data/unsc/corpus.jsonl" and len(corpus) == 758
    assert len(load_pool()) == 48
    table1 = published_vote_counts()
    truth = table1[table1["source"] == "ground_truth"]
    assert int(truth[(truth["nation"] == "RUS") & (truth["vote"] == "against")]["mean_count"].iloc[0]) == 32


def test_an_override_folder_replaces_the_packaged_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paper = tmp_path / "paper"
    paper.mkdir()
    (paper / "keyword_pool.csv").write_text(
        "category,keyword\nmine,sanctions\nmine,ceasefire\n", encoding="utf-8"
    )
    monkeypatch.setenv("NATIONBIAS_PAPER", str(paper))
    assert load_pool() == [("mine", "sanctions"), ("mine", "ceasefire")]
    assert paper_file("keyword_pool.csv").path == paper / "keyword_pool.csv"
    assert data_file("unsc/corpus.jsonl").folder is None  # the other group keeps the packaged copy
    with pytest.raises(DataNotFoundError, match=r"paper/unsc_functions.csv not found .* NATIONBIAS_PAPER"):
        paper_file("unsc_functions.csv").read_bytes()


def test_a_compressed_data_file_reads_the_same_from_an_override(tmp_path: Path) -> None:
    name = "unga/unga_voeten_un_roll_calls.csv.gz"
    (tmp_path / "unga").mkdir()
    (tmp_path / "unga" / Path(name).name).write_bytes(data_file(name).read_bytes())
    override = DataFile(name, folder=tmp_path, source="override")
    with override.open_text(newline="") as mine, data_file(name).open_text(newline="") as packaged:
        first = mine.readline()
        assert first == packaged.readline() and first.startswith("rcid,")


def _info_rows(output: str) -> dict[str, tuple[str, str]]:
    """``file -> (copy, sha256)`` from the ``sha256  file  (copy)`` lines of ``data info``."""
    found = (re.fullmatch(r"  ([0-9a-f]{64}|missing) +(\S+)  \((.+)\)", line) for line in output.splitlines())
    return {m[2]: (m[3], m[1]) for m in found if m}


def test_data_info_names_the_packaged_copy_and_each_sha256() -> None:
    result = CliRunner().invoke(app, ["data", "info"], terminal_width=250)
    assert result.exit_code == 0, result.output
    assert f"data: the packaged copy in {REPO}/stores/data (set NATIONBIAS_DATA" in result.output
    assert f"paper: the packaged copy in {REPO}/stores/data/paper (set NATIONBIAS_PAPER" in result.output
    rows = _info_rows(result.output)
    assert set(rows) == {f"{group}/{name}" for group, name in ALL}
    assert {copy for copy, _ in rows.values()} == {"packaged"}
    assert rows["data/unsc/corpus.jsonl"][1] == load_corpus().sha256


def test_data_info_names_an_override_and_hashes_what_is_there(tmp_path: Path) -> None:
    (tmp_path / "unsc").mkdir()
    corpus = tmp_path / "unsc" / "corpus.jsonl"
    corpus.write_bytes(data_file("unsc/corpus.jsonl").read_bytes())
    result = CliRunner().invoke(app, ["data", "info", "--data", str(tmp_path)], terminal_width=250)
    assert result.exit_code == 0, result.output
    assert f"data: {tmp_path} (from NATIONBIAS_DATA)" in result.output
    rows = _info_rows(result.output)
    assert rows["data/unsc/corpus.jsonl"] == (str(corpus), hashlib.sha256(corpus.read_bytes()).hexdigest())
    assert rows["data/unga/unga_voeten_un_votes.csv.gz"] == (
        str(tmp_path / "unga/unga_voeten_un_votes.csv.gz"),
        "missing",
    )
    assert rows["paper/keyword_pool.csv"][0] == "packaged"


def test_using_data_scopes_a_data_folder_without_touching_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from nationbias.stores.corpora.bundled import using_data

    monkeypatch.delenv("NATIONBIAS_DATA", raising=False)
    (tmp_path / "unsc").mkdir()
    (tmp_path / "unsc" / "corpus.jsonl").write_text("", encoding="utf-8")
    assert data_file("unsc/corpus.jsonl").folder is None  # the packaged copy
    with using_data(tmp_path):
        assert data_file("unsc/corpus.jsonl").folder == tmp_path
        assert "NATIONBIAS_DATA" not in os.environ
    assert data_file("unsc/corpus.jsonl").folder is None  # the block ended: the packaged copy again
