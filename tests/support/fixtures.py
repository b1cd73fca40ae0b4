"""Pytest fixtures for the fault server; use via ``pytest_plugins`` or import into a conftest."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.batch_server import BatchConfig, BatchServer
from tests.support.embedded_runs import embedded_directqa_run
from tests.support.fault_server import FaultConfig, FaultServer

FaultServerFactory = Callable[..., FaultServer]


@pytest.fixture
def fault_server() -> Iterator[FaultServerFactory]:
    """``fault_server(**FaultConfig kwargs) -> FaultServer``, started now and stopped after the test.

    A factory rather than a server so each test states its faults where it uses them.
    """
    started: list[FaultServer] = []

    def start(**config: Any) -> FaultServer:
        server = FaultServer(config=FaultConfig(**config)).start()
        started.append(server)
        return server

    yield start
    for server in reversed(started):
        server.stop()


@pytest.fixture
def batch_server() -> Iterator[Callable[..., BatchServer]]:
    """``batch_server(delay_s=…, fail_once=…)``: a Files + Batches server (batch_server.py), stopped after."""
    started: list[BatchServer] = []

    def start(**config: Any) -> BatchServer:
        server = BatchServer(BatchConfig(**config)).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture(scope="session")
def embedded_directqa(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The NATIONBIAS_HOME of one DirectQA run on the embedded model (run ``dq``, the 20 questions of the
    general family): the tests that ask those questions start from its stores (one xdist worker runs
    them all: tests/support/costs.py)."""
    return embedded_directqa_run(tmp_path_factory.mktemp("embedded-directqa") / "nbhome")
