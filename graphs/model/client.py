"""One model call: cache lookup, the retry policy (graphs/model/retry.py), the provider's transport.

Every node in every graph calls :meth:`ModelClient.call`. Errors are returned (never raised into
the graph) and never cached. Only faults of the whole run are raised: an unreachable endpoint,
a cache that cannot be written. Providers (keys, wire, formats): graphs/model/providers/.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from nationbias.graphs.model.batch.calls import BATCH
from nationbias.graphs.model.breaker import CircuitBreaker
from nationbias.graphs.model.budget import DEFAULT_REASONING_MAX_TOKENS, REASONING_TIMEOUT_S, shows_reasoning
from nationbias.graphs.model.call_result import Answer, CallResult, ask_langchain
from nationbias.graphs.model.cost.meter import (
    guard,  # --max-cost and --dry-run: priced (or answered) before it leaves
)
from nationbias.graphs.model.endpoints import BaseUrls
from nationbias.graphs.model.errors import BackendFatalError
from nationbias.graphs.model.providers import PROVIDERS, ChatTransport, Provider
from nationbias.graphs.model.providers.base import ModelSpec, per_loop
from nationbias.graphs.model.redact import describe
from nationbias.graphs.model.registry import GenerationParams, check_ready, parse_spec
from nationbias.graphs.model.request import call_options, request_body
from nationbias.graphs.model.retry import (
    BrokenAnswer,
    EmptyAnswer,
    Retryable,
    RetryPolicy,
    classify,
    is_retryable,
)
from nationbias.stores.state.cache import ResponseCache, cache_key
from nationbias.stores.state.faults import RunFault
from nationbias.stores.state.sqlite import running_loop

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel


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
    provider: Provider = field(init=False, repr=False)
    _models: dict[int, tuple[object, Any]] = field(default_factory=dict, repr=False)
    _inflight: dict[tuple[int, str], asyncio.Future[CallResult]] = field(default_factory=dict, repr=False)
    _clients: dict[int, tuple[object, Any]] = field(default_factory=dict, repr=False)
    _breaker: CircuitBreaker | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self.provider = PROVIDERS[self.spec.provider]

    @classmethod
    def from_spec(
        cls, spec: str, *, base_url: BaseUrls = None, cache: ResponseCache | None = None, **kwargs: Any
    ) -> ModelClient:
        parsed = parse_spec(spec, base_url=base_url)
        check_ready(parsed)
        return cls(spec=parsed, cache=cache, **kwargs)

    @property
    def label(self) -> str:
        return str(self.spec)

    @property
    def reasons(self) -> bool:
        """By name, or learned from an answer of this run (graphs/model/budget.py)."""
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
        """One LangChain model per event loop: its async HTTP client is bound to the loop it first
        ran on (the loop is kept with it, so a dead loop's reused id is never mistaken for it)."""

        def build() -> BaseChatModel:
            params: dict[str, Any] = {**self.params.as_dict(), "timeout": self.timeout}
            if self.provider.embedded:
                params.pop("timeout")
            return self.provider.chat_model(self.spec, params, policy=None)

        model: BaseChatModel = per_loop(self._models, build)
        return model

    async def _ask_langchain(self, messages: list[dict[str, str]], kwargs: dict[str, Any]) -> Answer:
        return await ask_langchain(self._model(), messages, kwargs)

    async def _ask_direct(self, messages: list[dict[str, str]], kwargs: dict[str, Any]) -> Answer:
        """The OpenAI wire protocol without LangChain's per-call layers (graphs/model/http.py); the
        body is the one a batch line carries (graphs/model/request.py)."""
        body = request_body(self, messages, kwargs)
        return await self._direct_client().complete(body, timeout=self.timeout)

    @property
    def breaker(self) -> CircuitBreaker:
        """One per client, across event loops: a study's runs share what it learnt."""
        if self._breaker is None:
            url = self.spec.base_url or self.spec.provider
            if self.provider.direct:
                url = self._direct_client().url
            self._breaker = CircuitBreaker(url)
        return self._breaker

    def _direct_client(self) -> ChatTransport:
        """One wire client per event loop (its connections belong to that loop)."""

        def build() -> ChatTransport:
            return self.provider.transport(self.spec, timeout=self.params.timeout)

        client: ChatTransport = per_loop(self._clients, build)
        return client

    async def aclose(self) -> None:
        """Close the HTTP connections opened on the running loop; a later call opens new ones.

        Studies call it when they finish, so no socket outlives its event loop.
        """
        loop = running_loop()
        for store in (self._clients, self._models):
            entry = store.pop(id(loop), None)
            if entry is not None and entry[0] is loop:
                await self.provider.close(entry[1])

    def response_format(self, schema: dict[str, Any], name: str) -> dict[str, Any] | None:
        """The provider's way to constrain output to ``schema`` (None when unstructured)."""
        return self.provider.response_format(self.spec, schema, name) if self.structured else None

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
        """Ask once (with retries). Never raises for one call's model or transport faults; raises a
        run fault (``nationbias.stores.state.faults.RunFault``: the endpoint is unreachable, the cache cannot
        be written, the backend is gone, a :class:`BackendFatalError`), which stops the run.

        ``max_tokens`` caps this call below the client's default (short answers stay short even
        when a small model loops); a reasoning model gets its budget instead (:meth:`budget`). The
        first answer that shows reasoning switches the client to that budget, and a call the short
        cap cut off is asked again with it.
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
            try:
                return CallResult.from_cache(hit, max_tokens)
            except BrokenAnswer:  # stored before its shape was checked: asked again, then replaced
                pass
        if (
            batch := BATCH.get()
        ) is not None:  # --batch: the round's batch asks it (graphs/model/batch/calls.py)
            return batch.defer(self, key, messages, fmt, max_tokens)
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
        kwargs = call_options(fmt, max_tokens)
        started = time.perf_counter()
        attempt, last = 1, self.retry.max_attempts
        try:
            try:  # the first try without tenacity: most calls succeed, and its loop costs ~80 µs
                reply = await self._attempt(messages, kwargs, final=last <= 1)
            except RunFault:
                raise
            except Exception as exc:
                if last <= 1 or not is_retryable(exc):
                    raise
                await asyncio.sleep(self.retry.delay(1, getattr(exc, "retry_after", None)))
                async for trying in self.retry.retrying(done=1):  # graphs/model/retry.py: what, how far apart
                    with trying:
                        attempt = trying.retry_state.attempt_number + 1
                        reply = await self._attempt(messages, kwargs, final=attempt >= last)
        except RunFault:
            raise  # the endpoint is unreachable or the backend is gone: the runner ends the run
        except Exception as exc:
            return CallResult(
                raw=getattr(exc, "raw", None),  # a paid answer that was no answer: kept, never cached
                error=describe(exc),
                latency_s=time.perf_counter() - started,
                attempts=attempt,
            )
        result = CallResult.from_answer(reply, time.perf_counter() - started, attempt, max_tokens)
        if self.cache is not None and key is not None:  # a full disk raises: the run stops
            self.cache.put(key, provider=self.spec.provider, model=self.spec.model, response=result.as_dict())
        return result

    async def _attempt(
        self, messages: list[dict[str, str]], kwargs: dict[str, Any], *, final: bool
    ) -> Answer:
        """One try, told to the circuit breaker; a failure is raised as its typed error."""
        breaker = self.breaker
        breaker.check()  # an unreachable endpoint stops the run (graphs/model/breaker.py)
        self.calls_made += 1
        ask = guard(self, messages, kwargs, self._ask_direct if self.provider.direct else self._ask_langchain)
        try:
            async with asyncio.timeout(self.timeout + 5):  # a backstop: no task per call
                reply = await ask(messages, kwargs)
            if not reply.raw.strip() and not reply.reasoning and reply.finish_reason != "length":
                raise EmptyAnswer("the model returned empty content")
        except BackendFatalError:
            raise  # the backend is gone: no retry, no error row
        except Exception as exc:
            error = classify(exc)
            if getattr(error, "status_code", None):
                breaker.success()  # the server answered, if only with an error
            breaker.failure(error, gave_up=final or not isinstance(error, Retryable), timeout_s=self.timeout)
            breaker.check()
            raise error from (None if error is exc else exc)
        breaker.success()
        return reply
