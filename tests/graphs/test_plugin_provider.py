"""A provider from outside the package is one module plus one entry point (tests/support/plugins/
toy_provider.py and toy_provider-0.1.dist-info: ``toyai = toy_provider:ToyAI`` under
``nationbias.providers``), and gets what a built-in one gets: online calls, batch mode and
``batch export``, token counting with its own counter, its own prices, ``--dry-run`` and ``--max-cost``.

Against the real local servers of tests/support (no real key, nothing leaves the machine).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

import nationbias
from nationbias.evals.cli.main import app
from nationbias.graphs.model.batch.api import BatchClient, BatchUnsupported, check_provider
from nationbias.graphs.model.batch.calls import ENDPOINT_PATH, Endpoint
from nationbias.graphs.model.providers import PROVIDERS, ModelSpecError
from nationbias.graphs.model.providers.base import counter_for, key_values
from nationbias.graphs.model.providers.plugin import register_installed
from nationbias.graphs.model.registry import parse_spec, provider_status
from nationbias.stores.config.prices import PROVIDED, Price, price_book
from nationbias.stores.errors import InputError
from nationbias.stores.state.batches import BatchStore
from nationbias.stores.state.runstore import RunStore
from tests.support.fixtures import FaultServerFactory

PLUGINS = Path(__file__).resolve().parents[1] / "support" / "plugins"
MODEL = "toyai:toy-large"
KEY = "toy-secret-key-123"
VOTE = ["run", "vote", "-m", MODEL, "--limit", "1", "--repeats", "1"]


@pytest.fixture
def toyai(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.syspath_prepend(str(PLUGINS))
    monkeypatch.setenv("TOYAI_API_KEY", KEY)
    monkeypatch.setenv("NATIONBIAS_BATCH_POLL_S", "0.05")
    assert register_installed() == ["toyai"]  # what importing the registry does, with the plugin installed
    yield
    PROVIDERS.pop("toyai")
    for key in [k for k in PROVIDED if k.startswith("toyai:")]:
        PROVIDED.pop(key)
    counter_for.cache_clear()


def invoke(*args: str) -> str:
    result = CliRunner(env={"COLUMNS": "200"}).invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


def test_unregistered_the_spec_is_unknown() -> None:
    with pytest.raises(ModelSpecError, match="unknown provider 'toyai'"):
        parse_spec(MODEL)


def test_it_is_listed_checked_and_its_key_redacted(toyai: None, monkeypatch: pytest.MonkeyPatch) -> None:
    status = {row["provider"]: row for row in provider_status()}
    assert status["toyai"]["usable"] == "yes" and status["toyai"]["about"] == "Toy AI (a test plugin)"
    assert KEY in key_values()
    monkeypatch.delenv("TOYAI_API_KEY")
    with pytest.raises(ModelSpecError, match="TOYAI_API_KEY is not set"):
        nationbias.run("vote", model=MODEL, limit=1, repeats=1, show_progress=False)


def test_online_calls_carry_its_key_to_its_server(
    toyai: None, fault_server: FaultServerFactory, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = fault_server()
    monkeypatch.setenv("TOYAI_BASE_URL", server.base_url)
    summary = nationbias.run("vote", model=MODEL, limit=1, repeats=1, show_progress=False, run_id="toy")
    assert summary.total == 5 and summary.error == 0
    assert server.count() == 5 and server.saw_auth == 5


def test_its_tokens_are_counted_and_priced_in_a_dry_run_and_under_a_cap(
    toyai: None, fault_server: FaultServerFactory, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = fault_server()
    monkeypatch.setenv("TOYAI_BASE_URL", server.base_url)
    spec = parse_spec(MODEL)
    assert counter_for(spec).name == "toy words"
    assert counter_for(spec).count([{"role": "user", "content": "a b c"}]) == 5
    book = price_book()
    assert book.price(MODEL) == Price(3.0, 6.0, "the toyai provider (graphs/model/providers/)")
    assert book.price("toyai:toy-small") is not None and book.price("toyai:toy-small").input == 0.5  # type: ignore[union-attr]

    dry = invoke(*VOTE, "--run-id", "dry", "--dry-run")
    assert f"{MODEL}: $3 in / $6 out per 1M tokens; prompt tokens counted with toy words" in dry
    assert "price unknown" not in dry and server.count() == 0

    invoke(*VOTE, "--run-id", "capped", "--max-cost", "1")
    samples = RunStore(isolated_home / "runs.sqlite").samples_frame("capped")
    prompt, completion = int(samples["prompt_tokens"].sum()), int(samples["completion_tokens"].sum())
    cost = RunStore(isolated_home / "runs.sqlite").get_run("capped")["cost"]
    assert cost["calls"] == server.count() == 5 and prompt > 0
    assert cost["usd"] == pytest.approx((prompt * 3.0 + completion * 6.0) / 1e6)

    user = isolated_home.parent / "prices.toml"
    user.write_text('[models."toyai:toy-large"]\ninput = 1.0\noutput = 1.0\n')
    assert price_book(user).price(MODEL).input == 1.0  # type: ignore[union-attr]  # the user's file wins


def test_batch_mode_and_batch_export_use_its_batch_endpoint(
    toyai: None, batch_server, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    check_provider("toyai")
    with pytest.raises(BatchUnsupported, match=r"\(openai:, together:, openai-compatible:, toyai:\); fake:"):
        check_provider("fake")
    server = batch_server()
    monkeypatch.setenv("TOYAI_BASE_URL", server.base_url)

    async def where() -> tuple[str, str]:
        async with BatchClient(Endpoint("toyai", "toy-large")) as client:
            return client.base, client.purpose

    assert asyncio.run(where()) == (server.base_url, "batch")

    invoke(*VOTE, "--run-id", "offline", "--batch-offline")  # first: a cached answer joins no batch
    lines = [json.loads(line) for line in invoke("batch", "export", "offline", "--round", "1").splitlines()]
    assert len(lines) == 5 and {line["url"] for line in lines} == {ENDPOINT_PATH}
    assert {line["body"]["model"] for line in lines} == {"toy-large"}
    assert [line["custom_id"] for line in lines] == [r["custom_id"] for r in BatchStore().requests("offline")]

    summary = nationbias.run(
        "vote", model=MODEL, limit=1, repeats=1, show_progress=False, run_id="batched", batch=True
    )
    assert summary.total == 5 and summary.error == 0
    assert server.app.state.chat_calls == 0 and len(server.submitted) == 5  # all went through /batches
    assert all(r["status"] == "done" for r in BatchStore().requests("batched"))


def test_an_installed_packages_provider_runs_a_vote_from_the_cli(
    fault_server: FaultServerFactory, tmp_path: Path
) -> None:
    """Installed (its dist-info on the path), nothing imports or registers it but its entry point."""
    root = Path(__file__).resolve().parents[2]
    server = fault_server()
    env = {
        **os.environ,
        "NATIONBIAS_HOME": str(tmp_path),
        "PYTHONPATH": os.pathsep.join([str(PLUGINS), str(root)]),
        "TOYAI_API_KEY": KEY,
        "TOYAI_BASE_URL": server.base_url,
        "COLUMNS": "200",
    }
    cli = Path(sys.executable).with_name("nationbias")
    done = subprocess.run(
        [str(cli), *VOTE, "--run-id", "installed"],
        env=env,
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert server.count() == 5 and server.saw_auth == 5
    samples = RunStore(tmp_path / "runs.sqlite").samples_frame("installed")
    assert len(samples) == 5 and set(samples["status"]) <= {"ok", "invalid"}
    assert KEY not in done.stdout + done.stderr


@pytest.mark.parametrize(
    ("line", "error"),
    [
        ("acme = toy_provider:ToyAI", "provider plugin 'acme' .* names itself 'toyai'"),
        ("toyai = toy_provider:Words", "provider plugin 'toyai' .* is a Words, not a nationbias Provider"),
        (
            "toyai = toy_provider:Nothing",
            r"plugin 'toyai' \(nationbias.providers = .*, from bad-plugin\) does not load",
        ),
    ],
)
def test_a_broken_provider_plugin_fails_with_one_line_naming_it(
    line: str, error: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    info = tmp_path / "bad_plugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: bad-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[nationbias.providers]\n{line}\n")
    (tmp_path / "toy_provider.py").write_text((PLUGINS / "toy_provider.py").read_text())
    monkeypatch.syspath_prepend(str(tmp_path))  # the module without its own dist-info: only the bad line
    with pytest.raises(InputError, match=error):
        register_installed()
    assert "acme" not in PROVIDERS and "toyai" not in PROVIDERS


def test_an_installed_provider_runs_a_study_in_two_languages_in_batches_and_in_a_dry_run(
    batch_server, isolated_home: Path
) -> None:
    """Registered by its entry point alone, ``toyai:`` runs the whole study like a built-in provider:
    ``--dry-run`` counts every run's calls with its own counter and prices and sends nothing;
    ``--batch --languages en,fr`` sends every call of every run, the French ones and the ablation's
    included, through its Files + Batches endpoints; and each run has its row on the report's first
    screen, its tables and its claims in the significance section. Its key is in none of it."""
    root = Path(__file__).resolve().parents[2]
    server = batch_server()
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(PLUGINS), str(root)]),
        "TOYAI_API_KEY": KEY,
        "TOYAI_BASE_URL": server.base_url,
        "NATIONBIAS_BATCH_POLL_S": "0.05",
        "COLUMNS": "200",
    }
    study = ["study", "-m", MODEL, "--limit", "1", "--repeats", "1", "--languages", "en,fr", "--k", "1"]

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [sys.executable, "-m", "nationbias.evals.cli.main", *study, *args],
            env=env,
            cwd=root,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        assert KEY not in done.stdout + done.stderr
        return done

    dry = " ".join(cli("--run-id", "dry", "--dry-run").stdout.split())
    assert f"{MODEL}: $3 in / $6 out per 1M tokens; prompt tokens counted with toy words" in dry
    for run in ("dry-vote", "dry-fr-vote", "dry-fr-directqa", "dry-fr-toy", "dry-debias-k1-rf-keyword"):
        assert f"│ {run} │ {MODEL} │" in dry
    assert "price unknown" not in dry
    assert server.app.state.chat_calls == 0 and not server.submitted  # nothing was sent
    assert not (isolated_home / "runs.sqlite").exists()  # nothing was stored

    done = cli("--run-id", "st", "--batch")
    store = RunStore(isolated_home / "runs.sqlite")
    runs = store.runs_frame()
    ids = list(runs["run_id"])
    assert {"st-vote", "st-fr-vote", "st-fr-association", "st-debias-k1-rf-keyword"} <= set(ids)
    assert {"st-toy", "st-fr-toy"} <= set(ids)  # the plugin bias test (its dist-info is beside) too
    assert set(runs["model"]) == {MODEL} and store.get_run("st-fr-vote")["language"] == "fr"
    calls = sum(len(store.samples_frame(i)) for i in ids if not i.startswith("st-debias"))
    assert calls > 0 and server.app.state.chat_calls == 0  # no call went online ...
    assert len(server.submitted) > calls  # ... every one through /batches, the debias graph's rounds too
    assert {r["status"] for i in ids for r in BatchStore().requests(i)} == {"done"}

    page_path = Path(done.stdout.strip().splitlines()[-1])
    page = page_path.read_text()
    first_screen = page[page.index('id="headline"') :]
    first_screen = first_screen[: first_screen.index("</table>")]
    for run in ids:
        assert f"<code>{run}</code>" in first_screen, run  # every run of the study has its row
        assert f"invalid-{run}.csv" in page, run  # and its tables
    assert all(
        f'id="metrics-{run}"' in page for run in ids if run.startswith(("st-vote", "st-fr-vote", "st-de"))
    )
    claims = pd.read_csv(page_path.parent / "significance.csv")
    assert {"st-vote", "st-fr-vote", "st-directqa", "st-toy", "st-debias-k1-rf-keyword"} <= set(claims["run"])
    assert set(claims["model"]) == {MODEL} and claims["p_holm_report"].notna().any()
    written = [f for f in page_path.parent.iterdir() if f.is_file()]
    assert not [f.name for f in written if KEY in f.read_text("utf-8", "replace")]
