"""The openai SDK over its own aiohttp transport (``openai.DefaultAioHttpClient``), as a wire client.

The same interface as graphs/model/http.py's client, measured against it in one benchmark run
(benchmarks/RESULTS.md, "Transport"); the faster is the default (graphs/model/providers/wire.py).
It needs the ``httpx-aiohttp`` package (``openai[aiohttp]``).
"""

from __future__ import annotations

import json
from typing import Any

import aiohttp
import openai

from nationbias.graphs.model.answer_shape import body_budget
from nationbias.graphs.model.call_result import Answer, answer_from_json
from nationbias.graphs.model.retry import ConnectionFailed, RequestTimeout, classify


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
