"""One model call: cache lookup, retries with backoff that honour Retry-After, and the raw text kept.

Every node in every graph calls :meth:`ModelClient.call`. Errors are returned (never raised
into the graph) and never cached; the reasoning of R1-style models is split from the answer.
Only faults of the whole run are raised: an unreachable endpoint, a cache that cannot be written.
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from graphs.breaker import CircuitBreaker
from graphs.budget import DEFAULT_REASONING_MAX_TOKENS, REASONING_TIMEOUT_S, shows_reasoning
from graphs.http import ChatCompletionsClient, TransportError
from graphs.models import (
    BackendFatalError,
    GenerationParams,
    ModelSpec,
    check_ready,
    get_chat_model,
    openai_params,
    parse_spec,
    provider_key,
)
from stores.cache import ResponseCache, cache_key
from stores.sqlite import running_loop

_THINK = re.compile(r"<think>(.*?)(?:</think>|$)", re.DOTALL | re.IGNORECASE)


_OPENAI_CLIENT_PROVIDERS = ("openai", "openai-compatible", "together")  # built on ChatOpenAI


def _per_loop(store: dict[int, tuple[object, Any]], build: Callable[[], Any]) -> Any:
    """One object per event loop: async HTTP clients die with the loop they were made on.

    The loop is kept beside its object so a reused ``id()`` of a dead loop is never mistaken for it.
    """
    loop = running_loop()
    entry = store.get(id(loop))
    if entry is None or entry[0] is not loop:
        entry = store[id(loop)] = (loop, build())
    return entry[1]


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff; a server's Retry-After wins when it asks for longer."""

    max_attempts: int = 4
    initial_delay: float = 0.5
    factor: float = 2.0
    max_delay: float = 30.0

    def delay(self, attempt: int, retry_after: float | None) -> float:
        backoff = min(self.max_delay, self.initial_delay * self.factor ** (attempt - 1))
        backoff *= 0.8 + 0.4 * random.random()
        return max(backoff, min(retry_after or 0.0, self.max_delay))


@dataclass
class CallResult:
    raw: str | None
    answer: str | None = None  # raw with any <think> block removed
    reasoning: str | None = None
    error: str | None = None
    latency_s: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached: bool = False
    attempts: int = 0
    finish_reason: str | None = None  # "length": the token budget ran out, the answer is cut off
    reasoning_tokens: int = 0
    max_tokens: int | None = None  # the budget this call was sent with (None: the client's default)

    @property
    def truncated(self) -> bool:
        """Cut off by the token budget: invalid (``truncated``), never parsed from the partial text."""
        return self.finish_reason == "length"

    def budget_record(self) -> dict[str, Any]:
        """What a sample row keeps about the token budget: the cap sent, why the answer ended."""
        return {
            "max_tokens": self.max_tokens,
            "finish_reason": self.finish_reason,
            "reasoning_tokens": self.reasoning_tokens,
        }

    def as_dict(self) -> dict[str, Any]:
        return {
            "raw": self.raw,
            "reasoning": self.reasoning,
            "error": self.error,
            "latency_s": round(self.latency_s, 4),
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cached": self.cached,
            "finish_reason": self.finish_reason,
            "reasoning_tokens": self.reasoning_tokens,
            "max_tokens": self.max_tokens,
        }


_UNSUPPORTED_IN_STRICT = {"maxLength", "minLength", "minItems", "maxItems", "uniqueItems"}


def strict_schema(schema: Any) -> Any:
    """Drop the length bounds OpenAI's strict mode rejects (grammar-based servers honour them)."""
    if isinstance(schema, dict):
        return {k: strict_schema(v) for k, v in schema.items() if k not in _UNSUPPORTED_IN_STRICT}
    if isinstance(schema, list):
        return [strict_schema(v) for v in schema]
    return schema


