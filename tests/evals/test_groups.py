"""Bias as a gap between groups: the scores of a group and of the rest, a paired interval, clear errors."""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from nationbias.evals.cli.main import app
from nationbias.evals.stats.groups import group_gaps, load_groups
from nationbias.stores.errors import InputError

# Two items; members A1, A2 (group A) always right, B1 right on one item of two, B2 never.
ROWS = [
    ("i1", "A1", "favour", "favour"), ("i1", "A2", "against", "against"),
    ("i1", "B1", "favour", "favour"), ("i1", "B2", "favour", "against"),
    ("i2", "A1", "abstention", "abstention"), ("i2", "A2", "favour", "favour"),
    ("i2", "B1", "against", "favour"), ("i2", "B2", "favour", "abstention"),
]  # fmt: skip


def _frame() -> pd.DataFrame:
    frame = pd.DataFrame(ROWS, columns=["item_id", "member", "truth", "predicted"])
    return frame.assign(baseline="rule", date="2020-01-01")


def test_gap_is_the_group_minus_the_rest_counted_by_hand() -> None:
    table = group_gaps(_frame(), {"A1": "A", "A2": "A", "B1": "B", "B2": "B"}, n_resamples=200)
    a = table.set_index("group").loc["A"]
    assert (a["votes"], a["members"]) == (4, 2)
    assert a["accuracy"] == 1.0 and a["accuracy_rest"] == 0.25  # B: 1 right of 4
    assert a["accuracy_gap"] == pytest.approx(0.75)
    assert a["accuracy_gap_low"] <= a["accuracy_gap"] <= a["accuracy_gap_high"]
    b = table.set_index("group").loc["B"]
    assert b["accuracy_gap"] == pytest.approx(-0.75) and b["weighted_f1"] < b["weighted_f1_rest"]


def test_a_member_without_a_group_counts_in_the_rest_only() -> None:
    table = group_gaps(_frame(), {"A1": "A"}, n_resamples=100)
    assert list(table["group"]) == ["A"]
    assert table["accuracy_rest"].iloc[0] == pytest.approx(3 / 6)  # A2 right twice, B1 once, B2 never


def test_built_in_groupings() -> None:
    assert load_groups("p5", ["USA", "BRA", "CHN"]) == {"USA": "P5", "CHN": "P5"}
    regions = load_groups("regions", ["USA", "BRA", "NGA", "POL", "JPN"])
    assert regions == {"USA": "WEOG", "BRA": "GRULAC", "NGA": "African", "POL": "Eastern European",
                       "JPN": "Asia-Pacific"}  # fmt: skip


def test_a_users_csv_and_its_errors_name_the_file_and_line(tmp_path: Path) -> None:
    good = tmp_path / "blocs.csv"
    good.write_text("code,group\nusa,West\nBRA,South\n", encoding="utf-8")
    assert load_groups(str(good), ["USA", "BRA", "IND"]) == {"USA": "West", "BRA": "South"}
    with pytest.raises(InputError, match="no such file"):
        load_groups(str(tmp_path / "none.csv"), ["USA"])
    bad_header = tmp_path / "header.csv"
    bad_header.write_text("iso,bloc\nUSA,West\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"missing column.*code, group"):
        load_groups(str(bad_header), ["USA"])
    unknown = tmp_path / "unknown.csv"
    unknown.write_text("code,group\nUSA,West\nXYZ,Nowhere\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"XYZ \(line 3\)"):
        load_groups(str(unknown), ["USA"])
    empty = tmp_path / "empty.csv"
    empty.write_text("code,group\nUSA,\n", encoding="utf-8")
    with pytest.raises(InputError, match="line 2: empty code or group"):
        load_groups(str(empty), ["USA"])
    with pytest.raises(InputError, match="no member"):
        group_gaps(_frame(), {}, n_resamples=10)


def test_the_cli_scores_groups_of_the_council(tmp_path: Path) -> None:
    blocs = tmp_path / "camps.csv"
    blocs.write_text("code,group\nUSA,West\nGBR,West\nFRA,West\nRUS,East\nCHN,East\n", encoding="utf-8")
    runner = CliRunner()
    result = runner.invoke(
        app,
        ["baselines", "--years", "2019-2024", "--groups", str(blocs), "--format", "csv", "--resamples", "50"],
    )
    assert result.exit_code == 0, result.output
    table = pd.read_csv(io.StringIO(result.stdout))
    assert (
        set(table["group"]) == {"West", "East"}
        and (table["members"] == table["group"].map({"West": 3, "East": 2})).all()
    )
    # The two groups' gaps mirror each other for each baseline (the rest of West is East).
    gaps = table.pivot(index="baseline", columns="group", values="accuracy_gap")
    assert (gaps["West"] + gaps["East"]).abs().max() == pytest.approx(0.0, abs=1e-9)
    bad = runner.invoke(app, ["baselines", "--groups", str(tmp_path / "missing.csv"), "--resamples", "10"])
    assert bad.exit_code == 2 and "--groups" in bad.stderr
