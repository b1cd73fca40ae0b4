"""One request builder: the body a call POSTs online is the body its batch line carries.

The online call goes to the real local fault server, which hands every body it receives to the
test; the same call in a batch round is deferred and written as ``batch export`` writes it.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from nationbias.graphs.model.batch.calls import BATCH, ENDPOINT_PATH, BatchRound, Deferred
from nationbias.graphs.model.client import ModelClient
from nationbias.graphs.model.registry import GenerationParams
from nationbias.graphs.study.batch_rounds import input_lines
from nationbias.stores.state.cache import ResponseCache
from tests.support.fixtures import FaultServerFactory

MESSAGES = [{"role": "system", "content": "You are Chile."}, {"role": "user", "content": "Vote on S/1."}]
SCHEMA = {"type": "object", "properties": {"vote": {"type": "string", "maxLength": 9}}, "required": ["vote"]}


def _both(client: ModelClient, seen: list[dict[str, Any]]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The batch line written for the call, and the body the server received for it online."""

    async def go() -> dict[str, Any]:
        collector = BatchRound()
        token = BATCH.set(collector)
        try:
            with pytest.raises(Deferred):
                await client.call(MESSAGES, schema=SCHEMA, schema_name="vote", max_tokens=40)
        finally:
            BATCH.reset(token)
        result = await client.call(MESSAGES, schema=SCHEMA, schema_name="vote", max_tokens=40)
        await client.aclose()
        assert result.error is None, result.error
        (custom_id, (_, body)), *rest = collector.pending.items()
        assert not rest
        return {"custom_id": custom_id, "body": body}

    pending = asyncio.run(go())
    (line,) = [json.loads(text) for text in input_lines([pending]).decode().splitlines()]
    assert len(seen) == 1 and line["url"] == ENDPOINT_PATH and line["method"] == "POST"
    return line, seen[0]


def _server(fault_server: FaultServerFactory, seen: list[dict[str, Any]]) -> str:
    def responder(body: dict[str, Any]) -> str:
        seen.append(body)
        return '{"vote": "yes"}'

    return fault_server(responder=responder).base_url


def test_the_batch_line_carries_the_online_body(
    fault_server: FaultServerFactory, isolated_home: Path
) -> None:
    seen: list[dict[str, Any]] = []
    params = GenerationParams(temperature=0.3, seed=7, max_tokens=300)
    client = ModelClient.from_spec(
        "openai-compatible:qwen", base_url=_server(fault_server, seen), cache=ResponseCache(), params=params
    )
    line, online = _both(client, seen)
    assert line["body"] == online
    assert online["max_tokens"] == 40 and online["temperature"] == 0.3 and online["seed"] == 7
    assert online["response_format"]["schema"]["properties"]["vote"]["maxLength"] == 9
    assert line["custom_id"] == client._key(MESSAGES, online["response_format"], 0, 40)


def test_a_providers_own_parameters_reach_both(
    fault_server: FaultServerFactory, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """OpenAI's reasoning rule (no temperature, max_completion_tokens) and strict schema, both ways."""
    seen: list[dict[str, Any]] = []
    monkeypatch.setenv("OPENAI_BASE_URL", _server(fault_server, seen))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-local-test-server")
    client = ModelClient.from_spec("openai:o4-mini", cache=ResponseCache())
    line, online = _both(client, seen)
    assert line["body"] == online
    assert "temperature" not in online and "max_tokens" not in online
    assert online["max_completion_tokens"] == client.reasoning_max_tokens
    assert "maxLength" not in json.dumps(online["response_format"])  # strict mode drops length bounds
