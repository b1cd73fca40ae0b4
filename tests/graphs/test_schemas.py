"""Output schemas: bounded for grammar servers, strict-mode-safe for OpenAI, permutations for rankings."""

from __future__ import annotations

import itertools

from graphs.llm import ModelClient
from graphs.parsing import VOTE_SCHEMA
from graphs.providers.openai import strict_schema
from graphs.ranking import ranking_schema


def test_openai_gets_a_strict_schema_without_length_bounds(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-real")
    fmt = ModelClient.from_spec("openai:gpt-4o-mini").response_format(VOTE_SCHEMA, "vote")
    assert fmt is not None and fmt["type"] == "json_schema" and fmt["json_schema"]["strict"] is True
    assert "maxLength" not in str(fmt)
    assert VOTE_SCHEMA["properties"]["rationale"]["maxLength"] == 300  # the original is untouched


def test_grammar_servers_keep_the_bounds() -> None:
    fmt = ModelClient.from_spec("local:smollm2").response_format(VOTE_SCHEMA, "vote")
    assert fmt == {"type": "json_object", "schema": VOTE_SCHEMA}


def test_permutation_schema_lists_every_order_once() -> None:
    orders = ranking_schema(permutations_only=True)["properties"]["ranking"]["enum"]
    assert len(orders) == 120 and len({tuple(o) for o in orders}) == 120
    assert all(sorted(o) == sorted(orders[0]) for o in orders)
    assert strict_schema({"a": [{"minItems": 5, "b": 1}]}) == {"a": [{"b": 1}]}
    assert next(itertools.islice(orders, 1))[0] == "United States"
