"""Several replicas behind one client (graphs/model/endpoints.py), against real local servers: calls are
spread by in-flight count, a dead or failing replica is drained and its calls answered elsewhere,
it comes back after its cool-down, and only every replica down stops the run (the circuit breaker)."""

from __future__ import annotations

import asyncio
import socket
import time
from typing import Any

import pytest

from nationbias.graphs.model.breaker import EndpointUnreachable
from nationbias.graphs.model.client import ModelClient
from nationbias.graphs.model.endpoints import EndpointPool, split_urls
from nationbias.graphs.model.http import ChatCompletionsClient
from nationbias.graphs.model.providers import PROVIDERS, ModelSpecError
from nationbias.graphs.model.registry import get_chat_model, parse_spec
from nationbias.stores.state.cache import ResponseCache
from tests.support.fault_server import FaultServer
from tests.support.fixtures import FaultServerFactory

MODEL = "openai-compatible:fault-model"


def _messages(i: int) -> list[dict[str, str]]:
    return [{"role": "user", "content": f"Vote on draft {i}: favour, against or abstention?"}]


def _closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}/v1"  # nothing listens once the block ends


async def _ask_all(client: ModelClient, calls: range) -> list[Any]:
    try:
        return await asyncio.gather(*(client.call(_messages(i)) for i in calls))
    finally:
        await client.aclose()


def _pool(*urls: str, **health: Any) -> EndpointPool:
    clients = [ChatCompletionsClient(base_url=u, api_key="not-needed", timeout=5) for u in urls]
    return EndpointPool.of(clients, **health)


BODY = {"model": "fault-model", "messages": _messages(0), "max_tokens": 8}


def test_calls_are_spread_over_every_replica(fault_server: FaultServerFactory) -> None:
    a, b = fault_server(latency_s=0.02), fault_server(latency_s=0.02)
    client = ModelClient.from_spec(MODEL, base_url=[a.base_url, b.base_url])
    results = asyncio.run(_ask_all(client, range(40)))

    assert all(r.error is None for r in results)
    assert a.count() + b.count() == 40
    assert a.count() >= 15 and b.count() >= 15, (a.count(), b.count())  # by in-flight count, not all on one


def test_a_dead_replica_is_drained_and_its_calls_answered_by_the_other(
    fault_server: FaultServerFactory,
) -> None:
    alive, dead = fault_server(), _closed_port_url()
    client = ModelClient.from_spec(MODEL, base_url=[dead, alive.base_url])
    results = asyncio.run(_ask_all(client, range(30)))

    assert [r.error for r in results] == [None] * 30
    assert all(r.attempts == 1 for r in results)  # a refused connection moved on at once, no retry spent
    assert alive.count() == 30


def test_the_retry_of_a_failed_call_goes_to_another_replica(fault_server: FaultServerFactory) -> None:
    broken, good = fault_server(rate_500=1.0), fault_server()
    client = ModelClient.from_spec(MODEL, base_url=[broken.base_url, good.base_url])
    results = asyncio.run(_ask_all(client, range(12)))

    assert [r.error for r in results] == [None] * 12
    assert max(r.attempts for r in results) == 2  # never twice on the broken one
    assert good.count() == 12 and 1 <= broken.count() <= 12


def test_a_drained_replica_comes_back_after_its_cool_down(
    fault_server: FaultServerFactory, caplog: pytest.LogCaptureFixture
) -> None:
    a, b = fault_server(), fault_server()
    port = a.port

    async def scenario() -> tuple[list[str], list[str], int]:
        pool = _pool(a.base_url, b.base_url, drain_after=2, cooldown_s=0.3)
        try:
            a.stop()
            for _ in range(6):
                await pool.complete(BODY)
            drained = pool.status()
            restarted = FaultServer(port=port).start()  # the replica restarts on its port
            try:
                await asyncio.sleep(0.35)
                for _ in range(6):
                    await pool.complete(BODY)
                return drained, pool.status(), restarted.count()
            finally:
                restarted.stop()
        finally:
            await pool.aclose()

    drained, after, served = asyncio.run(scenario())
    assert drained[0].startswith(f"{a.base_url}/chat/completions: drained (") and "next try in" in drained[0]
    assert after[0].startswith(f"{a.base_url}/chat/completions: ok"), after
    assert served >= 2, served  # back in the rotation, not only the probe
    said = [r.getMessage() for r in caplog.records if r.name == "nationbias.endpoints"]
    assert len(said) == 2 and said[0].startswith(f"endpoint {a.base_url}/chat/completions drained after 2"), (
        said
    )
    assert "answers again" in said[1], said


