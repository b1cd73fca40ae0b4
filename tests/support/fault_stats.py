"""Thread-safe request counters of the fault server, read by tests from another thread.

Only counts are kept: never a header value, never a request body.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class Outcome(StrEnum):
    """What the server did with one chat request (the keys of ``by_outcome``)."""

    OK = "ok"
    EMPTY = "empty"
    RATE_LIMITED = "429"
    ERROR_500 = "500"
    UNAVAILABLE_503 = "503"
    FAIL_FIRST = "fail_first"  # a 503 from ``fail_first_n_per_prompt``
    TIMEOUT = "timeout"
    MALFORMED_JSON = "malformed_json"
    TRUNCATED = "truncated"
    BAD_REQUEST = "bad_request"


@dataclass
class _PromptCounts:
    total: int = 0
    by_outcome: Counter[str] = field(default_factory=Counter)


class FaultStats:
    """Counts chat requests in total, per prompt key and by outcome, plus how many carried a key."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.reset()

    def reset(self) -> None:
        """Forget everything: the fault sequence and ``fail_first_n_per_prompt`` start over."""
        with self._lock:
            self._total = 0
            self._saw_auth = 0
            self._by_outcome: Counter[str] = Counter()
            self._prompts: dict[str, _PromptCounts] = {}

    def admit(self, key: str, *, saw_auth: bool, decide: Callable[[int, int], Outcome]) -> Outcome:
        """Decide and record one request's outcome atomically.

        ``decide(request_index, earlier_requests_for_this_prompt)`` runs under the lock, so
        concurrent requests each see a distinct index and a consistent per-prompt count.
        """
        with self._lock:
            prompt = self._prompts.setdefault(key, _PromptCounts())
            outcome = decide(self._total, prompt.total)
            self._total += 1
            self._saw_auth += saw_auth
            self._by_outcome[outcome.value] += 1
            prompt.total += 1
            prompt.by_outcome[outcome.value] += 1
            return outcome

    def snapshot(self) -> dict[str, Any]:
        """A JSON-ready copy: total, saw_auth, by_outcome and prompts[key]{total, by_outcome}."""
        with self._lock:
            return {
                "total": self._total,
                "saw_auth": self._saw_auth,
                "by_outcome": dict(self._by_outcome),
                "prompts": {
                    key: {"total": p.total, "by_outcome": dict(p.by_outcome)}
                    for key, p in self._prompts.items()
                },
            }

    def count(self, *, key: str | None = None, outcome: Outcome | str | None = None) -> int:
        """Requests overall or for one prompt key, optionally only those with ``outcome``."""
        with self._lock:
            if key is None:
                return self._total if outcome is None else self._by_outcome[str(outcome)]
            prompt = self._prompts.get(key)
            if prompt is None:
                return 0
            return prompt.total if outcome is None else prompt.by_outcome[str(outcome)]

    @property
    def saw_auth(self) -> int:
        """How many chat requests carried a non-empty Authorization header (its value is not kept)."""
        with self._lock:
            return self._saw_auth
