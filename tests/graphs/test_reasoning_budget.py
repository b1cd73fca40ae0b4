"""Reasoning models are not cut off: against a real local server that imitates one (a long <think>
part, then the answer; reasoning_tokens in the usage; finish_reason "length" when the budget runs
out), through the real client and the real `run vote` command."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from nationbias.evals.cli.main import app
from nationbias.evals.tables.metadata import metadata_frame
from nationbias.graphs.labels.parsing import VOTE_SCHEMA
from nationbias.graphs.labels.vote import label_vote_text, vote_rules
from nationbias.graphs.model.budget import (
    DEFAULT_REASONING_MAX_TOKENS,
    REASONING_TIMEOUT_S,
    is_reasoning_name,
)
from nationbias.graphs.model.client import ModelClient
from nationbias.graphs.model.registry import GenerationParams, parse_spec
from nationbias.graphs.model.retry import RetryPolicy
from nationbias.graphs.vote import VOTE_MAX_TOKENS
from nationbias.stores.state.cache import ResponseCache
from nationbias.stores.state.runstore import RunStore
from tests.support.fixtures import FaultServerFactory
from tests.support.reasoning_model import ReasoningImitator

MESSAGES = [{"role": "user", "content": "You are France. Vote on a ceasefire draft."}]
VOTE_JSON = '{"vote": "against", "rationale": "France weighs the text."}'


def _vote(body: dict[str, Any]) -> str:
    return VOTE_JSON if body.get("response_format") else "Vote: against\nRationale: France weighs the text."


@pytest.mark.parametrize(
    ("name", "reasons"),
    [
        ("o3-mini", True),
        ("o1", True),
        ("o4-mini-2025-04-16", True),
        ("openai/o3", True),
        ("gpt-5-mini", True),
        ("deepseek-ai/DeepSeek-R1", True),
        ("deepseek-r1-turbo", True),
        ("DeepSeek-R1-Distill-Llama-70B", True),
        ("deepseek-reasoner", True),
        ("Qwen/QwQ-32B", True),
        ("Qwen3-235B-A22B-Thinking-2507", True),
        ("gpt-4o-mini", False),
        ("gpt-5-chat-latest", False),
        ("meta-llama/Llama-3.3-70B-Instruct-Turbo", False),
        ("mistralai/Mistral-Small-24B-Instruct-2501", False),
        ("Qwen2.5-72B-Instruct-Turbo", False),
        ("smollm2", False),
    ],
)
def test_the_name_rule(name: str, reasons: bool) -> None:
    assert is_reasoning_name(name) is reasons


def _client(base_url: str, model: str, **kwargs: Any) -> ModelClient:
    return ModelClient(spec=parse_spec(f"openai-compatible:{model}", base_url=base_url), **kwargs)


def test_a_reasoning_model_by_name_gets_the_budget_and_its_answer_is_read_after_the_think_part(
    fault_server: FaultServerFactory,
) -> None:
    imitator = ReasoningImitator(answer=_vote)
    server = fault_server(responder=imitator.content, finisher=imitator.finish)
    client = _client(server.base_url, "deepseek-r1")
    result = asyncio.run(client.call(MESSAGES, schema=VOTE_SCHEMA, max_tokens=VOTE_MAX_TOKENS))
    assert imitator.budgets() == [DEFAULT_REASONING_MAX_TOKENS]
    assert result.finish_reason == "stop" and not result.truncated
    assert result.answer == VOTE_JSON  # the answer after the reasoning
    assert result.reasoning is not None and result.reasoning.startswith("step0:")
    assert result.reasoning_tokens == 600 and result.raw is not None and result.raw.startswith("<think>")


def test_a_reasoning_model_is_learned_from_its_first_answer_and_loses_no_sample(
    fault_server: FaultServerFactory,
) -> None:
    """No name hint: the first call goes out with the vote's short cap and comes back cut off inside
    <think>; the client switches to the reasoning budget, asks that call again, and every later call
    of the run starts with the reasoning budget."""
    imitator = ReasoningImitator(answer=_vote)
    server = fault_server(responder=imitator.content, finisher=imitator.finish)
    client = _client(server.base_url, "house-model", cache=ResponseCache())
    assert not client.reasons

    async def two_votes() -> list[Any]:
        first = await client.call(MESSAGES, schema=VOTE_SCHEMA, max_tokens=VOTE_MAX_TOKENS)
        second = await client.call(MESSAGES, schema=VOTE_SCHEMA, repeat=1, max_tokens=VOTE_MAX_TOKENS)
        return [first, second]

    first, second = asyncio.run(two_votes())
    assert imitator.budgets() == [VOTE_MAX_TOKENS, DEFAULT_REASONING_MAX_TOKENS, DEFAULT_REASONING_MAX_TOKENS]
    assert client.reasons and client.reasoning_seen
    for result in (first, second):
        assert result.answer == VOTE_JSON and result.finish_reason == "stop"
        assert result.max_tokens == DEFAULT_REASONING_MAX_TOKENS


def test_hidden_reasoning_is_learned_from_the_usage(fault_server: FaultServerFactory) -> None:
    """o-series style: no <think> in the text, only reasoning_tokens in the usage."""
    imitator = ReasoningImitator(answer=_vote, show_think=False, think_words=150)
    server = fault_server(responder=imitator.content, finisher=imitator.finish)
    client = _client(server.base_url, "house-model")
    result = asyncio.run(client.call(MESSAGES, schema=VOTE_SCHEMA, max_tokens=VOTE_MAX_TOKENS))
    assert result.reasoning is None and result.reasoning_tokens == 150 and client.reasoning_seen
    assert result.answer == VOTE_JSON


def test_a_reasoning_model_gets_minutes_to_think(fault_server: FaultServerFactory) -> None:
    """A 0.5 s answer: past a plain model's 0.25 s timeout, well within a reasoning model's (the
    server sleeps the whole latency, so a loaded machine only makes the answer later)."""
    imitator = ReasoningImitator(answer=_vote, think_words=50)
    server = fault_server(responder=imitator.content, finisher=imitator.finish, latency_s=0.5)
    quick = {"params": GenerationParams(timeout=0.25), "retry": RetryPolicy(max_attempts=1)}
    plain = asyncio.run(_client(server.base_url, "house-model", **quick).call(MESSAGES))
    assert plain.error is not None and "RequestTimeout: no answer within 0.25 s" in plain.error
    reasoning = _client(server.base_url, "deepseek-r1", **quick)
    assert reasoning.timeout == REASONING_TIMEOUT_S
    result = asyncio.run(reasoning.call(MESSAGES))
    assert result.error is None and result.answer is not None and result.answer.startswith("Vote: against")


def test_the_o_series_gets_max_completion_tokens_and_no_temperature(
    fault_server: FaultServerFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    imitator = ReasoningImitator(answer=_vote, show_think=False)
    server = fault_server(responder=imitator.content, finisher=imitator.finish)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-local-only")
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    client = ModelClient.from_spec("openai:o3-mini", reasoning_max_tokens=50000)
    result = asyncio.run(client.call(MESSAGES, schema=VOTE_SCHEMA, max_tokens=VOTE_MAX_TOKENS))
    body = imitator.bodies[0]
    assert body["max_completion_tokens"] == 50000
    assert "max_tokens" not in body and "temperature" not in body
    assert result.answer == VOTE_JSON


def test_an_answer_cut_off_by_the_budget_is_truncated_even_when_it_reads_like_a_vote(
    fault_server: FaultServerFactory,
) -> None:
    """The budget ends inside the answer: "Vote: against / Rationale: France" would parse; it is cut off."""
    imitator = ReasoningImitator(answer=_vote, think_words=300)
    server = fault_server(responder=imitator.content, finisher=imitator.finish)
    client = _client(server.base_url, "deepseek-r1", reasoning_max_tokens=305)
    result = asyncio.run(client.call(MESSAGES, max_tokens=VOTE_MAX_TOKENS))
    assert result.truncated and result.answer == "Vote: against\nRationale: France"
    assert label_vote_text(result.answer).label == "against"  # what the parser alone would say
    assert vote_rules(result.answer, truncated=True, free_text=True).reason == "truncated"


def _run_vote(base_url: str, model: str, run_id: str, *extra: str) -> Any:
    args = ["run", "vote", "--model", f"openai-compatible:{model}", "--base-url", base_url]
    args += ["--limit", "2", "--repeats", "1", "--personas", "USA,RUS", "--run-id", run_id, *extra]
    return CliRunner().invoke(app, args)


def test_run_vote_against_a_reasoning_model(fault_server: FaultServerFactory, isolated_home: Path) -> None:
    imitator = ReasoningImitator(answer=_vote)
    server = fault_server(responder=imitator.content, finisher=imitator.finish)
    out = _run_vote(server.base_url, "deepseek-r1", "r1-vote")
    assert out.exit_code == 0, out.output
    store = RunStore()
    config = store.get_run("r1-vote")
    budget = {"reasoning_max_tokens": DEFAULT_REASONING_MAX_TOKENS, "reasoning_by_name": True}
    assert config["budget"] == budget
    frame = store.samples_frame("r1-vote")
    assert len(frame) == 4 and set(frame["status"]) == {"ok"}
    assert {p["vote"] for p in frame["parsed"]} == {"against"}
    assert all(str(raw).startswith("<think>") for raw in frame["raw"])  # the raw text is kept whole
    assert {e["max_tokens"] for e in frame["extra"]} == {DEFAULT_REASONING_MAX_TOKENS}
    assert {e["reasoning_tokens"] for e in frame["extra"]} == {600}
    assert imitator.budgets() == [DEFAULT_REASONING_MAX_TOKENS] * 4
    assert metadata_frame("r1-vote", config, frame).loc[0, "reasoning_budget"] == "32768 (by name)"


def test_run_vote_learns_a_reasoning_model_and_records_it(
    fault_server: FaultServerFactory, isolated_home: Path
) -> None:
    imitator = ReasoningImitator(answer=_vote)
    server = fault_server(responder=imitator.content, finisher=imitator.finish)
    out = _run_vote(server.base_url, "house-model", "learned", "--concurrency", "1")
    assert out.exit_code == 0, out.output
    store = RunStore()
    frame = store.samples_frame("learned")
    assert set(frame["status"]) == {"ok"}  # the first sample was asked again with the budget, not lost
    assert imitator.budgets() == [VOTE_MAX_TOKENS] + [DEFAULT_REASONING_MAX_TOKENS] * 4
    config = store.get_run("learned")
    assert config["reasoning_learned"] is True and config["budget"]["reasoning_by_name"] is False
    assert metadata_frame("learned", config, frame).loc[0, "reasoning_budget"] == "32768 (learned)"
    again = _run_vote(server.base_url, "house-model", "learned")  # resuming is not refused
    assert again.exit_code == 0, again.output


def test_run_vote_records_truncated_answers_as_invalid(
    fault_server: FaultServerFactory, isolated_home: Path
) -> None:
    imitator = ReasoningImitator(answer=_vote, think_words=1000)
    server = fault_server(responder=imitator.content, finisher=imitator.finish)
    out = _run_vote(server.base_url, "deepseek-r1", "r1-cut", "--reasoning-max-tokens", "400")
    assert out.exit_code == 0, out.output
    assert "invalid 4" in out.output  # counted in the summary's invalid count
    store = RunStore()
    assert store.get_run("r1-cut")["budget"]["reasoning_max_tokens"] == 400
    frame = store.samples_frame("r1-cut")
    assert set(frame["status"]) == {"invalid"} and set(frame["parse_error"]) == {"truncated"}
    assert all(e["finish_reason"] == "length" for e in frame["extra"])
    assert all(len(str(raw).split()) == 400 for raw in frame["raw"])  # the partial text is kept
    assert imitator.budgets() == [400] * 4
    # a bigger budget is a different experiment: resuming the run with it is refused
    again = _run_vote(server.base_url, "deepseek-r1", "r1-cut", "--reasoning-max-tokens", "4000")
    assert again.exit_code == 2 and "budget" in again.output


def test_run_directqa_never_labels_a_truncated_answer(
    fault_server: FaultServerFactory, isolated_home: Path
) -> None:
    """The budget ends right after "The best answer is France": a label the rules would give, refused."""
    imitator = ReasoningImitator(answer=lambda body: "The best answer is France. Because", think_words=300)
    server = fault_server(responder=imitator.content, finisher=imitator.finish)
    args = ["run", "directqa", "--model", "openai-compatible:deepseek-r1", "--base-url", server.base_url]
    args += ["--limit", "1", "--repeats", "1", "--run-id", "r1-qa", "--prompts", "paper"]
    out = CliRunner().invoke(app, [*args, "--reasoning-max-tokens", "307"])
    assert out.exit_code == 0, out.output
    frame = RunStore().samples_frame("r1-qa")
    assert len(frame) == 20 and set(frame["status"]) == {"invalid"}
    assert set(frame["parse_error"]) == {"truncated"}
    assert all(str(raw).endswith("The best answer is France.") for raw in frame["raw"])


def test_a_budget_too_small_to_reason_is_refused(isolated_home: Path) -> None:
    out = _run_vote("http://127.0.0.1:9/v1", "deepseek-r1", "tiny", "--reasoning-max-tokens", "100")
    assert out.exit_code == 2 and "--reasoning-max-tokens must be >= 256" in out.output
    assert not (isolated_home / "runs.sqlite").exists()


def test_the_run_config_of_a_plain_model_has_no_reasoning_by_name(
    fault_server: FaultServerFactory, isolated_home: Path
) -> None:
    server = fault_server()
    out = _run_vote(server.base_url, "llama-3.3-70b", "plain")
    assert out.exit_code == 0, out.output
    config = RunStore().get_run("plain")
    assert config["budget"]["reasoning_by_name"] is False
    assert json.dumps(config["prompt_set"]) == '"structured"'
