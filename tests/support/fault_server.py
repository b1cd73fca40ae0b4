"""A real OpenAI-compatible HTTP server on 127.0.0.1 that injects faults, for tests and benchmarks.

Retry, timeout and parsing code is only trustworthy if it has met real sockets, real status codes
and real broken bodies; this server produces them deterministically (seeded per request index).
Run in-process with :class:`FaultServer`, or as a process::

    python -m tests.support.fault_server --port 0 --latency 0.2 --rate-429 0.1
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import threading
import time
from collections.abc import Sequence
from dataclasses import fields
from types import TracebackType
from typing import Any

import uvicorn

from tests.support import asgi_wire as wire
from tests.support.asgi_wire import HOST, Receive, Scope, Send
from tests.support.fake_answers import default_content, prompt_key
from tests.support.fault_config import FaultConfig
from tests.support.fault_stats import FaultStats, Outcome

__all__ = ["HOST", "FaultApp", "FaultConfig", "FaultServer", "FaultStats", "Outcome"]

_MALFORMED_BODY = b"<html><body><h1>502 Bad Gateway</h1>upstream sent garbage</body></html>"


class FaultApp:
    """The raw ASGI app (no framework: full control over bodies, lengths and dropped connections)."""

    def __init__(self, *, config: FaultConfig, stats: FaultStats) -> None:
        self.config = config
        self.stats = stats
        self.stopping = False  # set from another thread to cut hangs short on shutdown

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        route = (scope["method"], scope["path"].rstrip("/"))
        if route == ("POST", "/v1/chat/completions"):
            await self._chat(scope, receive, send)
        elif route == ("GET", "/v1/models"):
            model = {"id": self.config.model, "object": "model", "created": 0, "owned_by": "fault-server"}
            await wire.send_json(send, 200, {"object": "list", "data": [model]})
        elif route == ("GET", "/stats"):
            await wire.send_json(send, 200, self.stats.snapshot())
        elif route == ("POST", "/reset"):
            self.stats.reset()
            await wire.send_json(send, 200, {"reset": True})
        else:
            await wire.send_json(send, 404, wire.error(f"no route {route[0]} {route[1]}", "not_found"))

    async def _chat(self, scope: Scope, receive: Receive, send: Send) -> None:
        config = self.config  # one consistent view even if a test swaps it mid-request
        body, problem = wire.parse_body(await wire.read_body(receive))
        saw_auth = any(k == b"authorization" and v.strip() for k, v in scope["headers"])
        key = prompt_key(body.get("messages"))
        if problem:
            self.stats.admit(key, saw_auth=saw_auth, decide=lambda *_: Outcome.BAD_REQUEST)
            await wire.send_json(send, 400, wire.error(problem, "invalid_request_error"))
            return
        outcome = self.stats.admit(key, saw_auth=saw_auth, decide=config.decide)
        if config.latency_s:
            await asyncio.sleep(config.latency_s)
        if outcome is Outcome.TIMEOUT:
            await self._hang(receive, config.hang_s)
            if config.timeout_then == "drop":
                await wire.drop(send)
                return
        await self._respond(send, outcome, body, key, config)

    async def _respond(
        self, send: Send, outcome: Outcome, body: dict[str, Any], key: str, config: FaultConfig
    ) -> None:
        if outcome is Outcome.RATE_LIMITED:
            headers = [(b"retry-after", config.retry_after.encode())]
            await wire.send_json(
                send, 429, wire.error("rate limited (injected)", "rate_limit_exceeded"), headers
            )
        elif outcome is Outcome.ERROR_500:
            await wire.send_json(send, 500, wire.error("internal error (injected)", "server_error"))
        elif outcome in (Outcome.UNAVAILABLE_503, Outcome.FAIL_FIRST):
            await wire.send_json(send, 503, wire.error("unavailable (injected)", "service_unavailable"))
        elif outcome is Outcome.MALFORMED_JSON:
            await wire.send_bytes(send, 200, _MALFORMED_BODY)
        else:
            content = "" if outcome is Outcome.EMPTY else _content(body, config)
            completion = _completion(body, key, content, config)
            if config.finisher and outcome is not Outcome.EMPTY:
                completion = config.finisher(body, completion)
            payload = json.dumps(completion).encode()
            if outcome is Outcome.TRUNCATED:
                payload = payload[: len(payload) // 2]
            await wire.send_bytes(send, 200, payload)

    async def _hang(self, receive: Receive, hang_s: float) -> None:
        """Wait ``hang_s``, ending early if the client gives up or the server stops."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + hang_s
        disconnect = asyncio.ensure_future(wire.until_disconnect(receive))
        try:
            while not disconnect.done() and not self.stopping and loop.time() < deadline:
                await asyncio.wait({disconnect}, timeout=min(0.05, max(0.0, deadline - loop.time())))
        finally:
            disconnect.cancel()


def _content(body: dict[str, Any], config: FaultConfig) -> str:
    return config.responder(body) if config.responder else default_content(body)


