"""The two wire clients the transport benchmark compares (benchmarks/sdk_wire.py) behind one interface:
the same answers and the same typed errors from the real fault server, so the retry policy and the
breaker act alike on both and the comparison is of the transports alone."""

from __future__ import annotations

import asyncio

import pytest

from benchmarks.sdk_wire import WIRES, on_wire
from nationbias.graphs.model.call_result import Answer
from nationbias.graphs.model.client import ModelClient
from nationbias.graphs.model.registry import GenerationParams, parse_spec
from nationbias.graphs.model.retry import ConnectionFailed, Fatal, RetryableStatus, RetryPolicy
from tests.support.fixtures import FaultServerFactory

MESSAGES = [{"role": "user", "content": "hello"}]


def _complete(base_url: str, wire: str, body: dict[str, object] | None = None) -> Answer:
    client = on_wire(ModelClient(spec=parse_spec("openai-compatible:m", base_url=base_url)), wire)

    async def go() -> Answer:
        try:
            return await client._direct_client().complete(body or {"model": "m", "messages": MESSAGES})
        finally:
            await client.aclose()

    return asyncio.run(go())


@pytest.mark.parametrize("wire", WIRES)
def test_an_answer_and_its_usage(fault_server: FaultServerFactory, wire: str) -> None:
    answer = _complete(fault_server().base_url, wire)
    assert answer.raw and answer.prompt_tokens > 0 and answer.finish_reason


@pytest.mark.parametrize("wire", WIRES)
def test_the_same_typed_errors(fault_server: FaultServerFactory, wire: str) -> None:
    with pytest.raises(RetryableStatus) as limited:
        _complete(fault_server(rate_429=1.0, retry_after="3").base_url, wire)
    assert limited.value.status_code == 429 and limited.value.retry_after == 3.0
    with pytest.raises(Fatal) as bad:
        _complete(fault_server().base_url, wire, {"model": "m", "messages": "not a list"})
    assert bad.value.status_code == 400
    with pytest.raises(ConnectionFailed):
        _complete("http://127.0.0.1:9/v1", wire)


@pytest.mark.parametrize("wire", WIRES)
def test_a_call_retries_through_either_wire(fault_server: FaultServerFactory, wire: str) -> None:
    server = fault_server(fail_first_n_per_prompt=2)
    client = on_wire(
        ModelClient(
            spec=parse_spec("openai-compatible:m", base_url=server.base_url),
            params=GenerationParams(timeout=5),
            retry=RetryPolicy(initial_delay=0.01),
        ),
        wire,
    )
    result = asyncio.run(client.call(MESSAGES))
    assert result.error is None and result.attempts == 3 and server.count() == 3
