"""`--max-cost`: a run stops before a call could take the spend over the cap, keeps what it did, and
says how to go on; a rerun with a higher cap completes with the rows an uncapped run gets. Bad caps
and unpriced models are bad input (exit 2), refused before anything is sent or written."""

from __future__ import annotations

import json
import re
import shlex
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from typer.testing import CliRunner

from nationbias.evals.cli.main import app
from tests.support.fixtures import FaultServerFactory
from tests.support.reliability import MODEL, rows

TOTAL = 4 * 5  # 4 drafts x the P5, one repeat: one call each
PRICED = ["--price-in", "1000", "--price-out", "1000"]  # USD per 1M tokens: a few calls reach $2
RESUME = re.compile(r" · resume: (nationbias .*)$")


def vote(run_id: str, *extra: str) -> list[str]:
    return ["run", "vote", "-m", MODEL, "--limit", "4", "--repeats", "1", "--run-id", run_id, *extra]


def cost(home: Path, run_id: str) -> dict[str, Any]:
    with closing(sqlite3.connect(home / "runs.sqlite")) as conn:
        (config,) = conn.execute("SELECT config FROM runs WHERE run_id = ?", (run_id,)).fetchone()
    recorded: dict[str, Any] = json.loads(config)["cost"]
    return recorded


def votes(home: Path, run_id: str) -> dict[str, Any]:
    return {(r["item"], r["persona"]): (r["status"], r["parsed"]) for r in rows(home, run_id)}


def test_the_cap_stops_the_run_before_it_is_exceeded_and_a_higher_cap_finishes_it(
    fault_server: FaultServerFactory, isolated_home: Path
) -> None:
    server = fault_server()
    runner = CliRunner(env={"NATIONBIAS_BASE_URL": server.base_url})
    capped = runner.invoke(app, vote("capped", "--max-cost", "2", *PRICED))
    assert capped.exit_code == 1, capped.output
    assert "error: --max-cost $2 reached" in capped.stderr
    stored = rows(isolated_home, "capped")
    assert 0 < len(stored) < TOTAL
    assert server.count() == len(stored)  # every call sent was answered and kept
    spent = cost(isolated_home, "capped")
    assert 0 < spent["usd"] <= 2 and spent["calls"] == len(stored)
    resume = RESUME.search(capped.stderr.strip().splitlines()[-1])
    assert resume is not None, capped.stderr
    words = shlex.split(resume.group(1))
    assert words[words.index("--max-cost") + 1] == "4.0" and words[-2:] == ["--run-id", "capped"]

    # The same cap again: the stored spend counts, so it goes on only as far as the same $2 allows
    same = runner.invoke(app, vote("capped", "--max-cost", "2", *PRICED))
    assert same.exit_code == 1, same.output
    assert server.count() == len(rows(isolated_home, "capped")) < TOTAL
    assert spent["usd"] <= cost(isolated_home, "capped")["usd"] <= 2

    higher = runner.invoke(app, words[1:])  # the printed command: a higher cap
    assert higher.exit_code in (0, 1), higher.output
    while higher.exit_code == 1:  # still short: raise again, as the summary line says
        words = shlex.split(RESUME.search(higher.stderr.strip().splitlines()[-1]).group(1))  # type: ignore[union-attr]
        higher = runner.invoke(app, words[1:])
    assert len(rows(isolated_home, "capped")) == TOTAL
    assert server.count() == TOTAL  # nothing asked twice
    assert cost(isolated_home, "capped")["calls"] == TOTAL
    assert cost(isolated_home, "capped")["usd"] > 2

    free = runner.invoke(app, vote("uncapped", "--no-cache"))
    assert free.exit_code == 0, free.output
    assert votes(isolated_home, "capped") == votes(isolated_home, "uncapped")


