"""The API key reaches the server and nothing else: after a vote study, a debias study, a run against a
server that echoes the key in its auth error, and a report, no file under NATIONBIAS_HOME or the report
folder (stores, cache, checkpoints, WAL/SHM, CSV/HTML/PNG) nor any CLI output holds the key's bytes."""

from __future__ import annotations

import json
import secrets
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from typer.testing import CliRunner

from nationbias.evals.cli.main import app
from nationbias.evals.page.writer import write_report
from nationbias.graphs.model.redact import describe
from tests.support.fixtures import FaultServerFactory
from tests.support.reliability import MODEL, files_under, rows

SENTINEL = f"sk-SENTINEL-{secrets.token_hex(12)}"


class _EchoKey(BaseHTTPRequestHandler):
    """A 401 that quotes the presented key, as some providers' error bodies do."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", 0)))
        key = self.headers.get("authorization", "").removeprefix("Bearer ")
        body = json.dumps(
            {"error": {"message": f"Incorrect API key provided: {key}.", "code": "invalid_api_key"}}
        )
        self.send_response(401)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body.encode())

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def echo_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _EchoKey)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def test_describe_redacts_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NATIONBIAS_API_KEY", SENTINEL)
    text = describe(RuntimeError(f"bad key {SENTINEL} (also sk-proj-abcdefgh1234 and Bearer tok-123456)"))
    assert SENTINEL not in text and "sk-proj-abcdefgh1234" not in text and "tok-123456" not in text
    assert text.startswith("RuntimeError: bad key [redacted]")


@pytest.mark.timeout(180)
def test_the_key_is_sent_but_never_stored(
    fault_server: FaultServerFactory,
    echo_server: str,
    isolated_home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    server = fault_server(latency_s=0.01)
    monkeypatch.setenv("NATIONBIAS_API_KEY", SENTINEL)
    monkeypatch.setenv("NATIONBIAS_BASE_URL", server.base_url)
    outputs = []
    base = ["run", "vote", "-m", MODEL, "--limit", "2", "--repeats", "1"]
    for args in ([*base, "--run-id", "secret-vote"], [*base, "--debias", "--run-id", "secret-debias"]):
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 0, result.output
        outputs.append(result.output)
    assert server.count() > 0 and server.saw_auth == server.count()  # the key did go out

    result = CliRunner().invoke(app, [*base, "--base-url", echo_server, "--run-id", "secret-autherror"])
    assert result.exit_code == 1, result.output  # every sample errored: beyond --fail-on-error 0
    outputs.append(result.output)
    errors = [r["error"] for r in rows(isolated_home, "secret-autherror")]
    assert errors and all("401" in e and "[redacted]" in e for e in errors), errors

    report = tmp_path / "report"
    write_report(["secret-vote", "secret-debias"], out_dir=report, n_resamples=50)
    for args in (["runs", "export", "secret-autherror", "--format", "jsonl"], ["runs", "list"]):
        outputs.append(CliRunner().invoke(app, args).output)

    files = files_under(isolated_home, report)
    names = {Path(f).name for f in files}
    assert {"runs.sqlite", "cache.sqlite", "checkpoints.sqlite", "index.html"} <= names, names
    needle = SENTINEL.encode()
    leaked = [f for f in files if needle in Path(f).read_bytes()]
    assert not leaked
    assert not [o for o in outputs if SENTINEL in o]
