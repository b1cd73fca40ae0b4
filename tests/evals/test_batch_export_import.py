"""`batch export` / `batch import`: a round run elsewhere (here: the test batch server, as vLLM's
run_batch would) gives the online rows; a bad results file is refused whole, naming its line."""

from __future__ import annotations

import json
import sqlite3
import time
from contextlib import closing
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from nationbias.evals.cli.main import app
from nationbias.stores.state.batches import BatchStore
from tests.support.batch_helpers import MODEL, comparable
from tests.support.batch_server import BatchServer

NOWHERE = "http://127.0.0.1:9/v1"  # the offline run never talks to its server
VOTE = ["run", "vote", "-m", MODEL, "--limit", "2", "--repeats", "1"]


@pytest.fixture(autouse=True)
def quick_polls(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NATIONBIAS_BATCH_POLL_S", "0.05")


def invoke(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def run_elsewhere(server: BatchServer, requests: str) -> str:
    """What an offline runner does with an exported file: here, the test server's batch API."""
    with httpx.Client(base_url=server.base_url, timeout=30) as http:
        files = {"file": ("requests.jsonl", requests.encode())}
        upload = http.post("/files", data={"purpose": "batch"}, files=files).json()
        body = {"input_file_id": upload["id"], "endpoint": "/v1/chat/completions", "completion_window": "24h"}
        batch = http.post("/batches", json=body).json()
        while batch["status"] != "completed":
            time.sleep(0.05)
            batch = http.get(f"/batches/{batch['id']}").json()
        return http.get(f"/files/{batch['output_file_id']}/content").text


def cache_count(home: Path) -> int:
    if not (home / "cache.sqlite").exists():
        return 0
    with closing(sqlite3.connect(home / "cache.sqlite")) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0])


def test_exported_rounds_run_elsewhere_and_imported_equal_online(
    fault_server, batch_server, isolated_home: Path, tmp_path: Path
) -> None:
    online, server = fault_server(), batch_server()
    invoke(*VOTE, "--base-url", online.base_url, "--run-id", "online")
    output = invoke(*VOTE, "--base-url", NOWHERE, "--batch-offline", "--run-id", "offline")
    rounds = 0
    while "waits for" in output:
        rounds += 1
        requests = invoke("batch", "export", "offline", "--round", str(rounds))
        assert [json.loads(line)["url"] for line in requests.splitlines()] == ["/v1/chat/completions"] * len(
            requests.splitlines()
        )
        results = tmp_path / f"results-{rounds}.jsonl"
        results.write_text(run_elsewhere(server, requests))
        assert "imported" in invoke("batch", "import", "offline", str(results))
        output = invoke("runs", "resume", "offline")
    assert rounds == 1 and "0 to go" in output
    assert comparable(isolated_home, "offline") == comparable(isolated_home, "online")
    assert max(server.submitted.values()) == 1


def _unknown(lines: list[str]) -> list[str]:
    return [lines[0].replace(json.loads(lines[0])["custom_id"], "f" * 64), *lines[1:]]


def _empty(lines: list[str]) -> list[str]:
    return [lines[0], json.dumps({"custom_id": json.loads(lines[1])["custom_id"]}), *lines[2:]]


@pytest.mark.parametrize(
    ("mangle", "says"),
    [
        (lambda lines: [*lines[:2], "{not json", *lines[2:]], "line 3: not JSON"),
        (lambda lines: [*lines, lines[1]], "repeats line 2"),
        (_unknown, "line 1: unknown custom_id"),
        (_empty, "line 2: neither a response nor an error"),
    ],
)
def test_bad_results_file_is_refused_whole(
    batch_server, mangle, says: str, isolated_home: Path, tmp_path: Path
) -> None:
    server = batch_server()
    invoke(*VOTE, "--base-url", NOWHERE, "--batch-offline", "--run-id", "offline")
    good = run_elsewhere(server, invoke("batch", "export", "offline", "--round", "1")).splitlines()
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(mangle(good)) + "\n")

    result = CliRunner().invoke(app, ["batch", "import", "offline", str(bad)])
    assert result.exit_code == 2, result.output
    assert says in " ".join(result.output.split()) and str(bad.name) in result.output
    assert cache_count(isolated_home) == 0  # nothing written
    assert {r["status"] for r in BatchStore().requests("offline")} == {"pending"}


def test_status_shows_rounds_and_unknown_runs_are_refused(batch_server, isolated_home: Path) -> None:
    server = batch_server()
    invoke(*VOTE, "--base-url", server.base_url, "--batch", "--run-id", "batched")
    status = invoke("runs", "status", "batched")
    assert "batch-" in status and "ingested" in status and "unknown price" in status
    for command in (["runs", "status", "nope"], ["batch", "export", "nope", "--round", "1"]):
        result = CliRunner().invoke(app, command)
        assert result.exit_code == 2 and "no batch rounds" in result.output


def test_openai_spec_batches_through_its_base_url_and_prices_the_saving(
    batch_server, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = batch_server()
    monkeypatch.setenv("OPENAI_API_KEY", "sk-batch-test-key")
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)  # as the SDK reads it: the batch API too
    vote = ["run", "vote", "-m", "openai:gpt-4o-mini", "--limit", "1", "--repeats", "1"]
    invoke(*vote, "--batch", "--run-id", "oa")
    status = " ".join(invoke("runs", "status", "oa").split())
    assert "round 1 · gpt-4o-mini" in status and "estimated cost saved on openai:gpt-4o-mini: $" in status
    assert sum(server.submitted.values()) == 5 and server.app.state.chat_calls == 0
    assert "sk-batch-test-key" not in (isolated_home / "runs.sqlite").read_bytes().decode("utf-8", "replace")
