"""Several replicas of one model server (``--base-url`` given more than once) behind one transport.

vLLM scales past one GPU server by replicas, each its own OpenAI-compatible endpoint. The pool is a
:class:`~nationbias.graphs.model.providers.base.ChatTransport` like a single wire client
(graphs/model/http.py), so the
model client, its cache, retries and circuit breaker (graphs/model/client.py, graphs/model/breaker.py) are
unchanged:

* a call goes to the endpoint with the fewest calls in flight (ties: round robin);
* a refused connection is asked again at once on another endpoint (nothing reached the server);
  a timeout or a 5xx is raised to the retry policy (graphs/model/retry.py), whose next attempt avoids the
  endpoint that failed it;
* ``drain_after`` failures in a row (refused, timed out, 5xx) drain an endpoint: no new call for
  a cool-down that doubles each time it fails again (up to ``max_cooldown_s``); then one probe
  call at a time, and the first answer brings it back;
* only when every endpoint failed to connect is a :class:`ConnectionFailed` raised, naming them
  all: the client's circuit breaker then stops the run as it does for one unreachable server.

Answers must not depend on the replica: the response-cache key and the run config name the first
URL (``ModelSpec.base_url``), as a run against that server alone does. Health is per pool, and a
pool lives on one event loop (its clients' connections do).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeAlias
from urllib.parse import urlsplit

from nationbias.graphs.model.breaker import cause_of, display_url
from nationbias.graphs.model.providers.base import ModelSpecError
from nationbias.graphs.model.retry import ConnectionFailed, HTTPStatusError, TransportError, classify

if TYPE_CHECKING:
    from nationbias.graphs.model.call_result import Answer
    from nationbias.graphs.model.providers.base import ChatTransport

BaseUrls: TypeAlias = str | Sequence[str] | None  # one URL, several, or "A,B" (NATIONBIAS_BASE_URL)

LOG = logging.getLogger("nationbias.endpoints")  # a drained replica, and its return, on stderr
DRAIN_AFTER = 3
COOLDOWN_S = 10.0
MAX_COOLDOWN_S = 120.0

# The endpoint that failed this task's last call, per pool: the retry of that call goes elsewhere.
_FAILED_LAST: ContextVar[tuple[int, int] | None] = ContextVar("nationbias_failed_endpoint", default=None)


def split_urls(given: BaseUrls, *, source: str = "--base-url") -> tuple[str, ...]:
    """Every URL given, in order: a list, or one string of comma-separated URLs; each checked.

    A malformed URL or one given twice is an :class:`ModelSpecError` naming it and where it came from.
    """
    items = [given] if isinstance(given, str) else list(given or ())
    urls = [part.strip() for item in items for part in str(item).split(",") if part.strip()]
    seen: set[str] = set()
    for index, url in enumerate(urls, 1):
        where = f"{source} (URL {index} of {len(urls)})" if len(urls) > 1 else source
        check_url(url, where=where)
        if url.rstrip("/") in seen:
            raise ModelSpecError(f"{where}: {display_url(url)} is given twice; each replica once")
        seen.add(url.rstrip("/"))
    return tuple(urls)


def check_url(url: str, *, where: str) -> None:
    """``http(s)://HOST[:PORT][/path]``, or an :class:`ModelSpecError` naming ``url``."""
    try:
        parts = urlsplit(url)
        port_ok = parts.port is None or parts.port > 0
    except ValueError:  # a port that is not a number
        parts, port_ok = None, False
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname or not port_ok:
        shown = url if "@" not in url else "<a URL with user info>"
        raise ModelSpecError(f"{where}: malformed base URL {shown!r}: expected http(s)://HOST[:PORT]/v1")
    if "@" in parts.netloc:  # user:secret@host: the URL is stored in the run config and the cache key
        raise ModelSpecError(
            f"{where}: a base URL with user info ({display_url(url)} with USER:PASSWORD@) is refused: "
            "it would be stored in the run config; give the key as NATIONBIAS_API_KEY instead"
        )


