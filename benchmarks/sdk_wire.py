"""The openai SDK over its own aiohttp transport (``openai.DefaultAioHttpClient``), as a wire client.

The library asks the OpenAI-wire providers through its own aiohttp client (graphs/model/http.py); the
throughput benchmark runs the same study through this one beside it (benchmarks/transport.py), to show
the choice still holds. Same interface, same typed errors (tests/benchmarks/test_sdk_wire.py).
It needs the ``httpx-aiohttp`` package (``openai[aiohttp]``).
"""

from __future__ import annotations

import json
from typing import Any

import aiohttp
import openai

from nationbias.graphs.model.answer_shape import body_budget
from nationbias.graphs.model.call_result import Answer, answer_from_json
from nationbias.graphs.model.client import ModelClient
from nationbias.graphs.model.providers.base import ChatTransport
from nationbias.graphs.model.providers.compatible import Compatible
from nationbias.graphs.model.retry import ConnectionFailed, RequestTimeout, classify

WIRES = ("aiohttp", "sdk")  # the library's own client first


def _typed(exc: BaseException) -> BaseException:
    """``classify``, plus one fix: the SDK's vendored aiohttp transport reports a refused connection
    as a ``ConnectTimeout`` (aiohttp's ``ClientConnectorError`` caught as its parent class first),
    which would hide an unreachable endpoint from the circuit breaker."""
    error = classify(exc)
    cause: BaseException | None = exc
    while cause is not None and isinstance(error, RequestTimeout):
        if isinstance(cause, aiohttp.ClientConnectorError):
            return ConnectionFailed(f"{type(cause).__name__}: {cause}")
        cause = cause.__cause__ or cause.__context__
    return error


class SDKChatClient:
    """``AsyncOpenAI`` with ``DefaultAioHttpClient``, no SDK retries (the project's policy applies)."""

    def __init__(
        self, *, base_url: str | None, api_key: str, timeout: float, headers: dict[str, str] | None = None
    ) -> None:
        self._client = openai.AsyncOpenAI(
            base_url=base_url,
            api_key=api_key,
            timeout=timeout,
            max_retries=0,
            default_headers=headers or None,
            http_client=openai.DefaultAioHttpClient(timeout=timeout),
        )
        self.url = str(self._client.base_url).rstrip("/") + "/chat/completions"

    async def complete(self, body: dict[str, Any], *, timeout: float | None = None) -> Answer:
        try:
            completion = await self._client.chat.completions.create(**body, timeout=timeout)
        except Exception as exc:
            raise _typed(exc) from exc
        # the SDK builds its models without validating them: every field is checked as the aiohttp
        # client's are (graphs/model/answer_shape.py), from the document as the server sent it
        data = completion.model_dump(mode="python", warnings=False)
        raw = json.dumps(data, ensure_ascii=False, default=str)
        return answer_from_json(data, max_tokens=body_budget(body), raw=raw)

    async def aclose(self) -> None:
        await self._client.close()


class CompatibleOnSDK(Compatible):
    """``openai-compatible:`` asked through the SDK's transport instead of the library's client."""

    def wire_client(self, base_url: str | None, *, timeout: float) -> ChatTransport:
        return SDKChatClient(base_url=base_url, api_key=self.key(), timeout=timeout, headers=self.headers())


def on_wire(client: ModelClient, wire: str) -> ModelClient:
    """``client`` (an ``openai-compatible:`` spec) asking through ``wire``, one of :data:`WIRES`."""
    if wire not in WIRES:
        raise ValueError(f"unknown wire {wire!r}: one of {', '.join(WIRES)}")
    if wire == "sdk":
        if not isinstance(client.provider, Compatible):
            raise ValueError(f"the SDK wire is measured on openai-compatible: specs, not {client.spec}")
        client.provider = CompatibleOnSDK()
    return client
