"""An answer is capped against its token budget (64 KiB + 32 bytes a token): an 8 MB answer to a vote
(200 tokens) is a sample error naming its full size and SHA-256, its first `cap` bytes kept on the row,
nothing cached, not asked again; and the HTTP transport reads a huge body in chunks, never whole."""

from __future__ import annotations

import asyncio
import hashlib
import json
import threading
import tracemalloc
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from nationbias.evals.cli.main import app
from nationbias.graphs.model.answer_shape import OversizedAnswer, answer_cap
from nationbias.graphs.model.http import ChatCompletionsClient
from nationbias.graphs.vote import VOTE_MAX_TOKENS
from tests.support.fixtures import FaultServerFactory
from tests.support.reliability import MODEL, files_under, rows

VOTE_BUDGET = VOTE_MAX_TOKENS
HUGE = "We support peace. " * 450_000  # 8.1 MB of text


def test_an_over_long_answer_is_kept_up_to_the_cap_with_its_size_and_hash(
    fault_server: FaultServerFactory, isolated_home: Path
) -> None:
    sent: list[bytes] = []

    def finisher(body: dict[str, Any], done: dict[str, Any]) -> dict[str, Any]:
        sent.append(json.dumps(done).encode())  # the bytes the server sends (it dumps the same way)
        return done

    server = fault_server(responder=lambda body: HUGE, finisher=finisher)
    args = [
        "run",
        "vote",
        "-m",
        MODEL,
        "--limit",
        "1",
        "--repeats",
        "1",
        "--personas",
        "USA",
        "--run-id",
        "big",
    ]
    result = CliRunner(env={"NATIONBIAS_BASE_URL": server.base_url}).invoke(app, args)
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit), result.output
    (row,) = rows(isolated_home, "big")
    (body,) = sent  # not asked again: a server that ignores max_tokens does so again, and each try is paid
    cap = answer_cap(VOTE_BUDGET)
    assert row["status"] == "error" and "OversizedAnswer" in row["error"], row["error"]
    assert f"the answer is {len(body):,} bytes (sha256 {hashlib.sha256(body).hexdigest()})" in row["error"]
    assert f"over the cap of {cap:,} bytes for {VOTE_BUDGET} tokens" in row["error"]
    assert row["raw"].encode() == body[:cap]  # kept up to the cap
    stored = files_under(isolated_home)
    assert sum(stored.values()) < 1_000_000, stored  # never stored whole (run store, cache)
    assert row["prompt_tokens"] == 0 and not any(
        "cache.sqlite" in f and n > 100_000 for f, n in stored.items()
    )


CHUNK = b"x" * (1 << 20)
CHUNKS = 48  # a 48 MB body


class _Endless(BaseHTTPRequestHandler):
    """A 200 whose body is 48 MB, sent 1 MB at a time (the same chunk: the server holds 1 MB)."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", 0)))
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(CHUNK) * CHUNKS))
        self.end_headers()
        for _ in range(CHUNKS):
            self.wfile.write(CHUNK)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def endless_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Endless)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def test_the_transport_never_holds_a_huge_body_whole(endless_server: str) -> None:
    async def ask() -> OversizedAnswer:
        client = ChatCompletionsClient(base_url=endless_server, api_key="k", timeout=60)
        try:
            await client.complete({"model": "m", "messages": [], "max_tokens": 512})
        except OversizedAnswer as exc:
            return exc
        finally:
            await client.aclose()
        raise AssertionError("a 48 MB answer to a 512-token request was taken")

    tracemalloc.start()
    try:
        error = asyncio.run(ask())
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    full = hashlib.sha256(CHUNK * CHUNKS).hexdigest()
    assert f"the answer is {len(CHUNK) * CHUNKS:,} bytes (sha256 {full})" in str(error)
    assert error.raw is not None and len(error.raw) == answer_cap(512)
    assert peak < 12 * (1 << 20), f"peak {peak / 2**20:.1f} MB while reading a 48 MB body"
