"""A circuit breaker per model endpoint: stop a run soon when the server cannot be reached or never answers.

Without it a closed port or a wrong ``--base-url`` made every sample retry with backoff and
fail, and the run "completed" with every sample an error; an endpoint that accepts connections
and never answers (a load balancer with no healthy backend) kept a run silent for hours. The
breaker trips (and the runner stops the run, recording nothing for the samples it catches) when:

* nothing has connected yet, and ``trip_after`` connection attempts in a row failed, or one call
  used up its retries on connection failures, or ``startup_s`` passed since the first failure;
* nothing has ever answered, and calls still time out a whole timeout (``--timeout``) after the
  first one did: the retries of the first calls timed out too, about two timeouts into the run;
* the server did answer earlier, but for ``outage_s`` nothing but failed connections and timeouts
  came back (a restart shorter than that is ridden out by the retries, and the run goes on).

An HTTP error means the server is there; a timeout counts only as said above.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from urllib.parse import urlsplit, urlunsplit

from nationbias.stores.state.faults import RunFault

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


def is_timeout(exc: BaseException) -> bool:
    """No answer within the call's timeout (the connection may have been made)."""
    from nationbias.graphs.model.retry import RequestTimeout

    return isinstance(exc, RequestTimeout)


def is_connection_failure(exc: BaseException) -> bool:
    """No connection was made: a ``ConnectionFailed`` (an SDK's own errors are mapped to it by
    graphs/retry.classify; a timeout is not one: a slow server is still a server)."""
    from nationbias.graphs.model.retry import ConnectionFailed

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
    silent_since: float | None = None  # the first timeout while nothing had ever answered
    timeouts: int = 0
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
        self.silent_since = None
        self.timeouts = 0

    def failure(self, exc: BaseException, *, gave_up: bool = False, timeout_s: float | None = None) -> None:
        """Count a failed connection or a timeout; ``gave_up`` when it was the call's last attempt,
        ``timeout_s`` the call's timeout."""
        if is_timeout(exc):
            self._timed_out(exc, timeout_s)
        if not is_connection_failure(exc) and not (is_timeout(exc) and self.connected):
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
            what = "connection attempts" if is_connection_failure(exc) else "calls (failed or timed out)"
            self.tripped = EndpointUnreachable(
                f"cannot reach the model endpoint {display_url(self.url)}: {self.consecutive} {what} "
                f"in a row failed {after} ({cause_of(exc)}); stopped issuing calls, everything stored "
                "so far is kept (start the server or fix --base-url, then rerun with the same --run-id)"
            )

    def _timed_out(self, exc: BaseException, timeout_s: float | None) -> None:
        """Nothing ever answered: trip once calls still time out a whole timeout after the first did."""
        if self.connected:
            return
        now = time.monotonic()
        self.timeouts += 1
        self.silent_since = self.silent_since or now
        limit = timeout_s if timeout_s is not None else 0.0
        if now - self.silent_since >= limit and self.timeouts > 1 and self.tripped is None:
            self.tripped = EndpointUnreachable(
                f"the model endpoint {display_url(self.url)} accepted the connection, never answered "
                f"within {limit:g} s ({self.timeouts} calls timed out, none was ever answered); stopped "
                "issuing calls, everything stored so far is kept. Check that the server behind it is up "
                "and serving this model (a load balancer with no healthy backend, a server still loading "
                "its model, a wrong port), or give a longer --timeout; then rerun with the same --run-id"
            )


def cause_of(exc: BaseException) -> str:
    """The innermost reason (e.g. "Connect call failed ... Connection refused"), on one line."""
    inner: BaseException = exc
    while inner.__cause__ is not None:
        inner = inner.__cause__
    text = str(inner) or type(inner).__name__
    if isinstance(inner, OSError) and inner.errno:  # "Connection refused", as the OS says it
        text = f"{os.strerror(inner.errno)}: {text}"
    return " ".join(text.split())[:200]
