"""The report's tokens and cost per run: what the answers took, and what the run paid.

Tokens are summed over the stored samples (cached answers included: they took those tokens once).
``cost at table price`` prices them with the price table in force when the report is written
(stores/config/prices.py); ``spent`` is what the run's calls that left were charged as they ran (cached
calls are free), as stored with the run (graphs/model/cost/meter.py), for runs made since it was recorded.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

COLUMNS = [
    "run_id", "model", "samples", "model_calls", "prompt_tokens", "completion_tokens",
    "cost_at_table_price", "spent",
]  # fmt: skip


def _usd(value: float | None) -> str:
    return "unknown" if value is None else f"${value:.4f}"


def _total(samples: pd.DataFrame, column: str) -> int:
    return int(pd.to_numeric(samples[column], errors="coerce").fillna(0).sum()) if column in samples else 0


def cost_table(runs: Sequence[Any]) -> pd.DataFrame:
    """One row per run (``nationbias.evals.report.context.Run``): its calls, tokens, cost and spend."""
    from nationbias.stores.config.prices import price_book

    book = price_book()
    rows = []
    for run in runs:
        prompt, completion = _total(run.samples, "prompt_tokens"), _total(run.samples, "completion_tokens")
        price = book.price(run.model)
        spent = (run.config.get("cost") or {}).get("usd", "not recorded")
        rows.append(
            {
                "run_id": run.run_id,
                "model": run.model,
                "samples": len(run.samples),
                "model_calls": _total(run.samples, "model_calls"),
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "cost_at_table_price": _usd(None if price is None else price.cost(prompt, completion)),
                "spent": spent if isinstance(spent, str) else _usd(spent),
            }
        )
    return pd.DataFrame(rows, columns=COLUMNS)
