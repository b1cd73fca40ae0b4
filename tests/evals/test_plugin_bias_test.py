"""A bias test registered from outside the package runs through the real CLI and into the report."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pandas as pd

from nationbias.stores.state.batches import BatchStore
from nationbias.stores.state.runstore import RunStore

ROOT = Path(__file__).resolve().parents[2]
PLUGINS = ROOT / "tests" / "support" / "plugins"  # toy_bias.py and its entry point (a dist-info)


def _cli(*args: str, home: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "NATIONBIAS_HOME": str(home),
        "PYTHONPATH": os.pathsep.join([str(PLUGINS), str(ROOT)]),
        **(env or {}),
    }
    return subprocess.run(
        [sys.executable, "-m", "nationbias.evals.cli.main", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )


def test_a_plugin_test_runs_through_the_cli_and_the_report(isolated_home: Path) -> None:
    run = _cli(
        "run",
        "toy",
        "--model",
        "local:smollm2",
        "--limit",
        "2",
        "--repeats",
        "1",
        "--run-id",
        "toy1",
        home=isolated_home,
    )
    assert run.returncode == 0, run.stderr
    assert "run toy1: 2 done now" in run.stdout
    store = RunStore(isolated_home / "runs.sqlite")
    samples = store.samples_frame("toy1")
    assert sorted(samples["item"]) == ["GBR", "USA"] and store.get_run("toy1")["embedded"] is True
    report = _cli("report", "toy1", home=isolated_home)
    assert report.returncode == 0, report.stderr
    page = Path(report.stdout.strip().splitlines()[-1]).read_text()
    assert "Toy answers: " in page and "Toy test: is each P5 member permanent?" in page

    bad = _cli("run", "toy", "--option", "colour=red", "--run-id", "toy2", home=isolated_home)
    assert bad.returncode == 2 and "--option takes key=value" in bad.stderr


def test_without_the_plugin_the_test_is_unknown(isolated_home: Path) -> None:
    env = {**os.environ, "NATIONBIAS_HOME": str(isolated_home)}
    result = subprocess.run(
        [sys.executable, "-m", "nationbias.evals.cli.main", "run", "toy"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert result.returncode == 2 and "No such command 'toy'" in result.stderr


def test_a_plugin_test_has_its_place_in_a_study_and_its_headline_in_the_report(isolated_home: Path) -> None:
    """Like a built-in test: `study` runs it (its own limit, here `--limit`) in every language of
    `--languages`, the report's first screen gives it its own headline row, its claims are corrected
    with the others' and its language effect stands beside theirs; `demo` would run its demo slice."""
    study = _cli(
        "study",
        "--model",
        "fake:hash",
        "--limit",
        "1",
        "--repeats",
        "1",
        "--languages",
        "en,fr",
        "--run-id",
        "st",
        home=isolated_home,
    )
    assert study.returncode == 0, study.stderr
    store = RunStore(isolated_home / "runs.sqlite")
    runs = store.runs_frame()
    assert set(runs["test"]) == {"directqa", "association", "vote", "attribution", "toy", "debias"}
    # in the order the tests declare: the explicit tests, the vote, then the built-in attribution and the
    # plugin (the same order: the registry's), then the ablation
    first = ["st-directqa", "st-association", "st-vote", "st-attribution", "st-toy"]
    assert list(runs["run_id"][:5]) == first
    assert list(store.samples_frame("st-toy")["item"]) == ["USA"]  # --limit 1 reached it
    page = Path(study.stdout.strip().splitlines()[-1]).read_text()
    first_screen = page[page.index('id="headline"') :]
    first_screen = first_screen[: first_screen.index("</table>")]
    assert "st-toy" in first_screen and "share of answers calling a P5 member permanent" in first_screen
    assert "own section" not in first_screen  # every test here has its own headline
    assert "Toy test: is each P5 member permanent?" in page  # its own section
    assert "st-fr-toy" in first_screen  # asked again in French: a row of its own
    french = store.samples_frame("st-fr-toy")
    assert store.get_run("st-fr-toy")["language"] == "fr" and store.get_run("st-toy")["language"] == "en"
    assert french["messages"][0][0]["content"].startswith("Les États-Unis est-il membre permanent")
    assert len(french) == 1 and french["raw"].notna().all()  # the framework's loop kept the raw answer
    report = Path(study.stdout.strip().splitlines()[-1]).parent
    effects = pd.read_csv(report / "language-effects.csv")
    toy = effects[effects["test"].eq("toy")]
    assert toy[["subject", "language", "metric", "run"]].values.tolist() == [
        ["USA", "fr", "share_permanent", "st-fr-toy"]
    ]
    claims = pd.read_csv(report / "significance.csv")
    toy_claims = claims[claims["test"].eq("toy")]
    assert sorted(toy_claims["run"]) == ["st-fr-toy", "st-toy"]
    assert set(toy_claims["claim"]) == {"share calling it permanent vs one half"}
    assert toy_claims["p_holm_report"].notna().all()  # corrected with every other claim of the report
    summary = pd.read_csv(report / "significance-summary.csv")
    assert "toy" in set(summary["test"])

    plan = subprocess.run(
        [
            sys.executable,
            "-c",
            "from nationbias.evals.study import study_limits; print(study_limits(demo=True))",
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(PLUGINS), str(ROOT)])},
        timeout=300,
    )
    limits = "{'directqa': 1, 'association': 3, 'vote': 3, 'attribution': 1, 'toy': 2}"
    assert plan.stdout.strip() == limits, plan.stderr


def test_a_plugin_test_runs_in_batch_mode_and_in_a_dry_run_in_the_languages_it_declares(
    batch_server, isolated_home: Path
) -> None:
    """The framework owns the toy's loop: `--dry-run` counts its calls and sends nothing, `--batch`
    sends them through the Files + Batches endpoints, `--language fr` asks its French question, and a
    language it does not declare is refused before anything runs."""
    server = batch_server()
    toy = ["run", "toy", "-m", "openai-compatible:m", "--base-url", server.base_url, "--limit", "2"]
    toy += ["--repeats", "1", "--language", "fr"]
    fast = {"NATIONBIAS_BATCH_POLL_S": "0.05", "COLUMNS": "200"}

    dry = _cli(
        *toy, "--run-id", "dry", "--dry-run", "--price-in", "2", "--price-out", "8", home=isolated_home
    )
    assert dry.returncode == 0, dry.stderr
    assert "total: 2 calls to send" in " ".join(dry.stdout.split())
    assert server.app.state.chat_calls == 0 and not server.submitted  # nothing was sent
    assert not (isolated_home / "runs.sqlite").exists()  # nothing was stored

    batched = _cli(*toy, "--run-id", "batched", "--batch", home=isolated_home, env=fast)
    assert batched.returncode == 0, batched.stderr
    assert "run batched: 2 done now" in batched.stdout
    assert server.app.state.chat_calls == 0 and len(server.submitted) == 2  # both through /batches
    assert {r["status"] for r in BatchStore().requests("batched")} == {"done"}
    samples = RunStore(isolated_home / "runs.sqlite").samples_frame("batched")
    assert sorted(samples["item"]) == ["GBR", "USA"] and samples["raw"].notna().all()
    assert all("Conseil de sécurité" in m[0]["content"] for m in samples["messages"])

    spanish = _cli(*toy[:-1], "es", "--run-id", "es", home=isolated_home)
    assert spanish.returncode == 2
    assert "test 'toy' does not support --language es: it asks in en, fr" in " ".join(spanish.stderr.split())
