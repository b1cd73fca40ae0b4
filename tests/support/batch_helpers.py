"""Shared by the batch-mode tests: a batch server fixture and rows compared without timings."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.batch_server import BatchConfig, BatchServer
from tests.support.reliability import rows

MODEL = "openai-compatible:fault-model"
BatchServerFactory = Callable[..., BatchServer]


@pytest.fixture
def batch_server() -> Iterator[BatchServerFactory]:
    """``batch_server(delay_s=…, fail_once=…)``: a started batch server, stopped after the test."""
    started: list[BatchServer] = []

    def start(**config: Any) -> BatchServer:
        server = BatchServer(BatchConfig(**config)).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


def comparable(home: Path, run_id: str) -> list[dict[str, Any]]:
    """The run's rows without what differs between an online and a batch run (timings, cache hits)."""
    out = []
    for row in rows(home, run_id):
        extra = row["extra"] or {}
        calls = [(c.get("node"), c.get("precedent"), c.get("messages"), c.get("raw")) for c in extra.get("calls", [])]
        keep = ("sample_id", "status", "messages", "raw", "parsed", "parse_error", "error", "model_calls")
        out.append(
            {
                **{k: row[k] for k in keep},
                "tokens": (row["prompt_tokens"], row["completion_tokens"]),
                "extra": {k: v for k, v in extra.items() if k not in ("cached", "calls", "latency_s")},
                "calls": calls,
            }
        )
    return out
