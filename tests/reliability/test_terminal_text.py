"""Text from outside reaches the terminal only as escaped plain text: a server's error message holding
rich markup (`[/x]`), escape sequences (clear screen, window title) and the literal `[redacted]` is printed
as it was, made inert, and the summary line with the command that resumes is still there."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from typer.testing import CliRunner

from nationbias.evals.cli.main import app
from nationbias.graphs.terminal_text import plain
from tests.support.reliability import MODEL, rows

HOSTILE = "bad [/x] request [bold]loud[/bold] \x1b[2J\x1b]0;owned\x07 key [redacted] \u202eevil"


class _Hostile(BaseHTTPRequestHandler):
    """A 400 whose message is markup, control sequences and the literal text ``[redacted]``."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", 0)))
        body = json.dumps({"error": {"message": HOSTILE, "code": "bad"}}).encode()
        self.send_response(400)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def hostile_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Hostile)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def test_a_servers_message_prints_as_plain_text_and_the_summary_survives(
    hostile_server: str, isolated_home: Path
) -> None:
    args = ["run", "vote", "-m", MODEL, "--limit", "1", "--repeats", "1", "--personas", "USA"]
    result = CliRunner(env={"NATIONBIAS_BASE_URL": hostile_server}).invoke(
        app, [*args, "--run-id", "hostile"]
    )
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit), result.output
    err = result.stderr
    assert "summary: 1 done now" in err and "--run-id hostile --retry-errors" in err  # the resume line
    (failed,) = [line for line in err.splitlines() if line.lstrip().startswith("failed ")]
    assert "bad [/x] request [bold]loud[/bold]" in failed  # the markup, as text
    assert "key [redacted]" in failed  # the literal text stays visible
    assert "\\x1b[2J\\x1b]0;owned\\x07" in failed and "\\u202eevil" in failed  # written out, inert
    assert not [c for c in result.output if c in "\x1b\x07\u202e"]  # no control character reached it
    (row,) = rows(isolated_home, "hostile")
    assert "\x1b[2J" in row["error"]  # the store keeps what the server said; only the terminal escapes


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("[/x]", "\\[/x]"),
        ("[redacted]", "\\[redacted]"),
        ("a\x1b[31mred", "a\\x1b[31mred"),
        ("a\x1b[bold]", "a\\x1b\\[bold]"),
        ("bell\x07 tab\tnew\nline", "bell\\x07 tab\tnew\nline"),
        ("\x9b2J", "\\x9b2J"),
    ],
)
def test_plain_writes_out_controls_and_escapes_markup(text: str, shown: str) -> None:
    assert plain(text) == shown