def split_reasoning(text: str, extra_reasoning: str | None = None) -> tuple[str, str | None]:
    """Separate ``<think>…</think>`` (DeepSeek-R1, QwQ) from the answer."""
    parts = [m.group(1).strip() for m in _THINK.finditer(text)]
    answer = _THINK.sub("", text).strip()
    if extra_reasoning:
        parts.insert(0, extra_reasoning)
    return answer, ("\n".join(parts) or None)


def _to_messages(messages: list[dict[str, str]]) -> list[BaseMessage]:
    out: list[BaseMessage] = []
    for message in messages:
        role, content = message["role"], message["content"]
        if role == "system":
            out.append(SystemMessage(content))
        elif role == "assistant":
            out.append(AIMessage(content))
        else:
            out.append(HumanMessage(content))
    return out


def _retry_after(exc: BaseException) -> float | None:
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    value = headers.get("retry-after")
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def _is_retryable(exc: BaseException) -> bool:
    status = getattr(exc, "status_code", None) or getattr(getattr(exc, "response", None), "status_code", None)
    if isinstance(status, int):
        return status == 429 or status == 408 or status >= 500
    if isinstance(exc, TransportError):
        return True
    name = type(exc).__name__
    retryable = ("Timeout", "Connection", "RemoteProtocol", "JSONDecode", "ResponseValidation", "EmptyAnswer")
    return any(tag in name for tag in retryable) or isinstance(exc, asyncio.TimeoutError)


class Answer(NamedTuple):
    raw: str
    reasoning: str | None  # provider-side reasoning text (``reasoning_content``)
    prompt_tokens: int
    completion_tokens: int
    finish_reason: str | None = None
    reasoning_tokens: int = 0


DIRECT_PROVIDERS = ("openai", "openai-compatible")


class ResponseValidationError(RuntimeError):
    """A 200 response without a chat completion in it: a server fault worth a retry."""


class EmptyAnswerError(RuntimeError):
    """The server answered with empty content: a fault worth a retry, never a cached answer."""


_KEY_ENVS = ("OPENAI_API_KEY", "TOGETHER_API_KEY", "NATIONBIAS_API_KEY")
_KEY_PATTERN = re.compile(r"\b(sk|tgp)[-_][A-Za-z0-9_\-*.]{6,}|(?<=Bearer )[^\s'\"]+", re.IGNORECASE)


def redact(text: str) -> str:
    """Hide API keys: the configured ones, and anything shaped like ``sk-…`` or a bearer token."""
    for env in _KEY_ENVS:
        value = os.environ.get(env, "").strip()
        if len(value) >= 4:
            text = text.replace(value, "[redacted]")
    return _KEY_PATTERN.sub("[redacted]", text)


def _describe(exc: BaseException) -> str:
    """One line for the run store: errors are stored and shown, so they never carry a key."""
    status = getattr(exc, "status_code", None)
    text = redact(str(exc)).splitlines()[0][:300] if str(exc) else ""
    return f"{type(exc).__name__}{f' {status}' if status else ''}: {text}"


