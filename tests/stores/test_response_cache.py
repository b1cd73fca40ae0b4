"""The response cache: hits, misses, errors never cached, no secret in the key or the file."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from nationbias.graphs.labels.parsing import VOTE_SCHEMA
from nationbias.graphs.model.breaker import EndpointUnreachable
from nationbias.graphs.model.client import ModelClient
from nationbias.graphs.model.retry import RetryPolicy
from nationbias.stores.state.cache import ResponseCache, cache_key

MESSAGES = [{"role": "user", "content": "Vote on the draft."}]


def test_hit_and_miss_and_repeat_index(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "c.sqlite")
    client = ModelClient.from_spec("fake:hash", cache=cache)
    first = asyncio.run(client.call(MESSAGES, schema=VOTE_SCHEMA, repeat=0))
    again = asyncio.run(client.call(MESSAGES, schema=VOTE_SCHEMA, repeat=0))
    other_repeat = asyncio.run(client.call(MESSAGES, schema=VOTE_SCHEMA, repeat=1))
    assert not first.cached and again.cached and not other_repeat.cached
    assert again.raw == first.raw
    assert client.calls_made == 2
    assert cache.stats().entries == 2


def test_errors_are_never_cached(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "c.sqlite")
    client = ModelClient.from_spec(
        "openai-compatible:m",
        base_url="http://127.0.0.1:9/v1",
        cache=cache,
        retry=RetryPolicy(max_attempts=2, initial_delay=0.01),
    )
    # an endpoint that never answered stops the run (graphs/model/breaker.py) rather than returning an error
    with pytest.raises(EndpointUnreachable, match="Connection refused"):
        asyncio.run(client.call(MESSAGES))
    assert cache.stats().entries == 0
    with pytest.raises(ValueError, match="never cached"):
        cache.put("k", provider="p", model="m", response={"raw": None, "error": "boom"})


def test_key_holds_no_secret(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "sk-SENTINEL-0123456789"
    monkeypatch.setenv("NATIONBIAS_API_KEY", secret)
    cache = ResponseCache(tmp_path / "c.sqlite")
    client = ModelClient.from_spec("openai-compatible:m", base_url="http://127.0.0.1:9/v1", cache=cache)
    key = client._key(MESSAGES, None, 0)
    assert secret not in key
    with pytest.raises(ValueError, match="credentials"):
        cache_key(provider="p", model="m", base_url=None, messages=[], params={"api_key": secret}, repeat=0)
    assert cache_key(provider="p", model="m", base_url=None, messages=[], params={"max_tokens": 5}, repeat=0)


def test_stats_and_clear(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "c.sqlite")
    cache.put("a", provider="fake", model="hash", response={"raw": "x"})
    assert cache.get("a") == {"raw": "x"}
    assert cache.stats().by_model == {"fake:hash": 1}
    assert cache.clear() == 1
    assert cache.get("a") is None


def test_a_repeated_run_over_the_cache_makes_zero_model_calls(fault_server) -> None:  # type: ignore[no-untyped-def]
    from typer.testing import CliRunner

    from nationbias.evals.cli.main import app

    server = fault_server()
    args = [
        "run",
        "vote",
        "--model",
        "openai-compatible:m",
        "--base-url",
        server.base_url,
        "--limit",
        "3",
        "--repeats",
        "2",
    ]
    first = CliRunner().invoke(app, [*args, "--run-id", "first"])
    assert first.exit_code == 0, first.output
    calls = server.stats()["total"]
    assert calls == 3 * 5 * 2
    second = CliRunner().invoke(app, [*args, "--run-id", "second"])
    assert second.exit_code == 0, second.output
    assert server.stats()["total"] == calls  # a new run id, every answer from the cache
    no_cache = CliRunner().invoke(app, [*args, "--run-id", "third", "--no-cache"])
    assert no_cache.exit_code == 0, no_cache.output
    assert server.stats()["total"] == 2 * calls
