"""`nationbias baselines`: the table, the CSV, the predictions file, and clear errors for bad options."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from nationbias.evals.baselines.assembly import METHODS as UNGA_METHODS
from nationbias.evals.baselines.council import METHODS
from nationbias.evals.cli.baselines import ALL_MEMBERS, BODIES, parse_years
from nationbias.evals.cli.main import app
from nationbias.stores.domain import P5, VOTES

runner = CliRunner()
FAST = ["--resamples", "50"]


@pytest.fixture(scope="module")
def csv_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[pd.DataFrame, Path]:
    folder = tmp_path_factory.mktemp("baselines")
    path = folder / "predictions.csv"
    result = runner.invoke(
        app, ["baselines", "--body", "unsc", "--years", "2019-2024", "--format", "csv",
              "--predictions", str(path), "--explain", str(folder / "explained.jsonl"), *FAST],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return pd.read_csv(io.StringIO(result.stdout)), path


def test_explanations_export_every_learned_prediction(csv_run) -> None:  # type: ignore[no-untyped-def]
    _, path = csv_run
    predictions = pd.read_csv(path)
    learned = predictions[predictions["baseline"] == "learned"]
    lines = (path.parent / "explained.jsonl").read_text(encoding="utf-8").splitlines()
    explained = [json.loads(line) for line in lines]
    assert len(explained) == len(learned)
    assert [(e["item"], e["member"], e["predicted"]) for e in explained] == list(
        zip(learned["item_id"], learned["member"], learned["predicted"], strict=True)
    )
    for entry in explained:
        assert all(p["date"] < entry["date"] for p in entry["precedents"])
        total = sum(part["contribution"] for part in entry["contributions"]) + entry["intercept"]
        assert total == pytest.approx(entry["score"], abs=1e-9)


def test_csv_has_one_row_per_baseline_and_member(csv_run) -> None:  # type: ignore[no-untyped-def]
    table, _ = csv_run
    required = ["baseline", "member", "accuracy", "weighted_f1", *(f"f1_{v}" for v in VOTES)]
    assert set(required) <= set(table.columns)
    assert len(table) == len(METHODS) * (len(P5) + 1)
    members = {*P5, ALL_MEMBERS}
    assert set(zip(table["baseline"], table["member"], strict=True)) == {
        (b, m) for b in METHODS for m in members
    }
    for metric in ("accuracy", "weighted_f1"):
        low, point, high = table[f"{metric}_low"], table[metric], table[f"{metric}_high"]
        assert ((low <= point + 1e-9) & (point <= high + 1e-9)).all()


def test_predictions_file_scores_the_same(corpus, csv_run) -> None:  # type: ignore[no-untyped-def]
    table, path = csv_run
    predictions = pd.read_csv(path)
    assert list(predictions.columns) == ["baseline", "item_id", "date", "member", "predicted", "truth"]
    drafts = [d for d in corpus.drafts if 2019 <= d.date.year <= 2024]
    assert len(predictions) == len(METHODS) * len(P5) * len(drafts)
    assert set(predictions["item_id"]) == {d.id for d in drafts}
    assert set(predictions["predicted"]) <= set(VOTES) and set(predictions["member"]) == set(P5)
    # Anyone can rescore the file: its accuracy is the table's.
    correct = predictions["predicted"] == predictions["truth"]
    hits = correct.groupby([predictions["baseline"], predictions["member"]]).mean()
    indexed = table.set_index(["baseline", "member"])["accuracy"]
    for key, value in hits.items():
        assert indexed[key] == pytest.approx(value, abs=1e-4)
    pooled = correct.groupby(predictions["baseline"]).mean()  # the "all" row pools every member's votes
    for baseline, value in pooled.items():
        assert indexed[(baseline, ALL_MEMBERS)] == pytest.approx(value, abs=1e-4)


def test_table_names_every_baseline(corpus) -> None:  # type: ignore[no-untyped-def]
    result = runner.invoke(app, ["baselines", "--years", "2023", *FAST], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    for method in METHODS:
        assert method in result.stdout
    assert "mean weighted F1" in result.stdout


@pytest.mark.parametrize("years", ["2019-2013", "20x9", "2013-", "1990-1991"])
def test_bad_years_is_a_clear_error(years: str) -> None:
    result = runner.invoke(app, ["baselines", "--years", years, *FAST])
    assert result.exit_code == 2
    assert "--years" in result.stderr


def test_the_assembly_body_scores_every_state_and_rescores_from_its_file(tmp_path: Path) -> None:
    path = tmp_path / "unga.csv"
    explained_path = tmp_path / "explained.jsonl"
    result = runner.invoke(
        app, ["baselines", "--body", "unga", "--years", "2019", "--format", "csv", "--predictions", str(path),
              "--explain", str(explained_path), *FAST],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    table, predictions = pd.read_csv(io.StringIO(result.stdout)), pd.read_csv(path)
    model = predictions[predictions["baseline"] == "model"]
    with explained_path.open(encoding="utf-8") as lines:  # every prediction explained, the same vote
        explained = {(e["item"], e["member"]): (e["predicted"], e["score"], e["intercept"],
                                                sum(c["contribution"] for c in e["contributions"]))
                     for e in map(json.loads, lines)}  # fmt: skip
    assert {k: v[0] for k, v in explained.items()} == {
        (f"UNGA-{i}", m): p
        for i, m, p in zip(model["item_id"], model["member"], model["predicted"], strict=True)
    }
    assert all(score == pytest.approx(base + parts, abs=1e-6) for _, score, base, parts in explained.values())
    assert set(predictions["baseline"]) == set(UNGA_METHODS)
    assert predictions["date"].str.startswith("2019-").all() and predictions["member"].str.len().eq(3).all()
    assert predictions["member"].nunique() > 180 and set(predictions["predicted"]) <= set(VOTES)
    correct = (predictions["predicted"] == predictions["truth"]).groupby(predictions["baseline"]).mean()
    pooled = table[table["member"] == ALL_MEMBERS].set_index("baseline")["accuracy"]
    for baseline, value in correct.items():
        assert pooled[baseline] == pytest.approx(value, abs=1e-4)
    shown = runner.invoke(
        app, ["baselines", "--body", "unga", "--years", "2019", *FAST], env={"COLUMNS": "200"}
    )
    assert shown.exit_code == 0 and "UNSim" in shown.stdout and "per state: --format csv" in shown.stdout


def test_unknown_bodies_are_named() -> None:
    assert set(BODIES) == {"unsc", "unga"}
    result = runner.invoke(app, ["baselines", "--body", "mars", *FAST])
    assert result.exit_code == 2 and "--body" in result.stderr and "mars" in result.stderr


def test_bad_format_is_a_clear_error() -> None:
    result = runner.invoke(app, ["baselines", "--format", "xml", *FAST])
    assert result.exit_code == 2 and "--format" in result.stderr


def test_parse_years() -> None:
    assert parse_years("2013-2024") == (2013, 2024)
    assert parse_years("2019") == (2019, 2019)
    assert parse_years(None) is None
