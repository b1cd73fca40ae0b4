"""The breaker and a silent endpoint (graphs/model/breaker.py): calls that time out before anything ever
answered stop the run once a second timeout has passed; after an answer, timeouts count as an
outage, ridden out for ``outage_s`` like refused connections."""

from __future__ import annotations

import time

import pytest

from nationbias.graphs.model.breaker import CircuitBreaker, EndpointUnreachable
from nationbias.graphs.model.retry import ConnectionFailed, RequestTimeout

URL = "http://127.0.0.1:9/v1/chat/completions"
SILENT = RequestTimeout("no answer within 0.05 s")


def test_the_first_round_of_timeouts_does_not_trip_the_retries_timing_out_a_timeout_later_do() -> None:
    breaker = CircuitBreaker(URL)
    for _ in range(8):  # every lane's first call, at about the same time
        breaker.failure(SILENT, timeout_s=0.05)
    breaker.check()  # a server slow to answer its first calls gets their retries
    time.sleep(0.06)
    breaker.failure(SILENT, timeout_s=0.05)  # a retry, a whole timeout later: still nothing
    with pytest.raises(EndpointUnreachable) as caught:
        breaker.check()
    message = str(caught.value)
    assert f"the model endpoint {URL} accepted the connection, never answered within 0.05 s" in message
    assert "9 calls timed out" in message and "--timeout" in message and "--run-id" in message


def test_an_answer_between_timeouts_keeps_the_run_going() -> None:
    breaker = CircuitBreaker(URL)
    breaker.failure(SILENT, timeout_s=0.01)
    breaker.success()  # a cold server answered at last
    time.sleep(0.02)
    for _ in range(5):
        breaker.failure(SILENT, timeout_s=0.01)
    breaker.check()  # one slow call among answers is not an outage


def test_after_an_answer_timeouts_count_as_an_outage_bounded_by_outage_s() -> None:
    breaker = CircuitBreaker(URL, trip_after=3, outage_s=0.05)
    breaker.success()
    for _ in range(3):
        breaker.failure(SILENT, timeout_s=0.01)
    breaker.check()  # not yet outage_s long: ridden out
    time.sleep(0.06)
    breaker.failure(SILENT, timeout_s=0.01)
    with pytest.raises(EndpointUnreachable, match="after answering earlier"):
        breaker.check()


def test_a_mix_of_refused_and_silent_after_an_answer_is_one_outage() -> None:
    breaker = CircuitBreaker(URL, trip_after=2, outage_s=0.0)
    breaker.success()
    breaker.failure(ConnectionFailed("refused"))
    breaker.failure(SILENT, timeout_s=0.01)
    with pytest.raises(EndpointUnreachable):
        breaker.check()
