"""Lone surrogates (stores/corpora/surrogates.py): an answer holding the JSON escape ``\\ud83d`` alone is
stored (the run store keeps it as its escape, the cache keeps the server's JSON), never "internal
UnicodeEncodeError"; the same escape in a corpus or UN-text line fails `data validate` and a run
naming the file and the line, before anything is asked."""

from __future__ import annotations

import json
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from nationbias.evals.cli.main import app
from nationbias.stores.corpora.bundled import corpus_file
from nationbias.stores.corpora.un_texts import un_texts_file
from tests.support.fake_answers import default_content
from tests.support.fixtures import FaultServerFactory
from tests.support.reliability import MODEL, rows

VOTE = ["run", "vote", "-m", MODEL, "--limit", "2", "--repeats", "1"]
LONE = "\ud83d"  # the first half of 🌍's pair, alone


def _with_surrogate(body: dict[str, Any]) -> str:
    return f"{LONE} {default_content(body)}"


def test_an_answer_with_a_lone_surrogate_is_stored_not_lost(
    isolated_home: Path, fault_server: FaultServerFactory
) -> None:
    server = fault_server(responder=_with_surrogate)  # json.dumps sends it as the escape \ud83d
    result = CliRunner().invoke(app, [*VOTE, "--base-url", server.base_url, "--run-id", "s"])
    assert result.exit_code == 0, result.output
    stored = rows(isolated_home, "s")
    assert len(stored) == 10 and not [r for r in stored if r["status"] == "error"], stored[0]["error"]
    assert all(r["raw"].startswith("\\ud83d ") for r in stored)  # the escape, as the server sent it
    with closing(sqlite3.connect(isolated_home / "cache.sqlite")) as conn:
        cached = [json.loads(blob) for (blob,) in conn.execute("SELECT response FROM responses")]
    assert len(cached) == 10 and all(entry["raw"].startswith(LONE) for entry in cached)  # lossless
    exported = CliRunner().invoke(app, ["runs", "export", "s", "--format", "jsonl"])
    assert exported.exit_code == 0, exported.output


def _data_folder(tmp: Path) -> Path:
    """A copy of the packaged data a run reads (the corpus and the UN's texts), as NATIONBIAS_DATA."""
    root = tmp / "data"
    (root / "unsc" / "un_texts").mkdir(parents=True)
    (root / "unsc" / "corpus.jsonl").write_bytes(corpus_file().content())
    for language in ("en", "fr", "es", "ru", "zh", "ar"):
        (root / "unsc" / "un_texts" / f"{language}.jsonl").write_bytes(un_texts_file(language).content())
    return root


def _spoil_line(path: Path, number: int) -> None:
    """Put a lone surrogate escape into the first long string of line ``number``."""
    lines = path.read_text(encoding="utf-8").splitlines()
    obj = json.loads(lines[number - 1])
    key = next(k for k, v in obj.items() if isinstance(v, str) and len(v) > 20)
    obj[key] = obj[key][:10] + LONE + obj[key][10:]
    lines[number - 1] = json.dumps(obj)  # ASCII: the surrogate written as \ud83d
    assert "\\ud83d" in lines[number - 1]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.mark.parametrize("name", ["unsc/corpus.jsonl", "unsc/un_texts/fr.jsonl"])
def test_a_lone_surrogate_in_the_data_fails_validate_naming_the_file_and_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    root = _data_folder(tmp_path)
    _spoil_line(root / name, 4)
    monkeypatch.setenv("NATIONBIAS_DATA", str(root))
    result = CliRunner().invoke(app, ["data", "validate"])
    assert result.exit_code == 2, result.output
    assert f"{root / name}:4" in result.output and "lone surrogate" in result.output, result.output
    assert "Traceback" not in result.output


def test_a_lone_surrogate_in_a_corpus_context_stops_a_run_before_any_call(
    tmp_path: Path, fault_server: FaultServerFactory
) -> None:
    server = fault_server()
    root = _data_folder(tmp_path)
    _spoil_line(root / "unsc/corpus.jsonl", 3)
    args = [*VOTE, "--debias", "--base-url", server.base_url, "--data", str(root)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and "corpus.jsonl:3" in errors[0] and "lone surrogate" in errors[0], result.output
    assert sum(server.prompt_counts().values()) == 0
    shutil.rmtree(root)
