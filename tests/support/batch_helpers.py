"""Shared by the batch-mode tests: rows compared without timings (the server: fixtures.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.reliability import rows

MODEL = "openai-compatible:fault-model"


def comparable(home: Path, run_id: str) -> list[dict[str, Any]]:
    """The run's rows without what differs between an online and a batch run (timings, cache hits)."""
    out = []
    for row in rows(home, run_id):
        extra = row["extra"] or {}
        fields = ("node", "precedent", "messages", "raw")
        calls = [tuple(c.get(k) for k in fields) for c in extra.get("calls", [])]
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
