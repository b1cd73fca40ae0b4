"""Bad input: one line on stderr naming what is wrong and where, exit code 2, and nothing written
(no new file under NATIONBIAS_HOME, no run registered, a corrupt store left byte-for-byte as found)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import pytest
from typer.testing import CliRunner

from nationbias.evals.cli.main import app
from tests.support.reliability import MODEL, files_under

DEAD_URL = "http://127.0.0.1:9/v1"  # nothing must be asked: any call would fail loudly
VOTE = ["run", "vote", "-m", MODEL, "--limit", "1", "--repeats", "1"]
Setup = Callable[[Path, Path], list[str]]  # (home, tmp) -> extra CLI args


def _corpus(tmp: Path, edit: Callable[[list[dict[str, object]]], list[str]]) -> Path:
    """A data folder whose unsc/corpus.jsonl is the real corpus with ``edit`` applied."""
    from nationbias.stores.corpora.bundled import corpus_file

    lines = corpus_file().content().decode("utf-8").splitlines()
    root = tmp / "data"
    (root / "unsc").mkdir(parents=True)
    (root / "unsc" / "corpus.jsonl").write_text("\n".join(edit([json.loads(x) for x in lines])) + "\n")
    return root


def _bad_json(records: list[dict[str, object]]) -> list[str]:
    out = [json.dumps(r) for r in records]
    out[5] = out[5][:40]  # line 6 cut short
    return out


def _missing_field(records: list[dict[str, object]]) -> list[str]:
    del records[2]["tally"]  # line 3
    return [json.dumps(r) for r in records]


def _bad_vote(records: list[dict[str, object]]) -> list[str]:
    votes = records[3]["votes"]  # line 4
    assert isinstance(votes, dict)
    votes["China"] = "Z"
    return [json.dumps(r) for r in records]


def _garbage(name: str) -> Setup:
    def setup(home: Path, tmp: Path) -> list[str]:
        home.mkdir(parents=True, exist_ok=True)
        (home / name).write_bytes(b"this is not sqlite\x00\xff" * 300)
        return []

    return setup


def _undl_missing_columns(home: Path, tmp: Path) -> list[str]:
    path = tmp / "export.csv"
    path.write_text("Council,Date\nSecurity Council,2001-01-01\n", encoding="utf-8")
    return [str(path)]


def _undl_bad_date(home: Path, tmp: Path) -> list[str]:
    path = tmp / "export.csv"
    header = "Council,Date,Title,Resolution,ABSENT COUNT,Link,token,UNITED STATES"
    good = "Security Council,2001-01-01,A title,S/RES/1 (2001),0,http://x,t1,Y"
    bad = "Security Council,01/02/2001,A title,S/RES/2 (2001),0,http://x,t2,Y"
    path.write_text("\n".join([header, good, bad]) + "\n", encoding="utf-8")
    return [str(path)]


def _none(home: Path, tmp: Path) -> list[str]:
    return []


CASES: list[tuple[str, list[str], Setup, list[str]]] = [
    # id, args, setup, what the one line must name
    (
        "corpus-json",
        VOTE,
        lambda h, t: ["--data", str(_corpus(t, _bad_json))],
        ["corpus.jsonl:6", "invalid JSON"],
    ),
    (
        "corpus-field",
        VOTE,
        lambda h, t: ["--data", str(_corpus(t, _missing_field))],
        ["corpus.jsonl:3", "tally"],
    ),
    (
        "corpus-vote",
        VOTE,
        lambda h, t: ["--data", str(_corpus(t, _bad_vote))],
        ["corpus.jsonl:4", "votes.China"],
    ),
    ("undl-columns", ["data", "import-undl"], _undl_missing_columns, ["export.csv", "missing column"]),
    ("undl-row", ["data", "import-undl"], _undl_bad_date, ["export.csv:3", "date"]),
    ("model-spec", ["run", "vote", "-m", "nope:x"], _none, ["unknown provider 'nope'"]),
    ("model-malformed", ["run", "vote", "-m", "gpt4"], _none, ["malformed model spec 'gpt4'"]),
    ("k", [*VOTE, "--debias", "--k", "-1"], _none, ["k must be >= 0", "-1"]),
    ("retriever", [*VOTE, "--debias", "--retriever", "magic"], _none, ["unknown retriever 'magic'"]),
    ("persona", [*VOTE, "--personas", "XYZ"], _none, ["unknown persona", "XYZ"]),
    ("run-id", [*VOTE, "--run-id", "../x"], _none, ["invalid run id '../x'"]),
    ("export-unknown", ["runs", "export", "nope"], _none, ["no run 'nope'", "runs.sqlite"]),
    ("export-invalid", ["runs", "export", "../x"], _none, ["invalid run id '../x'"]),
    ("runstore-corrupt", VOTE, _garbage("runs.sqlite"), ["runs.sqlite", "not a usable SQLite database"]),
    ("runstore-list", ["runs", "list"], _garbage("runs.sqlite"), ["runs.sqlite", "not a usable SQLite"]),
    ("cache-corrupt", VOTE, _garbage("cache.sqlite"), ["cache.sqlite", "not a usable SQLite database"]),
    ("cache-stats", ["cache", "stats"], _garbage("cache.sqlite"), ["cache.sqlite", "not a usable SQLite"]),
]


@pytest.mark.parametrize(("args", "setup", "names"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_is_one_line_exit_2_and_writes_nothing(
    args: list[str],
    setup: Setup,
    names: list[str],
    isolated_home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("NATIONBIAS_BASE_URL", DEAD_URL)
    inputs = tmp_path / "inputs"
    inputs.mkdir()
    extra = setup(isolated_home, inputs)
    before = files_under(isolated_home)
    contents = {path: Path(path).read_bytes() for path in before}

    result = CliRunner().invoke(app, [*args, *extra])

    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    for name in names:
        assert name in lines[0], (name, lines[0])
    assert files_under(isolated_home) == before  # no runs.sqlite, cache, checkpoints or derived file
    assert {path: Path(path).read_bytes() for path in before} == contents


def test_bad_input_registers_no_run_in_an_existing_store(
    isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from nationbias.stores.state.runstore import RunStore

    monkeypatch.setenv("NATIONBIAS_BASE_URL", DEAD_URL)
    store = RunStore()
    store.create_run("earlier", {"test": "vote", "model": MODEL})
    store.close()
    bad = [["--personas", "XYZ"], ["--debias", "--k", "-1"], ["--debias", "--retriever", "magic"]]
    for n, extra in enumerate(bad):
        result = CliRunner().invoke(app, [*VOTE, *extra, "--run-id", f"bad-{n}"])
        assert result.exit_code == 2, result.output
    with closing(sqlite3.connect(isolated_home / "runs.sqlite")) as conn:
        assert conn.execute("SELECT run_id FROM runs").fetchall() == [("earlier",)]
        assert conn.execute("SELECT COUNT(*) FROM samples").fetchone()[0] == 0
    assert not (isolated_home / "cache.sqlite").exists()
