"""The circuit breaker's rule (graphs/model/breaker.py): quick to give up on an endpoint that never
answered, patient with one that did (a restart is ridden out), blind to HTTP errors and to one
round of timeouts (a silent endpoint: test_breaker_silent.py)."""

from __future__ import annotations

import pytest

from nationbias.graphs.model.breaker import CircuitBreaker, EndpointUnreachable, display_url
from nationbias.graphs.model.retry import ConnectionFailed, RequestTimeout

REFUSED = ConnectionFailed("ClientConnectorError: Cannot connect to host 127.0.0.1:9")


def test_never_answered_trips_after_the_consecutive_failures() -> None:
    breaker = CircuitBreaker("http://127.0.0.1:9/v1/chat/completions", trip_after=3, startup_s=1e9)
    for _ in range(2):
        breaker.failure(REFUSED)
        breaker.check()
    breaker.failure(REFUSED)
    with pytest.raises(EndpointUnreachable, match=r"http://127\.0\.0\.1:9/v1/chat/completions: 3 connection"):
        breaker.check()


def test_never_answered_trips_when_a_call_gives_up() -> None:
    breaker = CircuitBreaker("http://h/v1", trip_after=100, startup_s=1e9)
    breaker.failure(REFUSED, gave_up=True)
    with pytest.raises(EndpointUnreachable):
        breaker.check()


def test_after_an_answer_an_outage_shorter_than_outage_s_does_not_trip() -> None:
    breaker = CircuitBreaker("http://h/v1", trip_after=3, outage_s=1e9)
    breaker.success()
    for _ in range(50):
        breaker.failure(REFUSED, gave_up=True)
    breaker.check()  # the server may come back: the retries go on
    breaker.success()
    assert breaker.consecutive == 0


def test_after_an_answer_a_long_outage_trips() -> None:
    breaker = CircuitBreaker("http://h/v1", trip_after=3, outage_s=0.0)
    breaker.success()
    for _ in range(3):
        breaker.failure(REFUSED)
    with pytest.raises(EndpointUnreachable, match="after answering earlier"):
        breaker.check()


def test_timeouts_and_other_errors_are_not_connection_failures() -> None:
    breaker = CircuitBreaker("http://h/v1", trip_after=1, startup_s=0.0)
    breaker.failure(RequestTimeout("no answer within 1 s"), gave_up=True)
    breaker.failure(ValueError("bad body"), gave_up=True)
    breaker.check()


def test_the_url_shown_carries_no_credentials() -> None:
    assert (
        display_url("https://user:sk-secret@example.org:8443/v1?key=abc#x") == "https://example.org:8443/v1"
    )
