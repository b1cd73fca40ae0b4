"""Every number and shape a server sends is checked where it enters: a token count of 10**30, "many", NaN
or -1, a usage or a message that is not an object is a sample error with its reason (retried, the paid
body kept on the row, nothing cached), never a traceback and never a wedged run; content sent as a list
of parts is read; a batch results file with such a line is refused whole, naming the line, exit 2."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from nationbias.evals.cli.main import app
from nationbias.graphs.model.client import ModelClient
from nationbias.graphs.model.retry import RetryPolicy
from nationbias.stores.state.batches import BatchStore
from nationbias.stores.state.cache import ResponseCache
from tests.support.fault_server import FaultConfig
from tests.support.fixtures import FaultServerFactory
from tests.support.reliability import MODEL, rows

VOTE = ["run", "vote", "-m", MODEL, "--limit", "1", "--repeats", "1", "--personas", "USA"]
VOTE_JSON = '{"vote": "against", "rationale": "It harms us."}'

BAD_USAGE: dict[str, tuple[Any, str]] = {
    "huge": ({"prompt_tokens": 10**30, "completion_tokens": 3}, "usage.prompt_tokens is 10000000000"),
    "words": ({"prompt_tokens": 12, "completion_tokens": "many"}, "usage.completion_tokens is 'many'"),
    "nan": ({"prompt_tokens": float("nan"), "completion_tokens": 3}, "usage.prompt_tokens is nan"),
    "negative": ({"prompt_tokens": -1, "completion_tokens": 3}, "usage.prompt_tokens is -1"),
    "string": ("12 prompt tokens", "usage is '12 prompt tokens': not an object"),
}


@pytest.fixture(autouse=True)
def quick_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every attempt is still made, 10 ms apart (the backoff's length is tests/graphs/test_retry.py's)."""
    monkeypatch.setattr(RetryPolicy, "delay", lambda policy, attempt, retry_after: 0.01)


def _cached(home: Path) -> int:
    if not (home / "cache.sqlite").exists():
        return 0
    with closing(sqlite3.connect(home / "cache.sqlite")) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0])


@pytest.mark.parametrize("case", BAD_USAGE)
def test_a_bad_token_count_is_a_sample_error_with_its_reason_and_the_run_resumes(
    fault_server: FaultServerFactory, isolated_home: Path, case: str
) -> None:
    usage, reason = BAD_USAGE[case]
    server = fault_server(
        responder=lambda body: VOTE_JSON, finisher=lambda body, done: {**done, "usage": usage}
    )
    runner = CliRunner(env={"NATIONBIAS_BASE_URL": server.base_url})
    first = runner.invoke(app, [*VOTE, "--run-id", "numbers"])
    assert first.exit_code == 1, first.output  # one errored sample, beyond --fail-on-error 0
    assert isinstance(first.exception, SystemExit), first.exception  # an exit code, not a traceback
    assert "summary: 1 done now" in first.stderr and "--run-id numbers --retry-errors" in first.stderr
    (row,) = rows(isolated_home, "numbers")
    assert row["status"] == "error" and reason in row["error"] and "BrokenAnswer" in row["error"], row[
        "error"
    ]
    assert row["prompt_tokens"] == 0 and row["completion_tokens"] == 0
    assert VOTE_JSON in json.loads(row["raw"])["choices"][0]["message"]["content"]  # the paid body, kept
    assert server.count() == 4  # retried: a server may answer well the next time
    assert _cached(isolated_home) == 0  # an error is never cached

    server.config = FaultConfig(responder=lambda body: VOTE_JSON)  # the server mends: the run is not wedged
    again = runner.invoke(app, [*VOTE, "--run-id", "numbers", "--retry-errors"])
    assert again.exit_code == 0, again.output
    (row,) = rows(isolated_home, "numbers")
    assert row["status"] == "ok" and row["parsed"]["vote"] == "against" and row["prompt_tokens"] > 0


def _parts(body: dict[str, Any], done: dict[str, Any]) -> dict[str, Any]:
    half = len(VOTE_JSON) // 2
    parts = [{"type": "text", "text": VOTE_JSON[:half]}, {"type": "text", "text": VOTE_JSON[half:]}]
    done["choices"][0]["message"]["content"] = parts
    return done


def _message_string(body: dict[str, Any], done: dict[str, Any]) -> dict[str, Any]:
    done["choices"][0]["message"] = VOTE_JSON
    return done


def _image_part(body: dict[str, Any], done: dict[str, Any]) -> dict[str, Any]:
    done["choices"][0]["message"]["content"] = [{"type": "image_url", "image_url": {"url": "x"}}]
    return done


