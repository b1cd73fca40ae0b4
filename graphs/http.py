"""The OpenAI chat-completions wire protocol over aiohttp: the study hot path for ``openai:`` and
``openai-compatible:`` models.

Why not the openai SDK: at 64 calls in flight its request building plus httpx (anyio, h11,
httpcore's pool scans) cost ~2 ms of event-loop CPU per call and held a 200 ms-latency server to
~0.67 of what the concurrency allows; aiohttp's C parser and pool cost a fraction of that
(benchmarks/RESULTS.md). lm-eval-harness's API models take the same road. The SDK and LangChain
remain the public registry (``graphs.models.get_chat_model``) for user graphs.

Errors keep what retry logic and users need: the status, the server's own message, Retry-After.
"""

from __future__ import annotations

import json
import os
from typing import Any

import aiohttp
from aiohttp.helpers import get_env_proxy_for_url
from yarl import URL

OPENAI_BASE_URL = "https://api.openai.com/v1"
_HINTS = {
    401: "check the API key (OPENAI_API_KEY, TOGETHER_API_KEY or NATIONBIAS_API_KEY)",
    403: "the key is not allowed to use this model",
    404: "check the model name and --base-url (it usually ends in /v1)",
}


class HTTPStatusError(RuntimeError):
    """A non-2xx answer; ``status_code`` and ``headers`` drive the retry policy."""

    def __init__(self, status_code: int, message: str, headers: dict[str, str]) -> None:
        hint = _HINTS.get(status_code)
        super().__init__(f"{message}{f' ({hint})' if hint else ''}")
        self.status_code = status_code
        self.headers = headers


class TransportError(RuntimeError):
    """The connection failed or broke mid-answer: always worth a retry."""


class ConnectionFailed(TransportError):
    """No connection to the server, or it dropped the connection before answering."""


class RequestTimeout(TransportError):
    """No complete answer within the client's timeout."""


def _server_message(status: int, reason: str | None, body: bytes) -> str:
    try:
        error = json.loads(body).get("error")
        text = error.get("message") if isinstance(error, dict) else error
    except (ValueError, AttributeError):
        text = None
    text = text if isinstance(text, str) and text else body[:200].decode("utf-8", "replace")
    return f"HTTP {status} {reason or ''}".rstrip() + (f": {text}" if text else "")


def _auth_headers(provider: str) -> dict[str, str]:
    """OpenAI's organisation and project headers, from the same variables the SDK reads."""
    if provider != "openai":
        return {}
    headers = {}
    for env, header in (("OPENAI_ORG_ID", "OpenAI-Organization"), ("OPENAI_PROJECT_ID", "OpenAI-Project")):
        if value := os.environ.get(env, "").strip():
            headers[header] = value
    return headers


def _env_proxy(url: str) -> tuple[URL | None, aiohttp.BasicAuth | None]:
    """The proxy the environment asks for ``url`` (HTTP(S)_PROXY, NO_PROXY, netrc), if any."""
    try:
        return get_env_proxy_for_url(URL(url))
    except LookupError:
        return None, None


class ChatCompletionsClient:
    """``POST {base_url}/chat/completions`` on one event loop, connections kept alive and pooled.

    Build it inside the loop that will use it: an aiohttp session belongs to one loop.
    """

    def __init__(self, *, provider: str, base_url: str | None, api_key: str, timeout: float) -> None:
        root = base_url or os.environ.get("OPENAI_BASE_URL", "").strip() or OPENAI_BASE_URL
        self.url = root.rstrip("/") + "/chat/completions"
        self.timeout = timeout
        # HTTPS_PROXY / NO_PROXY are honoured as httpx and the SDK do, but read once here:
        # aiohttp's trust_env reads them in a worker thread on every request.
        self._proxy, self._proxy_auth = _env_proxy(self.url)
        self._session = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=0, ttl_dns_cache=300),  # the runner bounds concurrency
            timeout=aiohttp.ClientTimeout(total=timeout),
            headers={"Authorization": f"Bearer {api_key}", **_auth_headers(provider)},
            raise_for_status=False,
        )

    async def create(self, body: dict[str, Any], *, timeout: float | None = None) -> dict[str, Any]:
        """One chat completion as the server's JSON; raises on status, transport or body faults.

        ``timeout`` overrides the client's for this call (a reasoning model thinks for minutes).
        """
        limit = timeout or self.timeout
        try:
            async with self._session.post(
                self.url,
                json=body,
                proxy=self._proxy,
                proxy_auth=self._proxy_auth,
                timeout=aiohttp.ClientTimeout(total=limit),
            ) as response:
                payload = await response.read()
                if response.status >= 400:
                    headers = {k.lower(): v for k, v in response.headers.items()}
                    raise HTTPStatusError(
                        response.status, _server_message(response.status, response.reason, payload), headers
                    )
        except TimeoutError as exc:  # aiohttp's own timeout errors are TimeoutErrors too
            raise RequestTimeout(f"no answer within {limit:g} s") from exc
        except aiohttp.ClientConnectionError as exc:
            raise ConnectionFailed(f"{type(exc).__name__}: {exc}") from exc
        except aiohttp.ClientPayloadError as exc:
            raise TransportError(f"{type(exc).__name__}: {exc}") from exc
        data = json.loads(payload)  # a broken body raises JSONDecodeError: retried
        if not isinstance(data, dict):
            text = payload.decode("utf-8", "replace")
            raise json.JSONDecodeError("the response is not a JSON object", text, 0)
        return data

    async def aclose(self) -> None:
        if not self._session.closed:
            await self._session.close()
