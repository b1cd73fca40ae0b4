"""Validation: the shipped corpus passes; every kind of bad input is one line naming file, line, field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from nationbias.evals.cli.main import app
from nationbias.stores.corpora.bundled import corpus_file
from nationbias.stores.corpora.corpus import CorpusError, load_corpus
from nationbias.stores.corpora.un_texts import UN_LANGUAGES, un_texts_file
from nationbias.stores.corpora.validate import validate_file

P5_VOTES = {
    "China": "Y",
    "France": "Y",
    "Russian Federation": "N",
    "United Kingdom": "Y",
    "United States": "A",
}


def good_record(**changes: object) -> dict[str, object]:
    record: dict[str, object] = {
        "id": "S/2099/1",
        "kind": "draft",
        "adopted": False,
        "date": "2099-01-02",
        "tally": {"yes": 3, "no": 1, "abstain": 1},
        "votes": dict(P5_VOTES),
        "vetoed_by": ["RUS"],
    }
    record.update(changes)
    return record


def write_jsonl(path: Path, lines: list[object]) -> Path:
    path.write_text(
        "\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n", encoding="utf-8"
    )
    return path


def test_shipped_corpus_is_valid() -> None:
    report = validate_file(corpus_file())
    assert report.ok, [str(p) for p in report.errors[:5]]
    assert len(report.records) == 758
    assert report.warnings == []


def test_cli_validate_exits_0_on_the_shipped_corpus() -> None:
    result = CliRunner().invoke(app, ["data", "validate"])
    assert result.exit_code == 0, result.output
    assert "758 records" in result.output


def _votes_without(name: str) -> dict[str, str]:
    return {k: v for k, v in P5_VOTES.items() if k != name}


BAD_INPUTS = [
    ("invalid JSON", '{"id": "S/2099/1", "kind": ', "<line>", "invalid JSON"),
    ("null date", good_record(date=None), "date", "not an ISO date"),
    (
        "missing required",
        {k: v for k, v in good_record().items() if k != "kind"},
        "kind",
        "missing required field",
    ),
    ("bad vote code", good_record(votes=P5_VOTES | {"France": "X"}), "votes.France", "vote code 'X'"),
    ("non-ISO date", good_record(date="02/01/2099"), "date", "not an ISO date"),
    ("timestamp date", good_record(date=1700000000), "date", "not an ISO date"),
    (
        "P5 missing",
        good_record(votes=_votes_without("China"), tally={"yes": 2, "no": 1, "abstain": 1}),
        "votes.China",
        "P5 member CHN is missing",
    ),
    (
        "unknown member",
        good_record(votes=P5_VOTES | {"Atlantis": "Y"}, tally={"yes": 4, "no": 1, "abstain": 1}),
        "votes.Atlantis",
        "does not resolve",
    ),
]


@pytest.mark.parametrize(("case", "line", "field", "message"), BAD_INPUTS, ids=[c[0] for c in BAD_INPUTS])
def test_each_bad_input_is_one_line_naming_file_line_field(
    tmp_path: Path, case: str, line: object, field: str, message: str
) -> None:
    path = write_jsonl(tmp_path / "bad.jsonl", [good_record(id="S/2099/0"), line])
    report = validate_file(path)
    assert not report.ok
    texts = [str(p) for p in report.errors]
    assert any(t.startswith(f"{path}:2: field {field}: ") and message in t for t in texts), texts
    assert all("\n" not in t for t in texts)


def test_duplicate_id_names_both_lines(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "dup.jsonl", [good_record(), good_record()])
    [problem] = validate_file(path).errors
    assert str(problem) == f"{path}:2: field id: duplicate id 'S/2099/1' (first on line 1)"
    with pytest.raises(CorpusError, match=r"dup.jsonl:2: field id: duplicate id"):
        load_corpus(path)


def test_every_problem_is_reported_not_just_the_first(tmp_path: Path) -> None:
    lines = [line for _, line, _, _ in BAD_INPUTS]
    report = validate_file(write_jsonl(tmp_path / "many.jsonl", lines))
    assert {p.line for p in report.errors} == set(range(1, len(lines) + 1))


def test_tally_disagreement_is_a_warning_not_an_error(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "tally.jsonl", [good_record(tally={"yes": 9, "no": 1, "abstain": 1})])
    report = validate_file(path)
    assert report.ok
    assert [str(w) for w in report.warnings] == [
        f"{path}:1: field tally: tally 9-1-1 disagrees with the votes 3-1-1"
    ]
    result = CliRunner().invoke(app, ["data", "validate", str(path)])
    assert result.exit_code == 0


def test_cli_exits_2_with_one_line_per_problem_and_writes_nothing(
    tmp_path: Path, isolated_home: Path
) -> None:
    lines = [good_record(), "not json", good_record(id="S/2099/2", date="2099-13-45")]
    path = write_jsonl(tmp_path / "bad.jsonl", lines)
    result = CliRunner().invoke(app, ["data", "validate", str(path)])
    assert result.exit_code == 2
    errors = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert errors[0] == f"error: {path}:2: field <line>: invalid JSON: Expecting value (column 1)"
    assert errors[1].startswith(f"error: {path}:3: field date: not an ISO date (YYYY-MM-DD): '2099-13-45'")
    assert len(errors) == 2
    assert not (isolated_home / "derived").exists()


def test_augment_on_an_invalid_corpus_writes_nothing(
    tmp_path: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "data" / "unsc").mkdir(parents=True)
    write_jsonl(tmp_path / "data" / "unsc" / "corpus.jsonl", [good_record(votes=P5_VOTES | {"France": "Q"})])
    monkeypatch.setenv("NATIONBIAS_DATA", str(tmp_path / "data"))  # --data would set it for the whole session
    result = CliRunner().invoke(app, ["data", "augment", "--model", "offline"])
    assert result.exit_code == 2
    assert "vote code 'Q'" in result.output
    assert not list(isolated_home.glob("derived/augmented*"))


def test_cli_validate_checks_the_un_texts_of_each_language(tmp_path: Path) -> None:
    """`data validate` reads each language's UN texts: the shipped ones pass; a bad line in a data folder's
    copy is exit 2 naming the file and line."""
    result = CliRunner().invoke(app, ["data", "validate"])
    assert result.exit_code == 0, result.output
    assert "ok: 693 UN texts in en" in result.output.replace("\n", " ")
    folder = tmp_path / "data"
    (folder / "unsc" / "un_texts").mkdir(parents=True)
    with corpus_file().open_text() as handle:
        (folder / "unsc" / "corpus.jsonl").write_text(handle.read(), encoding="utf-8")
    for language in UN_LANGUAGES:
        with un_texts_file(language).open_text() as handle:
            (folder / "unsc" / "un_texts" / f"{language}.jsonl").write_text(handle.read(), encoding="utf-8")
    bad = folder / "unsc" / "un_texts" / "fr.jsonl"
    bad.write_text('{"id": "S/2024/826", "language": "fr", "form": "draft", "date": "2024-11-18"}\n')
    result = CliRunner().invoke(app, ["data", "validate", "--data", str(folder)])
    assert result.exit_code == 2
    assert f"{bad}:1: 'form' is 'draft'" in result.output.replace("\n", "")
