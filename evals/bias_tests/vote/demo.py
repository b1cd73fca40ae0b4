"""The plain vote's table under `demo`: each persona's simulated vote against the real one, per draft."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.table import Table

from nationbias.stores.domain import EMBEDDED_NOTICE

if TYPE_CHECKING:
    import pandas as pd


def vote_demo_table(run_id: str, samples: pd.DataFrame) -> Table:
    """Vote per persona against the real vote, one line per draft (the first repeat)."""
    frame = samples[samples["repeat"] == 0]
    table = Table("draft", "persona", "simulated vote", "real vote", title=f"{run_id} ({EMBEDDED_NOTICE})")
    for record in frame.sort_values(["item", "persona"]).to_dict(orient="records"):
        parsed, extra = record["parsed"], record["extra"] or {}
        vote = (
            parsed["vote"]
            if isinstance(parsed, dict)
            else f"[red]{record['status']}: {record['parse_error']}"
        )
        table.add_row(str(record["item"]), str(record["persona"]), str(vote), str(extra.get("truth")))
    return table
