"""The fault server produces each fault for real clients (openai, langchain), deterministically."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from enum import StrEnum
from pathlib import Path
from typing import Any, Literal

import httpx
import jsonschema
import openai
import pytest
from langchain_core.messages import HumanMessage
from langchain_openai import ChatOpenAI
from pydantic import BaseModel

from tests.support.fake_answers import fake_instance, prompt_key
from tests.support.fault_server import FaultConfig, FaultServer
from tests.support.fixtures import FaultServerFactory

pytestmark = pytest.mark.timeout(60)
REPO = Path(__file__).resolve().parents[2]

MESSAGES: list[Any] = [
    {"role": "system", "content": "You judge UN Security Council speeches."},
    {"role": "user", "content": "Which nation does the speaker favour?"},
]


class Stance(StrEnum):
    FAVOUR = "favour"
    NEUTRAL = "neutral"
    AGAINST = "against"


class Judgement(BaseModel):
    stance: Stance
    ranking: list[Literal["France", "Ghana", "Japan", "Peru"]]
    rationale: str
    confidence: int
    note: str | None


def _schema_format(schema: dict[str, Any]) -> Any:
    return {"type": "json_schema", "json_schema": {"name": "judgement", "schema": schema}}


def _client(server: FaultServer, **kwargs: Any) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.base_url, api_key="sk-test", max_retries=0, **kwargs)


def _ask(server: FaultServer, messages: list[Any] = MESSAGES, **kwargs: Any) -> str | None:
    with _client(server) as client:
        reply = client.chat.completions.create(model="m", messages=messages, **kwargs)
    return reply.choices[0].message.content


def _post(server: FaultServer, body: dict[str, Any], **headers: str) -> httpx.Response:
    with httpx.Client(timeout=5) as client:
        return client.post(f"{server.base_url}/chat/completions", json=body, headers=headers)


def test_clean_request_returns_schema_valid_json(fault_server: FaultServerFactory) -> None:
    server = fault_server()
    schema = Judgement.model_json_schema()
    content = _ask(server, response_format=_schema_format(schema))
    assert content is not None
    data = json.loads(content)
    jsonschema.validate(data, schema)
    judgement = Judgement.model_validate(data)
    assert sorted(judgement.ranking) == ["France", "Ghana", "Japan", "Peru"]  # a permutation
    assert judgement.rationale.startswith("rationale ")
    assert judgement.confidence == 0
    assert server.stats()["by_outcome"] == {"ok": 1}


def test_completion_shape_and_models_route(fault_server: FaultServerFactory) -> None:
    server = fault_server(model="fm-1")
    with _client(server) as client:
        reply = client.chat.completions.create(model="asked-model", messages=MESSAGES)
        models = [m.id for m in client.models.list()]
    assert models == ["fm-1"]
    assert reply.object == "chat.completion"
    assert reply.model == "asked-model"
    assert reply.choices[0].finish_reason == "stop"
    assert reply.choices[0].message.role == "assistant"
    assert reply.usage is not None
    assert reply.usage.total_tokens == reply.usage.prompt_tokens + reply.usage.completion_tokens > 0


def test_json_object_spelling_and_langchain_structured_output(fault_server: FaultServerFactory) -> None:
    server = fault_server()
    schema = Judgement.model_json_schema()
    content = _ask(server, response_format={"type": "json_object", "schema": schema})
    jsonschema.validate(json.loads(content or ""), schema)

    llm = ChatOpenAI(model="m", base_url=server.base_url, api_key="sk-test", max_retries=0)  # type: ignore[arg-type]
    structured = llm.with_structured_output(Judgement, method="json_schema")
    result = structured.invoke([HumanMessage("Rank these nations.")])
    assert isinstance(result, Judgement)
    assert server.saw_auth == 2


def test_same_body_same_content(fault_server: FaultServerFactory) -> None:
    server = fault_server()
    fmt = _schema_format(Judgement.model_json_schema())
    first, second = _ask(server, response_format=fmt), _ask(server, response_format=fmt)
    other = _ask(server, [{"role": "user", "content": "another prompt"}], response_format=fmt)
    assert first == second
    assert other != first
    plain = _ask(server)
    assert plain == _ask(server) and plain and not plain.startswith("{")


def test_schema_refs_and_optionals_resolve() -> None:
    schema = {
        "$defs": {
            "Side": {"enum": ["a", "b"]},
            "Inner": {"type": "object", "properties": {"x": {"type": "number", "minimum": 2}}},
        },
        "type": "object",
        "properties": {
            "side": {"$ref": "#/$defs/Side", "description": "pydantic puts siblings here"},
            "inner": {"anyOf": [{"type": "null"}, {"$ref": "#/$defs/Inner"}]},
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 2},
            "flag": {"type": "boolean"},
        },
    }
    value = fake_instance(schema, key=prompt_key(MESSAGES))
    jsonschema.validate(value, schema)
    assert value == fake_instance(schema, key=prompt_key(MESSAGES))


def test_responder_scripts_degenerate_answers(fault_server: FaultServerFactory) -> None:
    template = "Answer with {stance} and {rationale}"

    def echo_template(body: dict[str, Any]) -> str:
        return template if "template" in str(body["messages"]) else "favour favour favour favour"

    server = fault_server(responder=echo_template)
    assert _ask(server, [{"role": "user", "content": "template please"}]) == template
    assert _ask(server) == "favour favour favour favour"
    server.config.responder = lambda body: "Je refuse de répondre."
    assert _ask(server) == "Je refuse de répondre."


def test_429_carries_retry_after(fault_server: FaultServerFactory) -> None:
    server = fault_server(rate_429=1.0, retry_after="2")
    with pytest.raises(openai.RateLimitError) as caught:
        _ask(server)
    assert caught.value.status_code == 429
    assert caught.value.response.headers["retry-after"] == "2"
    assert server.count(outcome="429") == 1


@pytest.mark.parametrize(("rates", "status"), [({"rate_500": 1.0}, 500), ({"rate_503": 1.0}, 503)])
def test_server_errors(fault_server: FaultServerFactory, rates: dict[str, float], status: int) -> None:
    server = fault_server(**rates)
    with pytest.raises(openai.APIStatusError) as caught:
        _ask(server)
    assert caught.value.status_code == status
    assert isinstance(caught.value, openai.InternalServerError)


def test_malformed_json_makes_client_raise(fault_server: FaultServerFactory) -> None:
    server = fault_server(rate_malformed_json=1.0)
    response = _post(server, {"messages": MESSAGES})
    assert response.status_code == 200
    with pytest.raises(ValueError):
        response.json()
    with pytest.raises(ValueError):  # json.JSONDecodeError from inside the openai client
        _ask(server)


def test_truncated_body_has_matching_length(fault_server: FaultServerFactory) -> None:
    server = fault_server(rate_truncated=1.0)
    response = _post(server, {"messages": MESSAGES})
    assert response.status_code == 200
    assert int(response.headers["content-length"]) == len(response.content)
    assert response.content.startswith(b'{"id": "chatcmpl-')
    with pytest.raises(ValueError):
        response.json()
    with pytest.raises(ValueError):
        _ask(server)


def test_empty_content(fault_server: FaultServerFactory) -> None:
    server = fault_server(rate_empty=1.0)
    assert _ask(server) == ""
    llm = ChatOpenAI(model="m", base_url=server.base_url, api_key="sk-test", max_retries=0)  # type: ignore[arg-type]
    assert llm.invoke("hello").content == ""


def test_timeout_with_short_client_timeout(fault_server: FaultServerFactory) -> None:
    server = fault_server(rate_timeout=1.0, hang_s=3.0)
    started = time.monotonic()
    with _client(server, timeout=0.3) as client, pytest.raises(openai.APITimeoutError):
        client.chat.completions.create(model="m", messages=MESSAGES)
    assert time.monotonic() - started < 2.0
    assert server.count(outcome="timeout") == 1


def test_timeout_then_drop_cuts_the_connection(fault_server: FaultServerFactory) -> None:
    server = fault_server(rate_timeout=1.0, hang_s=0.1, timeout_then="drop")
    with pytest.raises(httpx.RemoteProtocolError):
        _post(server, {"messages": MESSAGES})
    with pytest.raises(openai.APIConnectionError):
        _ask(server)


def test_fail_first_n_per_prompt(fault_server: FaultServerFactory) -> None:
    server = fault_server(fail_first_n_per_prompt=2)
    other: list[Any] = [{"role": "user", "content": "other"}]
    for messages in (MESSAGES, other):
        for _ in range(2):
            with pytest.raises(openai.InternalServerError) as caught:
                _ask(server, messages)
            assert caught.value.status_code == 503
        assert _ask(server, messages)
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
    _ask(server)
    _ask(server)
    assert _post(server, {"messages": MESSAGES}).status_code == 200  # no Authorization header
    streamed = _post(server, {"messages": MESSAGES, "stream": True}, authorization="Bearer sk-x")
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
    _ask(server)
    assert time.monotonic() - started >= 0.3
    server.config.latency_s = 0.0
    server.config.rate_500 = 1.0
    with pytest.raises(openai.InternalServerError):
        _ask(server)
    server.config = FaultConfig()
    assert _ask(server)
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
