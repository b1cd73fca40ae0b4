"""The model registry, with real parts: llama.cpp in-process and a real llama.cpp HTTP server."""

from __future__ import annotations

import asyncio

import pytest

from nationbias.graphs.labels.parsing import VOTE_SCHEMA, parse_vote
from nationbias.graphs.model.call_result import split_reasoning
from nationbias.graphs.model.client import ModelClient
from nationbias.graphs.model.providers import ModelSpecError
from nationbias.graphs.model.registry import get_chat_model, parse_spec

MESSAGES = [
    {
        "role": "user",
        "content": "You are France at the UN Security Council. "
        "Vote on a draft "
        "calling for a humanitarian ceasefire. "
        "Answer JSON with vote (favour, against, abstention) and rationale.",
    }
]


def test_embedded_model_votes_with_schema_and_is_deterministic() -> None:
    client = ModelClient.from_spec("local:smollm2")
    first = asyncio.run(client.call(MESSAGES, schema=VOTE_SCHEMA))
    second = asyncio.run(client.call(MESSAGES, schema=VOTE_SCHEMA))
    assert first.error is None, first.error
    assert first.raw == second.raw
    assert parse_vote(first.answer).value in {"favour", "against", "abstention"}
    assert first.prompt_tokens > 0 and first.completion_tokens > 0


def test_openai_compatible_server_path(llama_server: str) -> None:
    client = ModelClient.from_spec("openai-compatible:smollm2", base_url=llama_server)
    result = asyncio.run(client.call(MESSAGES, schema=VOTE_SCHEMA))
    assert result.error is None, result.error
    assert parse_vote(result.answer).ok, result.raw
    model = get_chat_model("openai-compatible:smollm2", base_url=llama_server)
    assert model.invoke("Say hello.").content


def test_base_url_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NATIONBIAS_BASE_URL", "http://127.0.0.1:9/v1")
    assert parse_spec("openai-compatible:m").base_url == "http://127.0.0.1:9/v1"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("gpt-4o-mini", "malformed model spec"),
        ("acme:model", "unknown provider 'acme'"),
        ("openai:", "model name after ':' is empty"),
        ("openai:gpt-4o-mini", "OPENAI_API_KEY is not set"),
        ("together:meta-llama/Llama-3.3-70B-Instruct-Turbo", "TOGETHER_API_KEY is not set"),
        ("openai-compatible:qwen", "--base-url"),
        ("local:llama-70b", "only one is local:smollm2"),
    ],
)
def test_bad_specs_fail_before_any_work(spec: str, message: str) -> None:
    with pytest.raises(ModelSpecError, match=message.replace("(", r"\(")):
        ModelClient.from_spec(spec)


def test_openai_and_together_build_with_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-real")
    monkeypatch.setenv("TOGETHER_API_KEY", "tg-test-not-real")
    assert type(get_chat_model("openai:gpt-4o-mini")).__name__ == "ChatOpenAI"
    assert type(get_chat_model("together:Qwen/Qwen2.5-72B-Instruct-Turbo")).__name__ == "ChatTogether"


def test_reasoning_is_split_from_answer_and_raw_kept() -> None:
    raw = '<think>Russia usually vetoes such texts.</think>\n{"vote": "against", "rationale": "x"}'
    answer, reasoning = split_reasoning(raw)
    assert reasoning == "Russia usually vetoes such texts."
    assert parse_vote(answer).value == "against"
