"""Hand-built sample rows, shaped like ``RunStore.samples_frame``, for table and agreement tests."""

from __future__ import annotations

from typing import Any

import pandas as pd


def sample(
    test: str,
    item: str,
    repeat: int,
    parsed: dict[str, Any] | None,
    extra: dict[str, Any] | None,
    *,
    persona: str = "",
    pair_order: str = "",
    status: str | None = None,
) -> dict[str, Any]:
    """One sample row; status defaults to ok with ``parsed`` and invalid without."""
    return {
        "run_id": "r",
        "sample_id": f"{test}|{item}|{persona}|{pair_order}|r{repeat}",
        "test": test,
        "item": item,
        "persona": persona,
        "pair_order": pair_order,
        "repeat": repeat,
        "status": status or ("ok" if parsed is not None else "invalid"),
        "messages": [],
        "raw": None,
        "parsed": parsed,
        "parse_error": None,
        "error": "boom" if status == "error" else None,
        "latency_s": 0.1,
        "prompt_tokens": 1,
        "completion_tokens": 1,
        "model_calls": 1,
        "extra": extra,
        "created": 1.7e9,
    }


def frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    return pd.DataFrame(rows)
