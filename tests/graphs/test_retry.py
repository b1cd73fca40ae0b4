"""The one retry policy (graphs/model/retry.py), also inside the models ``get_chat_model()`` gives users:
a real local server that answers 429 (with Retry-After) twice, then a completion."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx2
import openai
import pytest

from nationbias.graphs.model.registry import get_chat_model
from nationbias.graphs.model.retry import RetryPolicy, classify, is_retryable

COMPLETION = {
    "id": "c1",
    "object": "chat.completion",
    "created": 0,
    "model": "m",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "hello"}, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4},
}


class Flaky(ThreadingHTTPServer):
    """Answers the first ``fail`` requests with 429 and ``Retry-After``, then completions."""

    def __init__(self, fail: int, retry_after: str = "0.2") -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.fail, self.retry_after = fail, retry_after
        self.seen: list[float] = []

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class _Handler(BaseHTTPRequestHandler):
    server: Flaky

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", 0)))
        self.server.seen.append(time.monotonic())
        body: dict[str, Any]
        if len(self.server.seen) <= self.server.fail:
            body, status = {"error": {"message": "slow down"}}, 429
        else:
            body, status = COMPLETION, 200
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        if status == 429:
            self.send_header("retry-after", self.server.retry_after)
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


def _serve(fail: int) -> Iterator[Flaky]:
    server = Flaky(fail)
    # shutdown() waits for serve_forever to poll (every 0.5 s by default): 20 ms apart ends it at once
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def flaky_twice() -> Iterator[Flaky]:
    yield from _serve(2)


@pytest.fixture
def flaky_always() -> Iterator[Flaky]:
    yield from _serve(10**6)


def _waits(server: Flaky) -> list[float]:
    return [b - a for a, b in zip(server.seen, server.seen[1:], strict=False)]


def test_a_users_model_rides_out_two_429s_honouring_retry_after(flaky_twice: Flaky) -> None:
    model = get_chat_model("openai-compatible:m", base_url=flaky_twice.base_url)
    assert type(model).__name__ == "ChatOpenAI"  # still the LangChain model users know
    assert model.invoke("hi").content == "hello"
    assert len(flaky_twice.seen) == 3
    first, second = _waits(flaky_twice)
    assert first >= 0.38 and second >= 0.78  # the default backoff (0.5 s, then 1 s, ± 20 %) > Retry-After


def test_the_async_path_in_a_graph_gets_the_same_policy(flaky_twice: Flaky) -> None:
    policy = RetryPolicy(initial_delay=0.01)
    model = get_chat_model("openai-compatible:m", base_url=flaky_twice.base_url, retry=policy)
    message = asyncio.run(model.ainvoke("hi"))
    assert message.content == "hello" and len(flaky_twice.seen) == 3
    assert all(wait >= 0.19 for wait in _waits(flaky_twice))  # Retry-After wins over a shorter backoff


def test_when_the_policy_gives_up_the_sdk_raises_its_usual_error(flaky_always: Flaky) -> None:
    policy = RetryPolicy(max_attempts=3, initial_delay=0.01, max_delay=0.05)
    model = get_chat_model("openai-compatible:m", base_url=flaky_always.base_url, retry=policy)
    with pytest.raises(openai.RateLimitError):
        model.invoke("hi")
    assert len(flaky_always.seen) == 3


def test_sdk_errors_are_typed_once() -> None:
    request = httpx2.Request("POST", "http://h/v1/chat/completions")
    response = httpx2.Response(429, headers={"retry-after": "3"}, request=request)
    error = classify(openai.RateLimitError("slow", response=response, body=None))
    assert is_retryable(error) and error.retry_after == 3.0  # type: ignore[attr-defined]
    bad = httpx2.Response(400, request=request)
    assert not is_retryable(openai.BadRequestError("bad", response=bad, body=None))
    assert is_retryable(openai.APIConnectionError(request=request))
    assert not is_retryable(ValueError("a bug, not a fault"))
