"""The fault server produces each fault for real clients (openai, langchain), deterministically."""

from __future__ import annotations

import json
from enum import StrEnum
from typing import Any, Literal

import jsonschema
import pytest
from langchain_core.messages import HumanMessage
from langchain_openai import ChatOpenAI
from pydantic import BaseModel

from tests.support.fake_answers import fake_instance, prompt_key
from tests.support.fault_calls import MESSAGES, ask, client_for
from tests.support.fixtures import FaultServerFactory

pytestmark = pytest.mark.timeout(60)


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


def test_clean_request_returns_schema_valid_json(fault_server: FaultServerFactory) -> None:
    server = fault_server()
    schema = Judgement.model_json_schema()
    content = ask(server, response_format=_schema_format(schema))
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
    with client_for(server) as client:
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
    content = ask(server, response_format={"type": "json_object", "schema": schema})
    jsonschema.validate(json.loads(content or ""), schema)

    llm = ChatOpenAI(model="m", base_url=server.base_url, api_key="sk-test", max_retries=0)  # type: ignore[arg-type]
    structured = llm.with_structured_output(Judgement, method="json_schema")
    result = structured.invoke([HumanMessage("Rank these nations.")])
    assert isinstance(result, Judgement)
    assert server.saw_auth == 2


def test_same_body_same_content(fault_server: FaultServerFactory) -> None:
    server = fault_server()
    fmt = _schema_format(Judgement.model_json_schema())
    first, second = ask(server, response_format=fmt), ask(server, response_format=fmt)
    other = ask(server, [{"role": "user", "content": "another prompt"}], response_format=fmt)
    assert first == second
    assert other != first
    plain = ask(server)
    assert plain == ask(server) and plain and not plain.startswith("{")


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
    assert ask(server, [{"role": "user", "content": "template please"}]) == template
    assert ask(server) == "favour favour favour favour"
    server.config.responder = lambda body: "Je refuse de répondre."
    assert ask(server) == "Je refuse de répondre."
