"""A retriever from outside the package is one module plus one registry line, and gets what a built-in
one gets: the name check, the study grid's validation, and a debiased vote run end to end."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

import nationbias
from nationbias.evals.cli.study import grid_cells
from nationbias.evals.errors import UsageError
from nationbias.graphs.study.simulate import precedent_pool
from nationbias.retrievers import RETRIEVERS, Retriever, check_retriever, get_retriever, register_retriever
from nationbias.stores.corpora.corpus import load_corpus
from nationbias.stores.errors import InputError
from nationbias.stores.state.batches import BatchStore
from nationbias.stores.state.runstore import RunStore

PLUGINS = Path(__file__).resolve().parents[1] / "support" / "plugins"


@pytest.fixture
def newest(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.syspath_prepend(str(PLUGINS))
    register_retriever("newest", "toy_retriever:NewestFirst")  # the one registry line
    yield "newest"
    RETRIEVERS.pop("newest")


def test_a_registered_retriever_is_known_everywhere_the_built_ins_are(newest: str) -> None:
    assert check_retriever(" Newest ") == newest
    assert isinstance(get_retriever(newest), Retriever)
    assert get_retriever(newest, reason="mine").reason == "mine"  # type: ignore[attr-defined]
    assert [c.retriever for c in grid_cells({"retriever": ["keyword", newest]})] == ["keyword", newest]
    with pytest.raises(InputError, match=r"unknown retriever 'newst'; valid names: .*hybrid, newest"):
        get_retriever("newst")
    assert get_retriever(newest, threshold=2).threshold == 2  # type: ignore[attr-defined]
    with pytest.raises(InputError, match="bad options for retriever 'newest'"):
        get_retriever(newest, treshold=2)


def test_without_its_line_the_name_is_unknown() -> None:
    assert "newest" not in RETRIEVERS
    with pytest.raises(UsageError, match="unknown retriever"):
        grid_cells({"retriever": ["newest"]})


def test_bad_registrations_are_refused() -> None:
    with pytest.raises(InputError, match="lower case"):
        register_retriever("New Est", "toy_retriever:NewestFirst")
    with pytest.raises(InputError, match="not 'module:attribute'"):
        register_retriever("newest", "toy_retriever.NewestFirst")
    assert "newest" not in RETRIEVERS and "new est" not in RETRIEVERS


def test_a_debiased_vote_runs_with_the_plugin_retriever(newest: str, isolated_home: Path) -> None:
    options = {"k": 1, "limit": 2, "repeats": 1, "show_progress": False, "threshold": 2.5}
    summary = nationbias.run("debias", model="fake:hash", retriever=newest, run_id="toy", **options)
    assert summary.total == summary.ok + summary.invalid > 0 and summary.error == 0
    store = RunStore(isolated_home / "runs.sqlite")
    run = store.get_run("toy")
    assert run["options"]["retriever"] == newest
    assert run["precedent_coverage"]["threshold"] == 2.5  # it declares one, so it took it
    corpus = load_corpus()
    pool = precedent_pool(corpus)
    records = {r.id: r for r in pool}
    retriever = get_retriever(newest, threshold=2.5)
    samples = store.samples_frame("toy")
    for item, extra in zip(samples["item"], samples["extra"], strict=True):
        found = extra["precedents"]
        assert found and {p["reason"] for p in found} == {"toy: the newest earlier item (threshold 2.5)"}
        expected = retriever.retrieve(corpus.get(item), pool, 1)
        assert [p["id"] for p in found] == [p.record.id for p in expected]
        assert all(records[p["id"]].date < corpus.get(item).date for p in found)


def test_the_registry_imports_no_strategy_until_asked() -> None:
    """chromadb and onnxruntime load only for a dense strategy."""
    code = (
        "import sys\n"
        "from nationbias.retrievers import get_retriever\n"
        "get_retriever('bm25')\n"
        "heavy = {'chromadb', 'onnxruntime', 'nationbias.retrievers.dense'} & set(sys.modules)\n"
        "assert not heavy, heavy\n"
        "assert 'nationbias.retrievers.keyword' not in sys.modules\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_an_installed_packages_retriever_is_in_the_cli_help_and_runs(tmp_path: Path) -> None:
    """One ``nationbias.retrievers`` entry point (tests/support/plugins/toy_retriever-0.1.dist-info)."""
    root = Path(__file__).resolve().parents[2]
    cli = Path(sys.executable).with_name("nationbias")
    env = {**os.environ, "NATIONBIAS_HOME": str(tmp_path), "COLUMNS": "400"}

    def run(*args: str, plugin: bool = True) -> subprocess.CompletedProcess[str]:
        path = os.pathsep.join([str(PLUGINS), str(root)] if plugin else [str(root)])
        return subprocess.run(
            [str(cli), "run", "vote", *args],
            env={**env, "PYTHONPATH": path},
            cwd=root,
            capture_output=True,
            text=True,
            timeout=300,
        )

    assert "keyword, bm25, dense, hybrid, newest" in " ".join(run("--help").stdout.split())
    assert "newest" not in run("--help", plugin=False).stdout
    done = run(
        *("--debias", "--model", "fake:hash", "--run-id", "toy", "--retriever", "newest"),
        *("--k", "1", "--limit", "1", "--repeats", "1", "--threshold", "4"),
    )
    assert done.returncode == 0, done.stderr[-2000:]
    samples = RunStore(tmp_path / "runs.sqlite").samples_frame("toy")
    assert {p["reason"] for e in samples["extra"] for p in e["precedents"]} == {
        "toy: the newest earlier item (threshold 4)"
    }


def test_an_installed_retriever_runs_the_ablation_of_a_study_in_batches_and_in_a_dry_run(
    batch_server, isolated_home: Path
) -> None:
    """``study --retriever newest`` (the ablation's grid, as ``ablate`` takes it) runs the debiased vote
    with the retriever its entry point registers, beside every test asked in English and French:
    ``--dry-run`` counts its calls and sends nothing, ``--batch`` sends them through the Files +
    Batches endpoints, the retriever gets the run's threshold, and its run has its row on the report's
    first screen, its Table 4 cell, its precedents table and its claims in the significance section.
    The ablation stays in the study's own language (``--language``); ``--languages`` asks the tests."""
    root = Path(__file__).resolve().parents[2]
    server = batch_server()
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(PLUGINS), str(root)]),
        "NATIONBIAS_BATCH_POLL_S": "0.05",
        "COLUMNS": "200",
    }
    study = ["study", "-m", "openai-compatible:m", "--base-url", server.base_url, "--limit", "1"]
    study += ["--repeats", "1", "--languages", "en,fr", "--retriever", "newest"]

    def cli(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "nationbias.evals.cli.main", *study, *args],
            env=env,
            cwd=root,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        return done.stdout

    dry = " ".join(cli("--run-id", "dry", "--dry-run").split())
    assert "then 1 debias cell(s)" in dry and "│ dry-debias-k1-rf-newest │ openai-compatible:m │" in dry
    assert server.app.state.chat_calls == 0 and not server.submitted  # nothing was sent
    assert not (isolated_home / "runs.sqlite").exists()  # nothing was stored

    page_path = Path(cli("--run-id", "st", "--batch").strip().splitlines()[-1])
    run = "st-debias-k1-rf-newest"
    store = RunStore(isolated_home / "runs.sqlite")
    assert [i for i in store.runs_frame()["run_id"] if "debias" in i] == [run]
    assert store.get_run(run)["options"]["retriever"] == "newest"
    samples = store.samples_frame(run)
    assert len(samples) == 5 and samples["raw"].notna().all()
    assert {p["reason"] for e in samples["extra"] for p in e["precedents"]} == {
        "toy: the newest earlier item (threshold 3)"  # the run's threshold, DebiasOptions' default
    }
    assert server.app.state.chat_calls == 0 and len(server.submitted) >= 3 * len(samples)  # its rounds
    assert {r["status"] for r in BatchStore().requests(run)} == {"done"}

    page = page_path.read_text()
    first_screen = page[page.index('id="headline"') :]
    first_screen = first_screen[: first_screen.index("</table>")]
    assert f"<code>{run}</code>" in first_screen and "<code>st-fr-vote</code>" in first_screen
    assert f'id="metrics-{run}"' in page and f"precedents-{run}.csv" in page  # its tables
    ablation = pd.read_csv(page_path.parent / "table4-ablation.csv")
    assert "newest" in set(ablation["retriever"])
    claims = pd.read_csv(page_path.parent / "significance.csv")
    mine = claims[claims["run"].eq(run)]
    assert set(mine["test"]) == {"debias"} and "debias delta vs 0" in set(mine["claim"])
    assert len(set(claims["test"])) > 1 and set(mine["m_report"]) == set(claims["m_report"])  # one family
