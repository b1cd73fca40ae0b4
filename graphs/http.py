"""The async HTTP client for OpenAI-compatible providers: connections spread over several pools.

httpcore's connection pool checks every connection (``has_expired`` polls each socket) each time
a request enters or leaves it: quadratic in the pool size. With 64 calls in flight that cost
milliseconds of event-loop CPU per request and held a 200 ms-latency server to ~0.3 of the
throughput the concurrency allows (benchmarks/RESULTS.md). Round-robin over a few small pools keeps
each scan short. Each pool is a plain ``httpx2.AsyncHTTPTransport`` (the openai SDK's HTTP
library), so TLS and keep-alive behave as before.
"""

from __future__ import annotations

import itertools
from typing import Any

import httpx2

POOL_SHARDS = 8


class ShardedTransport(httpx2.AsyncBaseTransport):
    """Sends each request through the next of ``shards`` independent connection pools."""

    def __init__(self, shards: int = POOL_SHARDS, **transport_options: Any) -> None:
        if shards < 1:
            raise ValueError(f"shards must be >= 1, got {shards}")
        self.pools = [httpx2.AsyncHTTPTransport(**transport_options) for _ in range(shards)]
        self._next = itertools.cycle(self.pools)

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        return await next(self._next).handle_async_request(request)

    async def aclose(self) -> None:
        for pool in self.pools:
            await pool.aclose()


def openai_async_http_client(shards: int = POOL_SHARDS) -> httpx2.AsyncClient:
    """``openai.DefaultAsyncHttpxClient`` (its timeout, redirects, limits) over sharded pools."""
    import openai
    from openai._constants import DEFAULT_CONNECTION_LIMITS

    limits = httpx2.Limits(
        max_connections=max(1, (DEFAULT_CONNECTION_LIMITS.max_connections or 1000) // shards),
        max_keepalive_connections=max(
            16, (DEFAULT_CONNECTION_LIMITS.max_keepalive_connections or 100) // shards
        ),
        keepalive_expiry=DEFAULT_CONNECTION_LIMITS.keepalive_expiry,
    )
    return openai.DefaultAsyncHttpxClient(transport=ShardedTransport(shards, limits=limits))
