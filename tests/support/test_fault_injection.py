"""Each injected fault (429, 5xx, broken bodies, timeouts, drops) reaches real clients as it would
from a failing provider; the sequence is seeded, counted and switchable between test phases."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
from langchain_openai import ChatOpenAI

from tests.support.fake_answers import prompt_key
from tests.support.fault_calls import MESSAGES, ask, client_for, post
from tests.support.fault_server import FaultConfig, FaultServer
from tests.support.fixtures import FaultServerFactory

pytestmark = pytest.mark.timeout(60)
REPO = Path(__file__).resolve().parents[2]


def test_429_carries_retry_after(fault_server: FaultServerFactory) -> None:
    server = fault_server(rate_429=1.0, retry_after="2")
    with pytest.raises(openai.RateLimitError) as caught:
        ask(server)
    assert caught.value.status_code == 429
    assert caught.value.response.headers["retry-after"] == "2"
    assert server.count(outcome="429") == 1


@pytest.mark.parametrize(("rates", "status"), [({"rate_500": 1.0}, 500), ({"rate_503": 1.0}, 503)])
def test_server_errors(fault_server: FaultServerFactory, rates: dict[str, float], status: int) -> None:
    server = fault_server(**rates)
    with pytest.raises(openai.APIStatusError) as caught:
        ask(server)
    assert caught.value.status_code == status
    assert isinstance(caught.value, openai.InternalServerError)


def test_malformed_json_makes_client_raise(fault_server: FaultServerFactory) -> None:
    server = fault_server(rate_malformed_json=1.0)
    response = post(server, {"messages": MESSAGES})
    assert response.status_code == 200
    with pytest.raises(ValueError):
        response.json()
    with pytest.raises(ValueError):  # json.JSONDecodeError from inside the openai client
        ask(server)


def test_truncated_body_has_matching_length(fault_server: FaultServerFactory) -> None:
    server = fault_server(rate_truncated=1.0)
    response = post(server, {"messages": MESSAGES})
    assert response.status_code == 200
    assert int(response.headers["content-length"]) == len(response.content)
    assert response.content.startswith(b'{"id": "chatcmpl-')
    with pytest.raises(ValueError):
        response.json()
    with pytest.raises(ValueError):
        ask(server)


def test_empty_content(fault_server: FaultServerFactory) -> None:
    server = fault_server(rate_empty=1.0)
    assert ask(server) == ""
    llm = ChatOpenAI(model="m", base_url=server.base_url, api_key="sk-test", max_retries=0)  # type: ignore[arg-type]
    assert llm.invoke("hello").content == ""


def test_timeout_with_short_client_timeout(fault_server: FaultServerFactory) -> None:
    server = fault_server(rate_timeout=1.0, hang_s=3.0)
    started = time.monotonic()
    with client_for(server, timeout=0.3) as client, pytest.raises(openai.APITimeoutError):
        client.chat.completions.create(model="m", messages=MESSAGES)
    assert time.monotonic() - started < 2.0
    assert server.count(outcome="timeout") == 1


def test_timeout_then_drop_cuts_the_connection(fault_server: FaultServerFactory) -> None:
    server = fault_server(rate_timeout=1.0, hang_s=0.1, timeout_then="drop")
    with pytest.raises(httpx.RemoteProtocolError):
        post(server, {"messages": MESSAGES})
    with pytest.raises(openai.APIConnectionError):
        ask(server)


def test_fail_first_n_per_prompt(fault_server: FaultServerFactory) -> None:
    server = fault_server(fail_first_n_per_prompt=2)
    other: list[Any] = [{"role": "user", "content": "other"}]
    for messages in (MESSAGES, other):
        for _ in range(2):
            with pytest.raises(openai.InternalServerError) as caught:
                ask(server, messages)
            assert caught.value.status_code == 503
        assert ask(server, messages)
    assert server.count(messages=MESSAGES) == 3
    assert server.count(messages=MESSAGES, outcome="fail_first") == 2
    assert server.count(messages=other, outcome="ok") == 1
    # a retrying client gets through on its second attempt
    server.config.fail_first_n_per_prompt = 1
    server.reset()
    with openai.OpenAI(base_url=server.base_url, api_key="sk-test", max_retries=2) as client:
        assert client.chat.completions.create(model="m", messages=MESSAGES).choices[0].message.content
    assert server.count() == 2


def test_counters_stats_route_and_auth(fault_server: FaultServerFactory) -> None:
    server = fault_server()
    ask(server)
    ask(server)
    assert post(server, {"messages": MESSAGES}).status_code == 200  # no Authorization header
    streamed = post(server, {"messages": MESSAGES, "stream": True}, authorization="Bearer sk-x")
    assert streamed.status_code == 400
    stats = httpx.get(f"{server.root_url}/stats", timeout=5).json()
    assert stats == server.stats()
    assert stats["total"] == 4
    assert stats["saw_auth"] == 3
    assert stats["by_outcome"] == {"ok": 3, "bad_request": 1}
    assert stats["prompts"][prompt_key(MESSAGES)] == {"total": 4, "by_outcome": {"ok": 3, "bad_request": 1}}
    assert "sk-test" not in json.dumps(stats) and "sk-x" not in json.dumps(stats)
    server.reset()
    assert server.stats() == {"total": 0, "saw_auth": 0, "by_outcome": {}, "prompts": {}}


def test_fault_sequence_is_seeded(fault_server: FaultServerFactory) -> None:
    mix = {"rate_429": 0.2, "rate_500": 0.2, "rate_empty": 0.2}

    def statuses(server: FaultServer) -> list[int]:
        with httpx.Client(base_url=server.base_url, timeout=5) as client:
            body = {"messages": MESSAGES}
            return [client.post("/chat/completions", json=body).status_code for _ in range(30)]

    first = statuses(fault_server(seed=7, **mix))
    assert first == statuses(fault_server(seed=7, **mix))
    assert first != statuses(fault_server(seed=8, **mix))
    assert {200, 429, 500} == set(first)


def test_config_switches_between_phases(fault_server: FaultServerFactory) -> None:
    server = fault_server(latency_s=0.3)
    started = time.monotonic()
    ask(server)
    assert time.monotonic() - started >= 0.3
    server.config.latency_s = 0.0
    server.config.rate_500 = 1.0
    with pytest.raises(openai.InternalServerError):
        ask(server)
    server.config = FaultConfig()
    assert ask(server)
    with pytest.raises(ValueError):
        FaultConfig(rate_429=0.7, rate_500=0.7)


def test_64_concurrent_requests_overlap(fault_server: FaultServerFactory) -> None:
    server = fault_server(latency_s=0.2)

    async def run() -> list[str | None]:
        async with openai.AsyncOpenAI(base_url=server.base_url, api_key="sk-test", max_retries=0) as client:
            replies = await asyncio.gather(
                *[
                    client.chat.completions.create(model="m", messages=[{"role": "user", "content": f"q{i}"}])
                    for i in range(64)
                ]
            )
        return [r.choices[0].message.content for r in replies]

    started = time.monotonic()
    contents = asyncio.run(run())
    elapsed = time.monotonic() - started
    assert elapsed < 3.0, elapsed
    assert len(set(contents)) == 64
    assert server.count(outcome="ok") == 64


def test_cli_prints_base_url_and_serves() -> None:
    command = [sys.executable, "-m", "tests.support.fault_server", "--port", "0", "--rate-503", "1"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True, cwd=REPO) as process:
        try:
            assert process.stdout is not None
            base_url = process.stdout.readline().strip()
            assert base_url.startswith("http://127.0.0.1:") and base_url.endswith("/v1")
            with httpx.Client(timeout=10) as client:  # the socket listens before the URL is printed
                assert client.get(f"{base_url}/models").status_code == 200
                reply = client.post(f"{base_url}/chat/completions", json={"messages": MESSAGES})
                assert reply.status_code == 503
                stats = client.get(base_url.removesuffix("/v1") + "/stats").json()
            assert stats["by_outcome"] == {"503": 1}
        finally:
            process.terminate()
            process.wait(timeout=10)
