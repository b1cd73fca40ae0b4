"""One retry policy for every model call, on tenacity: whether to retry is the error's type.

A transport raises :class:`Retryable` (429, 408, 5xx, a failed or broken connection, a timeout, a
broken or empty answer; with the server's ``Retry-After``) or :class:`Fatal` (bad request, auth, not
found). An SDK's own errors are mapped to these once, in :func:`classify`, never guessed from names.
"""

from __future__ import annotations

import asyncio
import json
import random
import sys
from dataclasses import dataclass
from typing import Any

from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt


class CallError(RuntimeError):
    """A failed model call; ``retry_after`` is the server's ask, in seconds."""

    status_code: int | None = None
    retry_after: float | None = None
    raw: str | None = None  # the paid answer's body as it came (capped): kept on the sample's row


class Retryable(CallError):
    """Worth another attempt."""


class Fatal(CallError):
    """Asking again gets the same answer (a bad request, a wrong key or model name)."""


class HTTPStatusError(CallError):
    """A non-2xx answer, with the status, the server's message and its headers."""

    def __init__(self, status_code: int, message: str, headers: dict[str, str]) -> None:
        super().__init__(message)
        self.status_code = status_code
        self.headers = headers
        self.retry_after = _seconds(headers.get("retry-after"))


class RetryableStatus(HTTPStatusError, Retryable):
    """429, 408 or 5xx."""


class FatalStatus(HTTPStatusError, Fatal):
    """Any other 4xx."""


class TransportError(Retryable):
    """The connection failed or broke mid-answer."""


class ConnectionFailed(TransportError):
    """No connection to the server, or it dropped the connection before answering."""


class RequestTimeout(TransportError):
    """No complete answer within the client's timeout."""


class BrokenAnswer(TransportError):
    """A 200 whose body is not a chat completion (cut off, not JSON, no choices)."""


class EmptyAnswer(Retryable):
    """The server answered with empty content: retried, never a cached answer."""


def status_error(status: int, message: str, headers: dict[str, str]) -> HTTPStatusError:
    """The typed error for a non-2xx status."""
    kind = RetryableStatus if status in (408, 429) or status >= 500 else FatalStatus
    return kind(status, message, headers)


def _seconds(value: str | None) -> float | None:
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None  # an HTTP date: rare from model APIs; the backoff applies


def classify(exc: BaseException) -> BaseException:
    """The typed error for ``exc``: ours as they are, the openai SDK's (LangChain's) mapped once."""
    if isinstance(exc, CallError):
        return exc
    if isinstance(exc, asyncio.TimeoutError):
        return RequestTimeout(f"no answer in time: {exc}")
    if "openai" not in sys.modules:  # not the SDK's (never loaded): importing it would stall the loop
        if isinstance(exc, json.JSONDecodeError):
            broken = BrokenAnswer(f"{type(exc).__name__}: {exc}")
            broken.__cause__ = exc
            return broken
        return exc
    import openai  # imported by every OpenAI-style provider that raises its errors

    mapped: CallError
    if isinstance(exc, openai.APIStatusError):
        headers = {k.lower(): v for k, v in exc.response.headers.items()}
        mapped = status_error(exc.status_code, str(exc), headers)
    elif isinstance(exc, openai.APITimeoutError):
        mapped = RequestTimeout(str(exc))
    elif isinstance(exc, openai.APIConnectionError):
        mapped = ConnectionFailed(f"{exc}: {exc.__cause__ or ''}".rstrip(": "))
    elif isinstance(exc, openai.APIResponseValidationError | json.JSONDecodeError):
        mapped = BrokenAnswer(f"{type(exc).__name__}: {exc}")
    else:
        return exc  # unknown: not retried
    mapped.__cause__ = exc
    return mapped


def is_retryable(exc: BaseException) -> bool:
    return isinstance(classify(exc), Retryable)


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff with jitter; a server's Retry-After wins when it asks for longer."""

    max_attempts: int = 4
    initial_delay: float = 0.5
    factor: float = 2.0
    max_delay: float = 30.0

    def delay(self, attempt: int, retry_after: float | None) -> float:
        backoff = min(self.max_delay, self.initial_delay * self.factor ** (attempt - 1))
        backoff *= 0.8 + 0.4 * random.random()
        return max(backoff, min(retry_after or 0.0, self.max_delay))

    def options(self, *, done: int = 0) -> dict[str, Any]:
        """tenacity's arguments for this policy (stop, wait, what to retry; the last error re-raised),
        after ``done`` attempts made without tenacity (graphs/model/client.py's first try skips its ~80
        µs)."""

        def wait(state: RetryCallState) -> float:
            exc = state.outcome.exception() if state.outcome else None
            return self.delay(state.attempt_number + done, getattr(exc, "retry_after", None))

        return {
            "stop": stop_after_attempt(self.max_attempts - done),
            "wait": wait,
            "retry": retry_if_exception(is_retryable),
            "reraise": True,
        }

    def retrying(self, *, done: int = 0, **overrides: Any) -> AsyncRetrying:
        """A tenacity controller for one async call."""
        return AsyncRetrying(**{**self.options(done=done), **overrides})
