"""The project's retry policy inside the HTTP clients of LangChain's OpenAI-style models.

``get_chat_model()`` hands users a plain ChatOpenAI/ChatTogether (tools, structured output and
LangGraph work as documented) built with ``max_retries=0``; these httpx transports retry what
graphs/model/retry.py calls retryable (429/408/5xx honouring Retry-After, a failed connection), so a
user's own graph gets the same policy as the studies. The last answer is passed on as it came,
so the SDK raises its usual error (``RateLimitError``…) once the policy gives up.
"""

from __future__ import annotations

from typing import Any

import httpx2 as httpx  # what the openai SDK (and so LangChain) speaks
from tenacity import RetryCallState, Retrying, retry_if_exception_type, retry_if_result

from nationbias.graphs.model.retry import ConnectionFailed, RetryPolicy

POLICY = RetryPolicy()


def _retryable(response: httpx.Response) -> bool:
    return response.status_code in (408, 429) or response.status_code >= 500


def _options(policy: RetryPolicy) -> dict[str, Any]:
    def wait(state: RetryCallState) -> float:
        outcome = state.outcome
        if outcome is None or outcome.failed:
            return policy.delay(state.attempt_number, None)
        value = outcome.result().headers.get("retry-after")
        try:
            retry_after = float(value) if value is not None else None
        except ValueError:
            retry_after = None
        return policy.delay(state.attempt_number, retry_after)

    return {
        **policy.options(),
        "wait": wait,
        "retry": retry_if_exception_type(ConnectionFailed) | retry_if_result(_retryable),
        "retry_error_callback": lambda state: state.outcome.result(),  # the last answer, as it came
    }


class RetryingTransport(httpx.BaseTransport):
    def __init__(self, policy: RetryPolicy = POLICY) -> None:
        self.options = _options(policy)
        self.inner = httpx.HTTPTransport()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        def once() -> httpx.Response:
            try:
                response = self.inner.handle_request(request)
            except httpx.ConnectError as exc:
                raise ConnectionFailed(str(exc)) from exc
            if _retryable(response):
                response.read()  # frees the connection; the body stays readable
            return response

        response: httpx.Response = Retrying(**self.options)(once)
        return response

    def close(self) -> None:
        self.inner.close()


class AsyncRetryingTransport(httpx.AsyncBaseTransport):
    def __init__(self, policy: RetryPolicy = POLICY) -> None:
        self.policy = policy
        self.options = _options(policy)
        self.inner = httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        async def once() -> httpx.Response:
            try:
                response = await self.inner.handle_async_request(request)
            except httpx.ConnectError as exc:
                raise ConnectionFailed(str(exc)) from exc
            if _retryable(response):
                await response.aread()
            return response

        response: httpx.Response = await self.policy.retrying(**self.options)(once)
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


def retrying_clients(policy: RetryPolicy | None) -> dict[str, Any]:
    """``http_client`` and ``http_async_client`` for a LangChain model, both with ``policy`` (None:
    plain clients, for a caller that retries itself: graphs/model/client.py).

    Its own clients, not langchain-openai's process-wide default: pooled connections die with the
    event loop they were opened on, and a model client builds one model per loop.
    """
    import openai

    if policy is None:
        return {
            "http_client": openai.DefaultHttpxClient(),
            "http_async_client": openai.DefaultAsyncHttpxClient(),
        }
    return {
        "http_client": openai.DefaultHttpxClient(transport=RetryingTransport(policy)),
        "http_async_client": openai.DefaultAsyncHttpxClient(transport=AsyncRetryingTransport(policy)),
    }
