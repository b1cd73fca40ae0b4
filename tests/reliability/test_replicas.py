"""`--base-url` twice: a vote run spread over two real local servers, one of them stopped in the
middle, completes with exit 0 and the same rows as a run against one server; every replica down is
the unreachable-endpoint fault naming them all; a malformed URL among several is bad input."""

from __future__ import annotations

import json
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from nationbias.evals.cli.main import app
from nationbias.stores.state.runstore import RunStore
from tests.support.fixtures import FaultServerFactory
from tests.support.reliability import MODEL, cli_command, cli_env, rows

VOTE = ["run", "vote", "-m", MODEL, "--limit", "8", "--repeats", "2", "--concurrency", "8"]  # 80 samples
SAMPLES = 80
SAME = ("sample_id", "status", "raw", "parsed", "parse_error", "error", "messages")


def _run(home: Path, *args: str) -> subprocess.Popen[str]:
    env = cli_env(home, "http://127.0.0.1:9/v1")  # --base-url wins over the environment
    return subprocess.Popen(
        cli_command(*args), env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )


def _finish(process: subprocess.Popen[str]) -> tuple[int, str]:
    out, _ = process.communicate(timeout=240)
    return process.returncode, out


def _answers(home: Path, run_id: str) -> list[dict[str, Any]]:
    return [{k: row[k] for k in SAME} for row in rows(home, run_id)]


def _invoke(home: Path, *args: str) -> Any:
    """The CLI in this process, on its own NATIONBIAS_HOME."""
    return CliRunner().invoke(app, list(args), env={"NATIONBIAS_HOME": str(home)})


def _single_server_rows(fault_server: FaultServerFactory, home: Path) -> list[dict[str, Any]]:
    alone = fault_server()
    result = _invoke(home, *VOTE, "--base-url", alone.base_url, "--run-id", "single")
    assert result.exit_code == 0, result.output
    return _answers(home, "single")


@pytest.mark.timeout(300)
def test_a_run_is_spread_over_two_servers_and_answers_as_one(
    fault_server: FaultServerFactory, tmp_path: Path
) -> None:
    a, b = fault_server(latency_s=0.02), fault_server(latency_s=0.02)
    home = tmp_path / "pooled"
    result = _invoke(home, *VOTE, "--base-url", a.base_url, "--base-url", b.base_url, "--run-id", "two")

    assert result.exit_code == 0, result.output
    served = (a.count(), b.count())
    assert sum(served) == SAMPLES and min(served) >= SAMPLES // 4, served
    assert f"--base-url {a.base_url} --base-url {b.base_url} " in result.stderr  # the resume command
    config = json.loads(json.dumps(RunStore(home / "runs.sqlite").get_run("two")))
    assert config["base_url"] == a.base_url and config["replicas"] == [b.base_url]
    assert _answers(home, "two") == _single_server_rows(fault_server, tmp_path / "single")
    # replicas are not part of a run's identity: it resumes on fewer (or other) servers
    again = _invoke(home, *VOTE, "--base-url", a.base_url, "--run-id", "two")
    assert again.exit_code == 0 and "0 done now, 80 already done" in again.output, again.output


@pytest.mark.timeout(300)
def test_one_server_stopped_in_the_middle_the_run_completes_on_the_other(
    fault_server: FaultServerFactory, tmp_path: Path
) -> None:
    a, b = fault_server(latency_s=0.1), fault_server(latency_s=0.1)
    home = tmp_path / "pooled"
    process = _run(home, *VOTE, "--base-url", a.base_url, "--base-url", b.base_url, "--run-id", "halved")
    deadline = time.monotonic() + 120
    while b.count() < 10 and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.01)
    b.stop()
    served_by_b = b.count()
    code, out = _finish(process)

    assert code == 0, out
    assert 10 <= served_by_b < SAMPLES // 2, served_by_b  # stopped well before its share was done
    assert a.count() + served_by_b >= SAMPLES
    got = _answers(home, "halved")
    assert len(got) == SAMPLES and {row["status"] for row in got} <= {"ok", "invalid"}
    assert got == _single_server_rows(fault_server, tmp_path / "single")


def test_the_library_takes_a_list_of_urls(fault_server: FaultServerFactory, isolated_home: Path) -> None:
    import nationbias

    a, b = fault_server(latency_s=0.02), fault_server(latency_s=0.02)
    urls = [a.base_url, b.base_url]
    summary = nationbias.run("vote", model=MODEL, base_url=urls, limit=2, repeats=2, show_progress=False)

    assert summary.ok == 20 and a.count() > 0 and b.count() > 0 and a.count() + b.count() == 20
    assert RunStore().get_run(summary.run_id)["replicas"] == [b.base_url]


def _closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}/v1"


def test_every_server_down_is_the_unreachable_endpoint_fault_naming_them(isolated_home: Path) -> None:
    urls = [_closed_port_url(), _closed_port_url()]
    args = ["run", "vote", "-m", MODEL, "--base-url", urls[0], "--base-url", urls[1], "--run-id", "down"]
    result = CliRunner().invoke(app, args)

    assert result.exit_code == 1, result.output
    errors = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, result.stderr
    assert all(f"{url}/chat/completions" in errors[0] for url in urls), errors[0]
    assert "Connection refused" in errors[0], errors[0]
    assert RunStore().samples_frame("down").empty  # no sample recorded as failed: a resume runs them all


def test_a_malformed_url_among_several_is_bad_input_and_writes_nothing(isolated_home: Path) -> None:
    args = ["run", "vote", "-m", MODEL, "--base-url", "http://127.0.0.1:9/v1", "--base-url", "localhost:8000"]
    result = CliRunner().invoke(app, args)

    assert result.exit_code == 2, result.output
    assert "--base-url (URL 2 of 2): malformed base URL 'localhost:8000'" in result.stderr, result.stderr
    assert not isolated_home.exists() or not any(isolated_home.iterdir())