def _number(body: dict[str, Any], done: dict[str, Any]) -> dict[str, Any]:
    done["choices"][0]["message"]["content"] = 42
    return done


@pytest.mark.parametrize(
    ("shape", "reason"),
    [
        (_parts, None),  # a list of text parts is an answer: joined
        (_message_string, 'choices[0].message is \'{"vote"'),
        (_image_part, "choices[0].message.content[0] is {'type': 'image_url'"),
        (_number, "choices[0].message.content is 42: neither text nor a list of text parts"),
    ],
)
def test_odd_answer_shapes_are_read_or_a_sample_error_with_a_reason(
    fault_server: FaultServerFactory, isolated_home: Path, shape: Any, reason: str | None
) -> None:
    server = fault_server(responder=lambda body: VOTE_JSON, finisher=shape)
    result = CliRunner(env={"NATIONBIAS_BASE_URL": server.base_url}).invoke(app, [*VOTE, "--run-id", "shape"])
    (row,) = rows(isolated_home, "shape")
    if reason is None:
        assert result.exit_code == 0, result.output
        assert row["status"] == "ok" and row["raw"] == VOTE_JSON and row["parsed"]["vote"] == "against"
        assert _cached(isolated_home) == 1
        return
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit), result.output
    assert "summary: 1 done now" in result.stderr
    assert row["status"] == "error" and reason in row["error"], row["error"]
    assert json.loads(row["raw"])["choices"]  # the body the server sent, kept on the row
    assert _cached(isolated_home) == 0 and server.count() == 4


NOWHERE = "http://127.0.0.1:9/v1"  # the offline run never talks to its server


def _output_line(request: dict[str, Any], usage: Any) -> str:
    completion = {
        "id": "chatcmpl-x",
        "object": "chat.completion",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": VOTE_JSON}, "finish_reason": "stop"}
        ],
        "usage": usage,
    }
    response = {"status_code": 200, "request_id": "r", "body": completion}
    return json.dumps({"id": "b", "custom_id": request["custom_id"], "response": response, "error": None})


@pytest.mark.parametrize(
    ("usage", "says"),
    [
        ({"prompt_tokens": 10**30, "completion_tokens": 3}, "line 2: usage.prompt_tokens is 1000"),
        ("many", "line 2: usage is 'many': not an object"),
    ],
)
def test_batch_import_refuses_a_bad_number_whole_naming_the_line(
    isolated_home: Path, tmp_path: Path, usage: Any, says: str
) -> None:
    base = ["run", "vote", "-m", MODEL, "--limit", "2", "--repeats", "1", "--personas", "USA"]
    offline = CliRunner().invoke(
        app, [*base, "--base-url", NOWHERE, "--batch-offline", "--run-id", "offline"]
    )
    assert offline.exit_code == 0, offline.output
    exported = CliRunner().invoke(app, ["batch", "export", "offline", "--round", "1"])
    requests = [json.loads(line) for line in exported.output.splitlines() if line.strip()]
    assert len(requests) == 2
    good = {"prompt_tokens": 10, "completion_tokens": 3}
    results = tmp_path / "results.jsonl"
    results.write_text(_output_line(requests[0], good) + "\n" + _output_line(requests[1], usage) + "\n")

    result = CliRunner().invoke(app, ["batch", "import", "offline", str(results)])
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit), result.exception
    assert says in " ".join(result.output.split()) and "results.jsonl" in result.output
    assert _cached(isolated_home) == 0  # checked whole before anything is written: the good line too
    assert {r["status"] for r in BatchStore().requests("offline")} == {"pending"}


def test_a_cached_answer_with_a_bad_count_is_asked_again_and_replaced(
    fault_server: FaultServerFactory, isolated_home: Path
) -> None:
    """An answer an older version cached with a count it would now refuse is a miss, not a wedge."""
    server = fault_server(responder=lambda body: VOTE_JSON)
    messages = [{"role": "user", "content": "How do you vote?"}]
    client = ModelClient.from_spec(MODEL, base_url=server.base_url, cache=ResponseCache())
    key = client._key(messages, None, 0, 40)
    stale = {"raw": VOTE_JSON, "error": None, "prompt_tokens": 10**30, "completion_tokens": 3}
    ResponseCache().put(key, provider="openai-compatible", model="fault-model", response=stale)

    result = asyncio.run(client.call(messages, max_tokens=40))
    assert result.error is None and not result.cached and result.raw == VOTE_JSON
    assert server.count() == 1 and 0 < result.prompt_tokens < 100
    again = asyncio.run(client.call(messages, max_tokens=40))  # the fresh answer replaced it
    assert again.cached and again.prompt_tokens == result.prompt_tokens and server.count() == 1