def test_the_spend_is_stored_with_every_run_and_the_report_shows_it(
    fault_server: FaultServerFactory, isolated_home: Path, tmp_path: Path
) -> None:
    server = fault_server()
    prices = tmp_path / "prices.toml"
    prices.write_text(f'[models."{MODEL}"]\ninput = 1000\noutput = 1000\n', encoding="utf-8")
    env = {"NATIONBIAS_BASE_URL": server.base_url, "NATIONBIAS_PRICES": str(prices), "COLUMNS": "250"}
    runner = CliRunner(env=env)
    result = runner.invoke(app, vote("spend"))
    assert result.exit_code == 0, result.output
    spent = cost(isolated_home, "spend")
    assert f"spent ${spent['usd']:.4f}" in result.stderr  # the progress display's last state
    assert spent["calls"] == TOTAL == server.count()
    assert spent["usd"] == pytest.approx((spent["prompt_tokens"] + spent["completion_tokens"]) * 1000 / 1e6)

    report = runner.invoke(app, ["report", "spend", "--out", str(tmp_path / "report")])
    assert report.exit_code == 0, report.output
    (row,) = pd.read_csv(tmp_path / "report" / "run-cost.csv").to_dict(orient="records")
    samples = rows(isolated_home, "spend")
    assert row["prompt_tokens"] == sum(r["prompt_tokens"] for r in samples) == spent["prompt_tokens"]
    assert row["model_calls"] == TOTAL
    assert row["spent"] == row["cost_at_table_price"] == f"${spent['usd']:.4f}"  # no call was cached
    assert 'id="run-cost"' in (tmp_path / "report" / "index.html").read_text(encoding="utf-8")


def _refused(result: Any, server: Any, home: Path, expected: str) -> None:
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and expected in lines[0], result.stderr
    assert server.count() == 0 and not (home / "runs.sqlite").exists()


def test_a_zero_or_negative_cap_is_bad_input(fault_server: FaultServerFactory, isolated_home: Path) -> None:
    server = fault_server()
    runner = CliRunner(env={"NATIONBIAS_BASE_URL": server.base_url})
    for cap in ("0", "-1"):
        result = runner.invoke(app, vote("bad", "--max-cost", cap, *PRICED))
        _refused(result, server, isolated_home, "--max-cost must be a positive number of US dollars")


def test_a_cap_on_an_unpriced_model_is_bad_input_unless_a_price_is_given(
    fault_server: FaultServerFactory, isolated_home: Path, tmp_path: Path
) -> None:
    server = fault_server()
    runner = CliRunner(env={"NATIONBIAS_BASE_URL": server.base_url})
    result = runner.invoke(app, vote("unpriced", "--max-cost", "5"))
    _refused(result, server, isolated_home, f"--max-cost needs a price for {MODEL}")
    half = runner.invoke(app, vote("unpriced", "--max-cost", "5", "--price-in", "1"))
    _refused(half, server, isolated_home, "--price-in and --price-out go together")

    prices = tmp_path / "prices.toml"
    prices.write_text(f'[models."{MODEL}"]\ninput = 1.0\noutput = 2.0\n', encoding="utf-8")
    by_file = runner.invoke(app, vote("priced", "--max-cost", "5", "--prices", str(prices)))
    assert by_file.exit_code == 0, by_file.output
    spent = cost(isolated_home, "priced")
    assert spent["usd"] == pytest.approx((spent["prompt_tokens"] + spent["completion_tokens"] * 2.0) / 1e6)


def test_a_debiased_vote_stopped_mid_sample_resumes_to_the_rows_of_an_uncapped_run(
    fault_server: FaultServerFactory, isolated_home: Path
) -> None:
    server = fault_server()
    runner = CliRunner(env={"NATIONBIAS_BASE_URL": server.base_url})
    debias = ["run", "vote", "--debias", "-m", MODEL, "--limit", "2", "--repeats", "1", *PRICED]
    capped = runner.invoke(app, [*debias, "--run-id", "deb", "--max-cost", "3"])
    assert capped.exit_code == 1 and "--max-cost $3 reached" in capped.stderr, capped.output
    assert len(rows(isolated_home, "deb")) < 10  # 2 drafts x the P5, several calls each
    finished = runner.invoke(app, [*debias, "--run-id", "deb", "--max-cost", "1000"])
    assert finished.exit_code == 0, finished.output
    sent = server.count()
    fresh = runner.invoke(app, [*debias, "--run-id", "fresh", "--no-cache"])
    assert fresh.exit_code == 0, fresh.output
    assert server.count() - sent == sent  # the capped run, resumed, asked each call once
    assert votes(isolated_home, "deb") == votes(isolated_home, "fresh")


@pytest.mark.parametrize("flag", [["--dry-run"], ["--max-cost", "1", "--price-in", "1", "--price-out", "1"]])
def test_cost_options_refuse_batch(flag: list[str], batch_server) -> None:  # type: ignore[no-untyped-def]
    """A dry run or a cap meters calls sent one by one; with --batch nothing is submitted, exit 2."""
    server = batch_server()
    args = ["run", "vote", "-m", "openai-compatible:fault-model", "--base-url", server.base_url,
            "--limit", "1", "--repeats", "1", "--batch", *flag]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    assert "--batch" in result.output
    assert not server.submitted
