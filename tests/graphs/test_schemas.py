"""Output schemas: bounded for grammar servers, strict-mode-safe for OpenAI, permutations for rankings."""

from __future__ import annotations

import itertools

from nationbias.graphs.debias import REFLECTION_SCHEMA
from nationbias.graphs.labels.parsing import VOTE_SCHEMA
from nationbias.graphs.labels.ranking import ranking_schema
from nationbias.graphs.model.client import ModelClient
from nationbias.graphs.model.providers.openai import strict_schema


def test_openai_gets_a_strict_schema_without_length_bounds(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-real")
    fmt = ModelClient.from_spec("openai:gpt-4o-mini").response_format(VOTE_SCHEMA, "vote")
    assert fmt is not None and fmt["type"] == "json_schema" and fmt["json_schema"]["strict"] is True
    assert "maxLength" not in str(fmt)
    assert VOTE_SCHEMA["properties"]["rationale"]["maxLength"] == 300  # the original is untouched


def test_grammar_servers_keep_the_bounds() -> None:
    fmt = ModelClient.from_spec("openai-compatible:m", base_url="http://127.0.0.1:9/v1").response_format(
        VOTE_SCHEMA, "vote"
    )
    assert fmt == {"type": "json_object", "schema": VOTE_SCHEMA}


def test_the_embedded_model_writes_short_free_text_and_keeps_every_other_rule() -> None:
    """A 135M model under a grammar writes slowly: every free-text field is capped at 160 characters,
    the enums (the vote, the ranking) are untouched, and so is the shared schema."""
    for schema in (VOTE_SCHEMA, REFLECTION_SCHEMA, ranking_schema(permutations_only=False)):
        fmt = ModelClient.from_spec("local:smollm2").response_format(schema, "x")
        assert fmt is not None and fmt["type"] == "json_object"
        sent = fmt["schema"]
        for name, prop in schema["properties"].items():
            if prop.get("type") == "string" and "enum" not in prop:
                assert sent["properties"][name]["maxLength"] == min(prop.get("maxLength", 160), 160)
            else:
                assert sent["properties"][name] == prop, name
    assert VOTE_SCHEMA["properties"]["rationale"]["maxLength"] == 300


def test_permutation_schema_lists_every_order_once() -> None:
    orders = ranking_schema(permutations_only=True)["properties"]["ranking"]["enum"]
    assert len(orders) == 120 and len({tuple(o) for o in orders}) == 120
    assert all(sorted(o) == sorted(orders[0]) for o in orders)
    assert strict_schema({"a": [{"minItems": 5, "b": 1}]}) == {"a": [{"b": 1}]}
    assert next(itertools.islice(orders, 1))[0] == "United States"