def test_a_drained_replica_gets_no_call_during_its_cool_down(fault_server: FaultServerFactory) -> None:
    flaky, good = fault_server(rate_503=1.0), fault_server()

    async def scenario() -> int:
        pool = _pool(flaky.base_url, good.base_url, drain_after=2, cooldown_s=60)
        try:
            for _ in range(2):  # two calls, each failing once on the flaky one: drained
                with pytest.raises(Exception, match="503"):
                    await pool.complete(BODY)
                await pool.complete(BODY)
            before = flaky.count()
            for _ in range(10):
                await pool.complete(BODY)
            return flaky.count() - before
        finally:
            await pool.aclose()

    assert asyncio.run(scenario()) == 0


def test_every_replica_down_stops_the_run_naming_them_all() -> None:
    urls = [_closed_port_url(), _closed_port_url()]
    client = ModelClient.from_spec(MODEL, base_url=urls)
    started = time.monotonic()
    with pytest.raises(EndpointUnreachable) as caught:
        asyncio.run(_ask_all(client, range(20)))
    message = str(caught.value)
    assert time.monotonic() - started < 10
    assert all(f"{u}/chat/completions" in message for u in urls), message
    assert "none of the 2 endpoints connected" in message and "Connection refused" in message, message


def test_the_cache_key_is_the_first_urls_whatever_replica_answered(fault_server: FaultServerFactory) -> None:
    a, b = fault_server(), fault_server()
    cache = ResponseCache()
    pooled = ModelClient.from_spec(MODEL, base_url=[a.base_url, b.base_url], cache=cache)
    first = asyncio.run(_ask_all(pooled, range(10)))
    assert a.count() > 0 and b.count() > 0
    alone = ModelClient.from_spec(MODEL, base_url=a.base_url, cache=cache)
    again = asyncio.run(_ask_all(alone, range(10)))

    assert all(r.cached for r in again) and a.count() + b.count() == 10
    assert [r.raw for r in again] == [r.raw for r in first]


def test_the_spec_carries_every_url_and_the_environment_may_list_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    spec = parse_spec(MODEL, base_url=["http://h1:8000/v1", "http://h2:8000/v1/"])
    assert spec.base_url == "http://h1:8000/v1" and spec.urls == ("http://h1:8000/v1", "http://h2:8000/v1/")
    assert parse_spec(MODEL, base_url="http://h1:8000/v1").replicas == ()
    monkeypatch.setenv("NATIONBIAS_BASE_URL", "http://h1:8000/v1, http://h2:8000/v1")
    assert parse_spec(MODEL).urls == ("http://h1:8000/v1", "http://h2:8000/v1")
    status = PROVIDERS["openai-compatible"].status()  # its `nationbias models` line
    assert status == "yes: 2 endpoints, http://h1:8000/v1, http://h2:8000/v1"
    with pytest.raises(ModelSpecError, match="several replicas"):
        get_chat_model(MODEL)


@pytest.mark.parametrize(
    ("given", "named"),
    [
        (
            ["http://h1:8000/v1", "localhost:8000"],
            "--base-url (URL 2 of 2): malformed base URL 'localhost:8000'",
        ),
        (["http://h1:8000/v1", "ftp://h2/v1"], "URL 2 of 2): malformed base URL 'ftp://h2/v1'"),
        (["http://h1:port/v1", "http://h2/v1"], "URL 1 of 2): malformed base URL 'http://h1:port/v1'"),
        (["http://h1/v1", "http://h1/v1/"], "URL 2 of 2): http://h1/v1/ is given twice"),
    ],
)
def test_a_malformed_url_among_several_is_named(given: list[str], named: str) -> None:
    with pytest.raises(ModelSpecError) as caught:
        parse_spec(MODEL, base_url=given)
    assert named in str(caught.value)


def test_a_malformed_url_in_the_environment_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NATIONBIAS_BASE_URL", "http://h1/v1,h2:8000")
    with pytest.raises(
        ModelSpecError, match=r"NATIONBIAS_BASE_URL \(URL 2 of 2\): malformed base URL 'h2:8000'"
    ):
        parse_spec(MODEL)
    assert split_urls(None) == ()
