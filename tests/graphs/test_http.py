"""The aiohttp wire client against the real fault server: answers, and every fault as a typed error
that carries what the retry policy and the user need (status, Retry-After, the server's message)."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator
from typing import Any

import pytest

from nationbias.graphs.model.breaker import EndpointUnreachable
from nationbias.graphs.model.client import ModelClient
from nationbias.graphs.model.http import ChatCompletionsClient
from nationbias.graphs.model.registry import GenerationParams, parse_spec
from nationbias.graphs.model.retry import (
    BrokenAnswer,
    ConnectionFailed,
    Fatal,
    HTTPStatusError,
    RequestTimeout,
    Retryable,
    RetryPolicy,
    TransportError,
    is_retryable,
)
from tests.support.fixtures import FaultServerFactory

BODY: dict[str, Any] = {"model": "m", "messages": [{"role": "user", "content": "hello"}], "max_tokens": 5}


def _create(base_url: str, body: dict[str, Any] = BODY, timeout: float = 5.0) -> dict[str, Any]:
    async def go() -> dict[str, Any]:
        client = ChatCompletionsClient(base_url=base_url, api_key="k", timeout=timeout)
        try:
            return await client.create(body)
        finally:
            await client.aclose()

    return asyncio.run(go())


def test_an_answer_is_the_servers_json(fault_server: FaultServerFactory) -> None:
    server = fault_server()
    data = _create(server.base_url + "/")  # a trailing slash is fine
    assert data["choices"][0]["message"]["content"]
    assert server.count() == 1 and server.saw_auth == 1


@pytest.mark.parametrize(
    ("fault", "status", "text"),
    [
        ("rate_429", 429, "rate limited"),
        ("rate_500", 500, "internal error"),
        ("rate_503", 503, "unavailable"),
    ],
)
def test_status_faults_carry_status_message_and_headers(
    fault_server: FaultServerFactory, fault: str, status: int, text: str
) -> None:
    server = fault_server(**{fault: 1.0}, retry_after="7")
    with pytest.raises(HTTPStatusError) as caught:
        _create(server.base_url)
    error = caught.value
    assert error.status_code == status and text in str(error) and f"HTTP {status}" in str(error)
    assert isinstance(error, Retryable) and is_retryable(error)
    if status == 429:  # the fault server sends Retry-After with its 429s only
        assert error.headers["retry-after"] == "7" and error.retry_after == 7.0


def test_a_bad_request_is_not_retried_and_names_the_problem(fault_server: FaultServerFactory) -> None:
    server = fault_server()
    with pytest.raises(HTTPStatusError) as caught:
        _create(server.base_url, body={"model": "m", "messages": "not a list"})
    assert caught.value.status_code == 400 and "'messages' must be a list" in str(caught.value)
    assert isinstance(caught.value, Fatal) and not is_retryable(caught.value)


def test_a_wrong_path_gets_a_hint(fault_server: FaultServerFactory) -> None:
    server = fault_server()
    with pytest.raises(HTTPStatusError) as caught:
        _create(server.root_url)  # forgot the /v1
    assert caught.value.status_code == 404 and "--base-url" in str(caught.value)


def test_broken_bodies_and_hangs_are_retryable_errors(fault_server: FaultServerFactory) -> None:
    truncated = fault_server(rate_truncated=1.0)  # half a JSON document
    with pytest.raises(BrokenAnswer, match="not JSON") as cut:
        _create(truncated.base_url)
    assert is_retryable(cut.value)

    malformed = fault_server(rate_malformed_json=1.0)
    with pytest.raises(BrokenAnswer) as garbage:
        _create(malformed.base_url)
    assert is_retryable(garbage.value)

    hanging = fault_server(rate_timeout=1.0, hang_s=3.0)
    with pytest.raises(RequestTimeout, match=r"no answer within 0.3 s"):
        _create(hanging.base_url, timeout=0.3)


def test_nobody_listening_is_a_failed_connection() -> None:
    with pytest.raises(ConnectionFailed, match=r"Cannot connect to host 127\.0\.0\.1:9") as caught:
        _create("http://127.0.0.1:9/v1")  # the discard port: connection refused
    assert isinstance(caught.value, TransportError) and is_retryable(caught.value)


@pytest.fixture
def dropping_host() -> Iterator[str]:
    """A port whose connections are never accepted: its listen queue is full, so the kernel drops
    every new SYN, as a firewall that drops packets does (the connect hangs; nothing is refused)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(0)
    port = listener.getsockname()[1]
    held = []
    for _ in range(4):  # fill the queue (it holds backlog + 1)
        held.append(socket.socket())
        held[-1].setblocking(False)
        held[-1].connect_ex(("127.0.0.1", port))
    yield f"http://127.0.0.1:{port}/v1"
    for sock in [*held, listener]:
        sock.close()


def test_a_host_that_never_accepts_is_a_failed_connection_not_a_silent_server(
    dropping_host: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # every connection attempt is still made, 10 ms apart: the backoff is tests/graphs/test_retry.py's
    monkeypatch.setattr(RetryPolicy, "delay", lambda policy, attempt, retry_after: 0.01)
    # A 0.5 s timeout: every attempt waits out the whole connect timeout (4/5 of it, 0.4 s), as no
    # SYN is ever answered, so the test's cost is that wait times the attempts; 0.1 s between the
    # connect deadline and the call's still tells the two apart on a loaded machine.
    with pytest.raises(ConnectionFailed, match=r"no connection within 0\.4 s \(a firewall dropping"):
        _create(dropping_host, timeout=0.5)
    client = ModelClient.from_spec(
        "openai-compatible:m", base_url=dropping_host, cache=None, params=GenerationParams(timeout=0.5)
    )
    with pytest.raises(EndpointUnreachable) as caught:
        asyncio.run(client.call([{"role": "user", "content": "hello"}]))
    message = str(caught.value)
    assert "cannot reach the model endpoint" in message and "connection attempts" in message
    assert "accepted the connection" not in message


def test_model_client_closes_its_connections_per_loop(fault_server: FaultServerFactory) -> None:
    server = fault_server()
    client = ModelClient(spec=parse_spec("openai-compatible:m", base_url=server.base_url))

    async def ask_then_close() -> bool:
        result = await client.call([{"role": "user", "content": "hi"}])
        assert result.error is None and result.raw
        wire = client._direct_client()
        assert isinstance(wire, ChatCompletionsClient)
        await client.aclose()
        return wire._session.closed

    assert asyncio.run(ask_then_close())
    assert asyncio.run(ask_then_close())  # a second event loop gets a fresh session


def test_the_environment_proxy_is_used_and_no_proxy_bypasses_it(
    fault_server: FaultServerFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("NO_PROXY", "no_proxy", "HTTPS_PROXY", "https_proxy", "http_proxy"):
        monkeypatch.delenv(name, raising=False)
    proxy = fault_server()  # answers absolute-form requests as a forward proxy would pass them on
    monkeypatch.setenv("HTTP_PROXY", proxy.root_url)
    data = _create("http://upstream.invalid/v1")  # a host that cannot resolve: only the proxy is reached
    assert data["choices"][0]["message"]["content"] and proxy.count() == 1

    monkeypatch.setenv("NO_PROXY", "upstream.invalid")
    with pytest.raises(ConnectionFailed):
        _create("http://upstream.invalid/v1")
    assert proxy.count() == 1
