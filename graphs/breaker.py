"""A circuit breaker per model endpoint: stop a run within seconds when the server cannot be reached.

Without it a closed port or a wrong ``--base-url`` made every sample retry with backoff and
fail, and the run "completed" with every sample an error. The breaker trips (and the runner
stops the run, recording nothing for the samples it catches) when:

* nothing has connected yet, and ``trip_after`` connection attempts in a row failed, or one call
  used up its retries on connection failures, or ``startup_s`` passed since the first failure;
* the server did answer earlier, but for ``outage_s`` nothing but connection failures came back
  (a restart shorter than that is ridden out by the retries, and the run goes on).

Only failures to connect count: an HTTP error or a timeout means the server is there.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from urllib.parse import urlsplit, urlunsplit

from stores.faults import RunFault

TRIP_AFTER = 8
STARTUP_S = 5.0
OUTAGE_S = 60.0


class EndpointUnreachable(RunFault):
    """The model endpoint refused every connection: the run stopped; resuming it is safe."""


def display_url(url: str) -> str:
    """``url`` without user info, query or fragment: what may be shown and logged."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def is_connection_failure(exc: BaseException) -> bool:
    """No connection was made: a ``ConnectionFailed`` (an SDK's own errors are mapped to it by
    graphs/retry.classify; a timeout is not one: a slow server is still a server)."""
    from graphs.retry import ConnectionFailed

    return isinstance(exc, ConnectionFailed)


@dataclass
class CircuitBreaker:
    url: str
    trip_after: int = TRIP_AFTER
    startup_s: float = STARTUP_S
    outage_s: float = OUTAGE_S
    connected: bool = False
    consecutive: int = 0
    failing_since: float | None = None
    tripped: EndpointUnreachable | None = field(default=None, repr=False)

    def check(self) -> None:
        """Raise once tripped: no call goes out to an endpoint known to be unreachable."""
        if self.tripped is not None:
            raise self.tripped

    def success(self) -> None:
        """The server answered (any HTTP status): it is reachable."""
        self.connected = True
        self.consecutive = 0
        self.failing_since = None

    def failure(self, exc: BaseException, *, gave_up: bool = False) -> None:
        """Count a failed connection; ``gave_up`` when it was the call's last attempt."""
        if not is_connection_failure(exc):
            return
        now = time.monotonic()
        self.consecutive += 1
        self.failing_since = self.failing_since or now
        failing_for = now - self.failing_since
        if self.connected:
            trip = self.consecutive >= self.trip_after and failing_for >= self.outage_s
        else:
            trip = gave_up or self.consecutive >= self.trip_after or failing_for >= self.startup_s
        if trip and self.tripped is None:
            after = f"after answering earlier, for {failing_for:.0f} s" if self.connected else "so far"
            self.tripped = EndpointUnreachable(
                f"cannot reach the model endpoint {display_url(self.url)}: {self.consecutive} connection "
                f"attempts in a row failed {after} ({_cause(exc)}); stopped issuing calls, everything stored "
                "so far is kept (start the server or fix --base-url, then rerun with the same --run-id)"
            )


def _cause(exc: BaseException) -> str:
    """The innermost reason (e.g. "Connect call failed ... Connection refused"), on one line."""
    inner: BaseException = exc
    while inner.__cause__ is not None:
        inner = inner.__cause__
    text = str(inner) or type(inner).__name__
    if isinstance(inner, OSError) and inner.errno:  # "Connection refused", as the OS says it
        text = f"{os.strerror(inner.errno)}: {text}"
    return " ".join(text.split())[:200]