@dataclass
class Endpoint:
    """One replica: its wire client, calls in flight, and whether it is drained."""

    client: ChatTransport
    drain_after: int = DRAIN_AFTER
    cooldown_s: float = COOLDOWN_S
    max_cooldown_s: float = MAX_COOLDOWN_S
    inflight: int = 0
    calls: int = 0
    failures: int = 0  # in a row
    drains: int = 0  # in a row: the cool-down doubles
    drained_until: float | None = None  # monotonic time; None: healthy
    probing: bool = False
    cause: str = ""

    @property
    def url(self) -> str:
        return display_url(self.client.url)

    def available(self, now: float) -> bool:
        """Healthy, or its cool-down is over and no probe is out yet."""
        return self.drained_until is None or (now >= self.drained_until and not self.probing)

    def answered(self) -> None:
        if self.drained_until is not None:
            LOG.warning("endpoint %s answers again: back in the rotation", self.url)
        self.failures = self.drains = 0
        self.drained_until, self.cause = None, ""

    def failed(self, error: BaseException, now: float) -> None:
        self.failures += 1
        self.cause = cause_of(error)
        if self.failures >= self.drain_after:
            self.drains += 1
            pause = min(self.max_cooldown_s, self.cooldown_s * 2 ** (self.drains - 1))
            if self.drained_until is None:
                LOG.warning(
                    "endpoint %s drained after %d failures in a row (%s): the others take its calls, "
                    "it is tried again in %.0f s",
                    *(self.url, self.failures, self.cause, pause),
                )
            self.drained_until = now + pause

    def status(self, now: float) -> str:
        if self.drained_until is None:
            return f"{self.url}: ok, {self.calls} calls"
        wait = max(0.0, self.drained_until - now)
        return f"{self.url}: drained ({self.cause}), next try in {wait:.0f} s, {self.calls} calls"


def counts_against(error: BaseException) -> bool:
    """A failure of the endpoint itself: no connection, a timeout, a broken answer, a 5xx."""
    if isinstance(error, HTTPStatusError):
        return (error.status_code or 0) >= 500
    return isinstance(error, TransportError)


@dataclass
class EndpointPool:
    """A :class:`ChatTransport` over several replicas' wire clients (build it on the loop using it)."""

    endpoints: list[Endpoint]
    url: str = field(init=False)  # every endpoint, for the circuit breaker's message (no user info)
    _next: int = field(default=0, repr=False)

    def __post_init__(self) -> None:
        self.url = ", ".join(e.url for e in self.endpoints)

    @classmethod
    def of(cls, clients: Sequence[ChatTransport], **health: Any) -> EndpointPool:
        return cls([Endpoint(client, **health) for client in clients])

    def status(self) -> list[str]:
        now = time.monotonic()
        return [e.status(now) for e in self.endpoints]

    def pick(self, tried: set[int]) -> int | None:
        """The endpoint for the next try: fewest in flight among the available ones, not the one
        that failed this task's last call if another will do; when all are drained, the one whose
        cool-down ends first (so an outage of every replica looks like one server's outage)."""
        now = time.monotonic()
        n = len(self.endpoints)
        untried = [i for i in range(n) if i not in tried]
        if not untried:
            return None
        ready = [i for i in untried if self.endpoints[i].available(now)]
        failed = _FAILED_LAST.get()
        if failed is not None and failed[0] == id(self):
            ready = [i for i in ready if i != failed[1]] or ready
        if not ready:
            return min(untried, key=lambda i: self.endpoints[i].drained_until or 0.0)
        chosen = min(ready, key=lambda i: (self.endpoints[i].inflight, (i - self._next) % n))
        self._next = (chosen + 1) % n
        return chosen

    async def complete(self, body: dict[str, Any], *, timeout: float | None = None) -> Answer:
        tried: set[int] = set()
        refused: list[str] = []
        while (index := self.pick(tried)) is not None:
            tried.add(index)
            endpoint = self.endpoints[index]
            probe = endpoint.drained_until is not None
            endpoint.probing = endpoint.probing or probe
            endpoint.inflight += 1
            endpoint.calls += 1
            try:
                answer = await endpoint.client.complete(body, timeout=timeout)
            except Exception as exc:
                error = classify(exc)
                _FAILED_LAST.set((id(self), index))
                if counts_against(error):
                    endpoint.failed(error, time.monotonic())
                else:
                    endpoint.answered()  # a 4xx or a 429: the server is there
                if isinstance(error, ConnectionFailed):
                    refused.append(endpoint.cause)
                    continue  # nothing reached the server: another endpoint, at once
                raise
            finally:
                endpoint.inflight -= 1
                endpoint.probing = endpoint.probing and not probe
            endpoint.answered()
            if _FAILED_LAST.get() is not None:
                _FAILED_LAST.set(None)
            return answer
        raise ConnectionFailed(f"none of the {len(self.endpoints)} endpoints connected ({refused[0]})")

    async def aclose(self) -> None:
        for endpoint in self.endpoints:
            await endpoint.client.aclose()
