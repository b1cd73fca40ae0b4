"""The OpenAI chat-completions wire protocol over aiohttp: the study hot path for ``openai:`` and
``openai-compatible:`` models.

Why not the openai SDK: at 64 calls in flight its request building plus httpx (anyio, h11,
httpcore's pool scans) cost ~2 ms of event-loop CPU per call and held a 200 ms-latency server to
~0.67 of what the concurrency allows; aiohttp's C parser and pool cost a fraction of that
(benchmarks/RESULTS.md). lm-eval-harness's API models take the same road. The SDK and LangChain
remain the public registry (``nationbias.graphs.model.registry.get_chat_model``) for user graphs.

Errors are typed for the retry policy (graphs/model/retry.py): the status, the server's own message and
its Retry-After. Measured against the SDK's own aiohttp transport (benchmarks/sdk_wire.py) in the
same benchmark run: benchmarks/RESULTS.md, "Throughput against the physical limit".
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import aiohttp
from aiohttp.helpers import get_env_proxy_for_url
from yarl import URL

from nationbias.graphs.model.answer_shape import (
    CAP_BASE_BYTES,
    OversizedAnswer,
    answer_cap,
    body_budget,
    oversized,
)
from nationbias.graphs.model.call_result import Answer, answer_from_json
from nationbias.graphs.model.retry import (
    BrokenAnswer,
    ConnectionFailed,
    RequestTimeout,
    TransportError,
    status_error,
)

OPENAI_BASE_URL = "https://api.openai.com/v1"
_HINTS = {
    403: "the key is not allowed to use this model",
    404: "check the model name and --base-url (it usually ends in /v1)",
}


def server_message(status: int, reason: str | None, body: bytes) -> str:
    try:
        error = json.loads(body).get("error")
        text = error.get("message") if isinstance(error, dict) else error
    except (ValueError, AttributeError):
        text = None
    text = text if isinstance(text, str) and text else body[:200].decode("utf-8", "replace")
    return f"HTTP {status} {reason or ''}".rstrip() + (f": {text}" if text else "")


def json_object(payload: bytes) -> dict[str, Any]:
    """A 2xx body as a JSON object, or a :class:`BrokenAnswer` keeping the body as it came."""
    try:
        data = json.loads(payload)
    except ValueError as exc:
        error = BrokenAnswer(f"the response is not JSON: {exc}")
    else:
        if isinstance(data, dict):
            return data
        error = BrokenAnswer(f"the response is not a JSON object: {payload[:200]!r}")
    error.raw = payload.decode("utf-8", "replace")
    raise error


def _env_proxy(url: str) -> tuple[URL | None, aiohttp.BasicAuth | None]:
    """The proxy the environment asks for ``url`` (HTTP(S)_PROXY, NO_PROXY, netrc), if any."""
    try:
        return get_env_proxy_for_url(URL(url))
    except LookupError:
        return None, None


async def read_capped(
    response: aiohttp.ClientResponse, *, max_tokens: int | None, cap: int | None = None
) -> bytes:
    """The body, read in chunks up to the answer's cap (graphs/model/answer_shape.py); past it the rest
    is only counted and hashed, never held, and an :class:`OversizedAnswer` keeps the first ``cap`` bytes."""
    cap = cap or answer_cap(max_tokens)
    kept = bytearray()
    digest: Any = None
    size = 0
    async for chunk in response.content.iter_chunked(64 * 1024):
        size += len(chunk)
        if digest is None and size <= cap:
            kept += chunk
            continue
        if digest is None:
            digest = hashlib.sha256(kept)
            room = cap - len(kept)
            kept += chunk[:room]
        digest.update(chunk)
    if digest is None:
        return bytes(kept)
    text = kept.decode("utf-8", "ignore")
    raise oversized(size=size, sha256=digest.hexdigest(), cap=cap, max_tokens=max_tokens, kept=text)


CONNECT_TIMEOUT_S = 30.0  # a TCP connection takes milliseconds; a host that drops packets, forever


def connect_timeout(timeout: float) -> float:
    """How long a call waits for the connection itself: at most 30 s and 4/5 of the call's timeout,
    so a host that never accepts (a firewall) is told from a server that accepted and went quiet."""
    return min(CONNECT_TIMEOUT_S, 0.8 * timeout)


class ChatCompletionsClient:
    """``POST {base_url}/chat/completions`` on one event loop, connections kept alive and pooled.

    Build it inside the loop that will use it: an aiohttp session belongs to one loop.
    """

    def __init__(
        self,
        *,
        base_url: str | None,
        api_key: str,
        timeout: float,
        headers: dict[str, str] | None = None,
        key_hint: str = "the API key",
    ) -> None:
        self.url = (base_url or OPENAI_BASE_URL).rstrip("/") + "/chat/completions"
        self.timeout = timeout
        self._hints = {**_HINTS, 401: f"check {key_hint}"}
        # HTTPS_PROXY / NO_PROXY are honoured as httpx and the SDK do, but read once here:
        # aiohttp's trust_env reads them in a worker thread on every request.
        self._proxy, self._proxy_auth = _env_proxy(self.url)
        self._session = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=0, ttl_dns_cache=300),  # the runner bounds concurrency
            timeout=aiohttp.ClientTimeout(total=timeout),
            headers={"Authorization": f"Bearer {api_key}", **(headers or {})},
            raise_for_status=False,
        )

    async def create(self, body: dict[str, Any], *, timeout: float | None = None) -> dict[str, Any]:
        """One chat completion as the server's JSON; raises on status, transport or body faults.

        ``timeout`` overrides the client's for this call (a reasoning model thinks for minutes).
        """
        return json_object(await self.post(body, timeout=timeout))

    async def post(self, body: dict[str, Any], *, timeout: float | None = None) -> bytes:
        """The body of a 2xx answer, read up to the answer's cap; raises on status or transport faults."""
        limit = timeout or self.timeout
        connect = connect_timeout(limit)
        try:
            async with self._session.post(
                self.url,
                json=body,
                proxy=self._proxy,
                proxy_auth=self._proxy_auth,
                timeout=aiohttp.ClientTimeout(total=limit, sock_connect=connect),
            ) as response:
                if response.status < 400:
                    payload = await read_capped(response, max_tokens=body_budget(body))
                else:  # an error's body: its message is wanted, and no more of it than an answer's
                    try:
                        payload = await read_capped(response, max_tokens=None, cap=CAP_BASE_BYTES)
                    except OversizedAnswer as exc:
                        payload = (exc.raw or "").encode()
                    headers = {k.lower(): v for k, v in response.headers.items()}
                    message = server_message(response.status, response.reason, payload)
                    if hint := self._hints.get(response.status):
                        message = f"{message} ({hint})"
                    raise status_error(response.status, message, headers)
        except aiohttp.ConnectionTimeoutError as exc:  # no connection: not a server that went quiet
            raise ConnectionFailed(
                f"no connection within {connect:g} s (a firewall dropping packets, a wrong host or port?)"
            ) from exc
        except TimeoutError as exc:  # aiohttp's own timeout errors are TimeoutErrors too
            raise RequestTimeout(f"no answer within {limit:g} s") from exc
        except aiohttp.ClientConnectionError as exc:
            raise ConnectionFailed(f"{type(exc).__name__}: {exc}") from exc
        except aiohttp.ClientPayloadError as exc:
            raise TransportError(f"{type(exc).__name__}: {exc}") from exc
        return payload

    async def complete(self, body: dict[str, Any], *, timeout: float | None = None) -> Answer:
        """One chat completion as an :class:`Answer` (the transport interface, graphs/model/providers);
        a body that is not one keeps the body as it came on its error (the answer was paid for)."""
        payload = await self.post(body, timeout=timeout)
        raw = payload.decode("utf-8", "replace")
        return answer_from_json(json_object(payload), max_tokens=body_budget(body), raw=raw)

    async def aclose(self) -> None:
        if not self._session.closed:
            await self._session.close()
