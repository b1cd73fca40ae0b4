"""Batch mode's seam in the model client: an uncached call is not sent, it joins the round's batch.

While a round runs (``--batch``), :data:`BATCH` holds a :class:`BatchRound`. ``ModelClient._call``
hands it every call the response cache cannot answer: the call is recorded (custom id = the cache
key, body = :func:`~nationbias.graphs.model.request.request_body`, what the direct transport POSTs) and
:class:`Deferred` ends that sample for the current round, with no row written (graphs/study/runner.py). When
the batch is done its answers enter the cache, and the next round replays the graphs from it.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from nationbias.graphs.model.call_result import CallResult
from nationbias.graphs.model.request import call_options, request_body

if TYPE_CHECKING:
    from nationbias.graphs.model.client_view import ClientView

ENDPOINT_PATH = "/v1/chat/completions"  # what every batch line asks (the direct transport's POST)
MAX_ATTEMPTS = 3  # a line that failed this often in batches becomes the sample's error


class Deferred(Exception):
    """The call waits for the current round's batch: the sample is not done yet (no row, not an error)."""


@dataclass(frozen=True)
class Endpoint:
    """Which server and model a batch goes to (a batch file holds one model's requests)."""

    provider: str
    model: str
    base_url: str | None = None

    @property
    def group(self) -> str:
        return f"{self.provider}|{self.model}|{self.base_url or ''}"

    @classmethod
    def from_group(cls, group: str) -> Endpoint:
        provider, model, base_url = group.split("|", 2)
        return cls(provider, model, base_url or None)


@dataclass
class BatchRound:
    """The calls one round could not answer from the cache, by custom id (deduplicated)."""

    failures: dict[str, tuple[int, str]] = field(default_factory=dict)  # custom id -> attempts, reason
    limit: int = MAX_ATTEMPTS
    pending: dict[str, tuple[Endpoint, dict[str, Any]]] = field(default_factory=dict)
    deferred: int = 0  # samples that wait (a sample defers once a round)

    def defer(
        self,
        client: ClientView,
        key: str,
        messages: list[dict[str, str]],
        fmt: dict[str, Any] | None,
        max_tokens: int | None,
    ) -> CallResult:
        """Record the call and raise :class:`Deferred`; past the retry limit, the call's error."""
        attempts, reason = self.failures.get(key, (0, ""))
        if attempts >= self.limit:
            return CallResult(raw=None, error=f"batch: {reason} (failed in {attempts} batches)")
        endpoint = Endpoint(client.spec.provider, client.spec.model, client.spec.base_url)
        self.pending[key] = (endpoint, request_body(client, messages, call_options(fmt, max_tokens)))
        self.deferred += 1
        raise Deferred(key)


def batch_line(custom_id: str, body: dict[str, Any]) -> dict[str, Any]:
    """One line of OpenAI's batch input format: the call's custom id and its request body."""
    return {"custom_id": custom_id, "method": "POST", "url": ENDPOINT_PATH, "body": body}


BATCH: ContextVar[BatchRound | None] = ContextVar("nationbias_batch_round", default=None)
