"""A bias test registered from outside the package runs through the real CLI and into the report."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from nationbias.stores.state.runstore import RunStore

ROOT = Path(__file__).resolve().parents[2]
PLUGINS = ROOT / "tests" / "support" / "plugins"  # toy_bias.py and its entry point (a dist-info)


def _cli(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "NATIONBIAS_HOME": str(home),
        "PYTHONPATH": os.pathsep.join([str(PLUGINS), str(ROOT)]),
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
    """Like a built-in test: `study` runs it (its own limit, here `--limit`) and the report's first
    screen gives it its own headline row; `demo` would run its demo slice."""
    study = _cli(
        "study",
        "--model",
        "fake:hash",
        "--limit",
        "1",
        "--repeats",
        "1",
        "--run-id",
        "st",
        home=isolated_home,
    )
    assert study.returncode == 0, study.stderr
    store = RunStore(isolated_home / "runs.sqlite")
    runs = store.runs_frame()
    assert set(runs["test"]) == {"directqa", "association", "vote", "toy", "debias"}
    # in the order the tests declare: the explicit tests, the vote, then the plugin, then the ablation
    assert list(runs["run_id"][:4]) == ["st-directqa", "st-association", "st-vote", "st-toy"]
    assert list(store.samples_frame("st-toy")["item"]) == ["USA"]  # --limit 1 reached it
    page = Path(study.stdout.strip().splitlines()[-1]).read_text()
    first_screen = page[page.index('id="headline"') :]
    first_screen = first_screen[: first_screen.index("</table>")]
    assert "st-toy" in first_screen and "share of answers calling a P5 member permanent" in first_screen
    assert "own section" not in first_screen  # every test here has its own headline
    assert "Toy test: is each P5 member permanent?" in page  # its own section

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
    assert plan.stdout.strip() == "{'directqa': 1, 'association': 3, 'vote': 3, 'toy': 2}", plan.stderr
