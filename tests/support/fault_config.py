"""What the fault server does: latency and seeded fault rates, mutable between test phases."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from tests.support.fault_stats import Outcome


@dataclass(kw_only=True)
class FaultConfig:
    """What the server does; mutable at runtime (read afresh by every request).

    The ``rate_*`` fields are probabilities drawn from one seeded uniform per request index,
    checked in field order; they must sum to at most 1.
    """

    latency_s: float = 0.0
    rate_429: float = 0.0
    rate_500: float = 0.0
    rate_503: float = 0.0
    rate_timeout: float = 0.0
    rate_malformed_json: float = 0.0
    rate_truncated: float = 0.0
    rate_empty: float = 0.0
    retry_after: str = "0.1"  # the Retry-After header value sent with each 429
    hang_s: float = 5.0  # how long a "timeout" request hangs; set it above the client timeout
    timeout_then: Literal["answer", "drop"] = "answer"  # after hanging: answer, or cut the connection
    seed: int = 0
    fail_first_n_per_prompt: int = 0  # the first N requests of each distinct prompt get a 503
    model: str = "fault-model"
    responder: Callable[[dict[str, Any]], str] | None = None  # scripts the content from the body
    # rewrites the whole completion from the body (finish_reason, usage): a reasoning model's shape
    finisher: Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]] | None = None

    def __post_init__(self) -> None:
        self.validate()

    def fault_rates(self) -> list[tuple[Outcome, float]]:
        return [
            (Outcome.RATE_LIMITED, self.rate_429),
            (Outcome.ERROR_500, self.rate_500),
            (Outcome.UNAVAILABLE_503, self.rate_503),
            (Outcome.TIMEOUT, self.rate_timeout),
            (Outcome.MALFORMED_JSON, self.rate_malformed_json),
            (Outcome.TRUNCATED, self.rate_truncated),
            (Outcome.EMPTY, self.rate_empty),
        ]

    def validate(self) -> None:
        """Reject impossible settings early rather than serving a silently different mix."""
        rates = [rate for _, rate in self.fault_rates()]
        if any(not 0.0 <= rate <= 1.0 for rate in rates) or sum(rates) > 1.0 + 1e-9:
            raise ValueError(f"fault rates must be in [0, 1] and sum to <= 1, got {rates}")
        if self.latency_s < 0 or self.hang_s < 0 or self.fail_first_n_per_prompt < 0:
            raise ValueError("latency_s, hang_s and fail_first_n_per_prompt must be >= 0")
        if self.timeout_then not in ("answer", "drop"):
            raise ValueError(f"timeout_then must be 'answer' or 'drop', got {self.timeout_then!r}")

    def decide(self, index: int, earlier_for_prompt: int) -> Outcome:
        """The outcome of request number ``index``: a pure function of the seed and the counters."""
        if earlier_for_prompt < self.fail_first_n_per_prompt:
            return Outcome.FAIL_FIRST
        draw = random.Random(f"{self.seed}:{index}").random()
        for outcome, rate in self.fault_rates():
            if draw < rate:
                return outcome
            draw -= rate
        return Outcome.OK
