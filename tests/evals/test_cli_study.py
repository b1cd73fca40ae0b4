"""`ablate`, `report` and `demo` through the CLI."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from nationbias.evals.cli.common import UsageError
from nationbias.evals.cli.main import app
from nationbias.evals.cli.study import Cell, grid_cells, parse_grid
from nationbias.stores.state.runstore import RunStore


def test_grid_accepts_space_and_comma_separated_values() -> None:
    grid = parse_grid(["--k", "1", "2", "--reflexion", "on", "off", "--retriever", "keyword,bm25"])
    cells = grid_cells(grid)
    assert len(cells) == 8 and Cell(2, False, "bm25") in cells
    with pytest.raises(UsageError, match="unknown retriever"):
        grid_cells(parse_grid(["--retriever", "tfidf"]))
    with pytest.raises(UsageError, match="--k must be >= 0"):
        grid_cells(parse_grid(["--k", "-1"]))
    with pytest.raises(UsageError, match="on/off"):
        grid_cells(parse_grid(["--reflexion", "maybe"]))


def test_ablate_one_run_per_cell_and_table4(fault_server) -> None:  # type: ignore[no-untyped-def]
    server = fault_server()
    result = CliRunner().invoke(
        app,
        [
            "ablate",
            "--model",
            "openai-compatible:fault-model",
            "--base-url",
            server.base_url,
            "--limit",
            "2",
            "--repeats",
            "1",
            "--run-id",
            "abl",
            "--k",
            "0",
            "1",
            "--reflexion",
            "on",
            "off",
        ],
    )
    assert result.exit_code == 0, result.output
    runs = RunStore().runs_frame()
    assert sorted(runs["run_id"]) == sorted(
        [
            "abl-debias-k0-rf-keyword",
            "abl-debias-k0-norf-keyword",
            "abl-debias-k1-rf-keyword",
            "abl-debias-k1-norf-keyword",
        ]
    )
    assert (runs["ok"] + runs["invalid"] == 10).all()
    assert "mean_weighted_f1" in result.output
    rows = [line.split() for line in result.output.splitlines()]
    printed = {cells[0]: cells for cells in rows if cells and cells[0].startswith("abl-")}
    for run_id, cells in printed.items():  # each id on its own cell's row: k and reflexion as named
        k, reflexion = run_id.split("-")[2:4]
        assert cells[2] == k.removeprefix("k") and cells[3] == str(reflexion == "rf"), (run_id, cells)
    assert len(printed) == 4


@pytest.mark.parametrize("command", ["ablate", "study"])
def test_bad_grid_exits_2_before_any_work(command: str, isolated_home: Path) -> None:
    """`study` takes the ablation's grid as `ablate` does; a bad one fails before anything runs."""
    result = CliRunner().invoke(app, [command, "--model", "fake:hash", "--retriever", "nope"])
    assert result.exit_code == 2 and "unknown retriever(s) ['nope']" in result.output
    typo = CliRunner().invoke(app, [command, "--model", "fake:hash", "--limt", "1"])
    assert typo.exit_code == 2 and "unknown option '--limt'" in typo.output
    assert not (Path(RunStore().path)).exists() or RunStore().runs_frame().empty