@dataclass
class ModelClient:
    """A model spec bound to generation params, a cache and a retry policy."""

    spec: ModelSpec
    params: GenerationParams = field(default_factory=GenerationParams)
    cache: ResponseCache | None = None
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    structured: bool = True
    reasoning_max_tokens: int = DEFAULT_REASONING_MAX_TOKENS
    reasoning_seen: bool = False  # an answer showed reasoning: later calls get the reasoning budget
    calls_made: int = 0
    _models: dict[int, tuple[object, Any]] = field(default_factory=dict, repr=False)
    _inflight: dict[tuple[int, str], asyncio.Future[CallResult]] = field(default_factory=dict, repr=False)
    _clients: dict[int, tuple[object, Any]] = field(default_factory=dict, repr=False)
    _breaker: CircuitBreaker | None = field(default=None, repr=False)

    @classmethod
    def from_spec(
        cls, spec: str, *, base_url: str | None = None, cache: ResponseCache | None = None, **kwargs: Any
    ) -> ModelClient:
        parsed = parse_spec(spec, base_url=base_url)
        check_ready(parsed)
        return cls(spec=parsed, cache=cache, **kwargs)

    @property
    def label(self) -> str:
        return str(self.spec)

    @property
    def reasons(self) -> bool:
        """By name, or learned from an answer of this run (graphs/budget.py)."""
        return self.spec.is_reasoning or self.reasoning_seen

    @property
    def timeout(self) -> float:
        """Per call: a reasoning model gets at least REASONING_TIMEOUT_S to think."""
        return max(self.params.timeout, REASONING_TIMEOUT_S) if self.reasons else self.params.timeout

    def budget(self, max_tokens: int | None) -> int | None:
        """The cap this call is sent with: the reasoning budget, or the call's short cap."""
        if self.reasons:
            return self.reasoning_max_tokens
        return None if max_tokens is None else min(max_tokens, self.params.max_tokens)

    def _model(self) -> BaseChatModel:
        # ChatOpenAI's async client is bound to the loop it first ran on: one model per loop. And
        # langchain-openai shares one default httpx client per base URL across the whole process,
        # whose pooled connections die with the first loop: a second asyncio.run (`study`, `demo`,
        # a notebook) failed its first requests with "Event loop is closed". So each loop gets
        # its own HTTP client; the loop is kept with its model so its id cannot be reused.
        def build() -> BaseChatModel:
            params: dict[str, Any] = {**self.params.as_dict(), "timeout": self.timeout}
            if self.spec.provider in _OPENAI_CLIENT_PROVIDERS and running_loop() is not None:
                import openai

                params["http_async_client"] = openai.DefaultAsyncHttpxClient()
            return get_chat_model(
                f"{self.spec.provider}:{self.spec.model}", base_url=self.spec.base_url, **params
            )

        model: BaseChatModel = _per_loop(self._models, build)
        return model

    async def _ask_langchain(self, messages: list[dict[str, str]], kwargs: dict[str, Any]) -> Answer:
        message = await self._model().ainvoke(_to_messages(messages), **kwargs)
        raw = message.content if isinstance(message.content, str) else str(message.content)
        usage = getattr(message, "usage_metadata", None) or {}
        details = usage.get("output_token_details") or {}
        return Answer(
            raw,
            message.additional_kwargs.get("reasoning_content"),
            int(usage.get("input_tokens", 0)),
            int(usage.get("output_tokens", 0)),
            message.response_metadata.get("finish_reason"),
            int(details.get("reasoning") or 0),
        )

    async def _ask_direct(self, messages: list[dict[str, str]], kwargs: dict[str, Any]) -> Answer:
        """The OpenAI wire protocol over aiohttp, without the SDK's or LangChain's per-call layers.

        At 64 calls in flight those layers cost ~2 ms of event-loop CPU per call, which capped
        throughput well below what the concurrency allows (graphs/http.py, benchmarks/).
        """
        params = {k: v for k, v in self.params.as_dict().items() if k != "timeout"}
        body = {
            "model": self.spec.model,
            "messages": messages,
            **openai_params(self.spec, {**params, **kwargs}, reasoning=self.reasons),
        }
        data = await self._direct_client().create(body, timeout=self.timeout)
        try:
            choice = data["choices"][0]
            message = choice["message"]
        except (KeyError, IndexError, TypeError) as exc:
            raise ResponseValidationError(
                f"no choices[0].message in the response: {str(data)[:200]}"
            ) from exc
        usage = data.get("usage") or {}
        details = usage.get("completion_tokens_details") or {}
        return Answer(
            message.get("content") or "",
            message.get("reasoning_content"),
            int(usage.get("prompt_tokens") or 0),
            int(usage.get("completion_tokens") or 0),
            choice.get("finish_reason"),
            int(details.get("reasoning_tokens") or 0),
        )

    @property
    def breaker(self) -> CircuitBreaker:
        """One per client, across event loops: a study's runs share what it learnt."""
        if self._breaker is None:
            url = self.spec.base_url or self.spec.provider
            if self.spec.provider in DIRECT_PROVIDERS:
                url = self._direct_client().url
            self._breaker = CircuitBreaker(url)
        return self._breaker

    def _direct_client(self) -> ChatCompletionsClient:
        """One client per event loop (its connections belong to that loop)."""

        def build() -> ChatCompletionsClient:
            return ChatCompletionsClient(
                provider=self.spec.provider,
                base_url=self.spec.base_url,
                api_key=provider_key(self.spec),
                timeout=self.params.timeout,
            )

        client: ChatCompletionsClient = _per_loop(self._clients, build)
        return client

    async def aclose(self) -> None:
        """Close the HTTP connections opened on the running loop; a later call opens new ones.

        Studies call it when they finish, so no socket outlives its event loop.
        """
        loop = running_loop()
        stores = [self._clients]
        if self.spec.provider in _OPENAI_CLIENT_PROVIDERS:  # the embedded and fake models hold no sockets
            stores.append(self._models)
        for store in stores:
            entry = store.pop(id(loop), None)
            if entry is None or entry[0] is not loop:
                continue
            held = entry[1]  # a ChatCompletionsClient, or a LangChain model holding an httpx client
            http = held if isinstance(held, ChatCompletionsClient) else held.http_async_client
            if http is not None:
                await http.aclose()

    def response_format(self, schema: dict[str, Any], name: str) -> dict[str, Any] | None:
        """The provider's way to constrain output to ``schema``."""
        if not self.structured or (self.spec.provider == "together" and self.spec.is_reasoning):
            return None
        if self.spec.provider == "openai":
            strict = strict_schema(schema)
            return {"type": "json_schema", "json_schema": {"name": name, "schema": strict, "strict": True}}
        return {"type": "json_object", "schema": schema}

    def _key(
        self,
        messages: list[dict[str, str]],
        fmt: dict[str, Any] | None,
        repeat: int,
        max_tokens: int | None = None,
    ) -> str:
        params = {**self.params.as_dict(), "response_format": fmt}
        if max_tokens is not None:
            params["max_tokens"] = max_tokens
        params.pop("timeout")
        return cache_key(
            provider=self.spec.provider,
            model=self.spec.model,
            base_url=self.spec.base_url,
            messages=messages,
            params=params,
            repeat=repeat,
        )

    async def call(
        self,
        messages: list[dict[str, str]],
        *,
        schema: dict[str, Any] | None = None,
        schema_name: str = "answer",
        repeat: int = 0,
        max_tokens: int | None = None,
    ) -> CallResult:
        """Ask once (with retries). Never raises for model or transport faults of one call; raises
        a run fault (``stores.faults.RunFault``) when the endpoint is unreachable, the cache cannot
        be written or the backend itself is gone (the embedded model's process died, a
        :class:`BackendFatalError`), which stops the run (graphs/runner.py).

        ``max_tokens`` caps this call below the client's default (short answers stay short
        even when a small model starts to loop); a reasoning model gets its budget instead
        (:meth:`budget`). The first answer that shows reasoning switches this client to the
        reasoning budget, and a call the short cap cut off is asked again with it.
        """
        fmt = self.response_format(schema, schema_name) if schema else None
        short = not self.reasons
        result = await self._call(messages, fmt, repeat, self.budget(max_tokens))
        if short and result.error is None and shows_reasoning(result):
            self.reasoning_seen = True
        if short and self.reasons and result.truncated:
            result = await self._call(messages, fmt, repeat, self.budget(max_tokens))
        return result

    async def _call(
        self, messages: list[dict[str, str]], fmt: dict[str, Any] | None, repeat: int, max_tokens: int | None
    ) -> CallResult:
        if self.cache is None:  # no key to compute: nothing is looked up or stored
            return await self._request(None, messages, fmt, max_tokens)
        key = self._key(messages, fmt, repeat, max_tokens)
        hit = self.cache.get(key)
        if hit is not None:
            answer, reasoning = split_reasoning(hit["raw"], hit.get("reasoning"))
            return CallResult(
                raw=hit["raw"],
                answer=answer,
                reasoning=reasoning,
                prompt_tokens=hit.get("prompt_tokens", 0),
                completion_tokens=hit.get("completion_tokens", 0),
                cached=True,
                finish_reason=hit.get("finish_reason"),
                reasoning_tokens=hit.get("reasoning_tokens", 0),
                max_tokens=max_tokens,
            )
        return await self._single_flight(key, messages, fmt, max_tokens)

    async def _single_flight(
        self, key: str, messages: list[dict[str, str]], fmt: dict[str, Any] | None, max_tokens: int | None
    ) -> CallResult:
        """With a cache, identical calls in flight at once are asked once: the others wait for it.

        Concurrent samples often share a prompt (a precedent's rehearsal); without this each would
        pay for the same answer. A follower whose leader failed asks itself.
        """
        loop = asyncio.get_running_loop()
        slot = (id(loop), key)
        while (leader := self._inflight.get(slot)) is not None:
            shared = await asyncio.shield(leader)
            if shared.error is None:
                return replace(shared, cached=True, latency_s=0.0, attempts=0)
        future: asyncio.Future[CallResult] = loop.create_future()
        self._inflight[slot] = future
        result: CallResult | None = None
        try:
            result = await self._request(key, messages, fmt, max_tokens)
            return result
        finally:
            if self._inflight.get(slot) is future:
                del self._inflight[slot]
            future.set_result(result or CallResult(raw=None, error="cancelled"))

    async def _request(
        self,
        key: str | None,
        messages: list[dict[str, str]],
        fmt: dict[str, Any] | None,
        max_tokens: int | None,
    ) -> CallResult:
        kwargs: dict[str, Any] = {"response_format": fmt} if fmt else {}
        if max_tokens is not None:
            kwargs["max_tokens"] = max_tokens
        started = time.perf_counter()
        last: BaseException | None = None
        breaker = self.breaker
        for attempt in range(1, self.retry.max_attempts + 1):
            breaker.check()  # an unreachable endpoint stops the run (graphs/breaker.py)
            try:
                self.calls_made += 1
                ask = self._ask_direct if self.spec.provider in DIRECT_PROVIDERS else self._ask_langchain
                async with asyncio.timeout(self.timeout + 5):  # a backstop: no task per call
                    reply = await ask(messages, kwargs)
                if not reply.raw.strip() and not reply.reasoning and reply.finish_reason != "length":
                    raise EmptyAnswerError("the model returned empty content")
                answer, reasoning = split_reasoning(reply.raw, reply.reasoning)
                result = CallResult(
                    raw=reply.raw,
                    answer=answer,
                    reasoning=reasoning,
                    latency_s=time.perf_counter() - started,
                    prompt_tokens=reply.prompt_tokens,
                    completion_tokens=reply.completion_tokens,
                    attempts=attempt,
                    finish_reason=reply.finish_reason,
                    reasoning_tokens=reply.reasoning_tokens,
                    max_tokens=max_tokens,
                )
            except BackendFatalError:
                raise  # the backend is gone: no retry, no error row; the runner ends the run
            except Exception as exc:
                last = exc
                gave_up = attempt == self.retry.max_attempts or not _is_retryable(exc)
                if getattr(exc, "status_code", None):
                    breaker.success()  # the server answered, if only with an error
                breaker.failure(exc, gave_up=gave_up)
                breaker.check()
                if gave_up:
                    break
                await asyncio.sleep(self.retry.delay(attempt, _retry_after(exc)))
                continue
            breaker.success()
            if self.cache is not None and key is not None:  # a full disk raises: the run stops
                self.cache.put(
                    key, provider=self.spec.provider, model=self.spec.model, response=result.as_dict()
                )
            return result
        assert last is not None
        return CallResult(
            raw=None, error=_describe(last), latency_s=time.perf_counter() - started, attempts=attempt
        )