def _completion(body: dict[str, Any], key: str, content: str, config: FaultConfig) -> dict[str, Any]:
    prompt_tokens = sum(len(str(m.get("content", "")).split()) for m in body["messages"])
    completion_tokens = len(content.split())
    model = body.get("model") if isinstance(body.get("model"), str) else config.model
    return {
        "id": f"chatcmpl-{key[:24]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
                "logprobs": None,
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def _uvicorn_server(app: FaultApp, *, log_level: str) -> uvicorn.Server:
    wire.quiet_uvicorn()
    config = uvicorn.Config(
        app,
        log_level=log_level,
        access_log=False,  # and nothing else logs requests: the Authorization value is never seen
        lifespan="off",
        backlog=1024,
        timeout_graceful_shutdown=2,
    )
    return wire.PromptServer(config)


class FaultServer:
    """The fault server on a free loopback port, served by uvicorn in a daemon thread.

    In-process, so tests read counters and swap ``config`` between phases without any IPC.
    """

    def __init__(
        self, *, config: FaultConfig | None = None, port: int = 0, log_level: str = "warning"
    ) -> None:
        self.counters = FaultStats()
        self._app = FaultApp(config=config or FaultConfig(), stats=self.counters)
        self._requested_port = port
        self._log_level = log_level
        self._sock: socket.socket | None = None
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self.port = 0

    @property
    def config(self) -> FaultConfig:
        return self._app.config

    @config.setter
    def config(self, value: FaultConfig) -> None:
        value.validate()
        self._app.config = value

    @property
    def root_url(self) -> str:
        return f"http://{HOST}:{self.port}"

    @property
    def base_url(self) -> str:
        """The OpenAI ``base_url``: ``http://127.0.0.1:PORT/v1``."""
        return f"{self.root_url}/v1"

    def start(self, *, timeout_s: float = 10.0) -> FaultServer:
        if self._thread is not None:
            raise RuntimeError("FaultServer already started")
        self._sock = wire.bind(self._requested_port)
        self.port = self._sock.getsockname()[1]
        self._app.stopping = False
        self._server = _uvicorn_server(self._app, log_level=self._log_level)
        self._thread = threading.Thread(
            target=self._server.run,
            kwargs={"sockets": [self._sock]},
            name=f"fault-server-{self.port}",
            daemon=True,
        )
        self._thread.start()
        deadline = time.monotonic() + timeout_s
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"fault server did not start on port {self.port}")
            time.sleep(0.01)
        return self

    def stop(self, *, timeout_s: float = 10.0) -> None:
        """Stop serving and join the thread; hanging requests are released at once."""
        self._app.stopping = True
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout_s)
        if self._sock is not None:
            self._sock.close()
        self._server, self._thread, self._sock = None, None, None

    def stats(self) -> dict[str, Any]:
        """A snapshot, as served by ``GET /stats``."""
        return self.counters.snapshot()

    def prompt_counts(self) -> dict[str, int]:
        """Model calls so far per prompt key, read as ``ServerProcess.prompt_counts`` reads them over HTTP
        (tests/support/reliability.py): a request whose body never fully arrived is no model call."""
        prompts = self.stats()["prompts"].items()
        counts = {key: p["total"] - p["by_outcome"].get("bad_request", 0) for key, p in prompts}
        return {key: n for key, n in counts.items() if n}

    def count(self, *, messages: object = None, outcome: Outcome | str | None = None) -> int:
        """Chat requests overall, or for one ``messages`` list; optionally only one ``outcome``."""
        key = None if messages is None else prompt_key(messages)
        return self.counters.count(key=key, outcome=outcome)

    @property
    def saw_auth(self) -> int:
        """How many chat requests carried an Authorization header (the value is never stored)."""
        return self.counters.saw_auth

    def reset(self) -> None:
        """Zero the counters: the seeded fault sequence and fail-first counts start over."""
        self.counters.reset()

    def __enter__(self) -> FaultServer:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


def _cli_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m tests.support.fault_server",
        description="Serve a fault-injecting OpenAI-compatible API on 127.0.0.1; "
        "prints the base URL on the first line, then serves until killed.",
    )
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--log-level", default="warning")
    parser.add_argument("--timeout-then", choices=["answer", "drop"], default="answer")
    for f in fields(FaultConfig):
        if f.name in ("responder", "finisher", "timeout_then"):
            continue
        flags = ["--" + f.name.replace("_", "-")]
        if f.name == "latency_s":
            flags.insert(0, "--latency")
        parser.add_argument(*flags, dest=f.name, type=type(f.default), default=f.default)
    return parser


def main(argv: Sequence[str] | None = None) -> None:
    """CLI entry: the first stdout line is the base URL, so a parent process can read it."""
    args = vars(_cli_parser().parse_args(argv))
    port, log_level = args.pop("port"), args.pop("log_level")
    app = FaultApp(config=FaultConfig(**args), stats=FaultStats())
    sock = wire.bind(port)
    print(f"http://{HOST}:{sock.getsockname()[1]}/v1", flush=True)
    _uvicorn_server(app, log_level=log_level).run(sockets=[sock])


if __name__ == "__main__":
    main()
