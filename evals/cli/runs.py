"""`nationbias runs …` and `nationbias cache …`: look inside the stores."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from nationbias.evals.cli.common import cli_errors, console
from nationbias.evals.cli.table_output import print_table
from nationbias.graphs.terminal_text import plain
from nationbias.prompts.registry import UNREVIEWED_NOTE
from nationbias.stores.errors import InputError

runs_app = typer.Typer(help="List and export runs from the run store.", no_args_is_help=True)
cache_app = typer.Typer(help="Inspect or clear the response cache.", no_args_is_help=True)


@runs_app.command("list")
@cli_errors
def runs_list() -> None:
    """Every run with its test, model and sample counts."""
    from nationbias.stores.state.runstore import RunStore

    frame = RunStore().runs_frame()
    if frame.empty:
        console.print("no runs yet: try `nationbias demo`")
        return
    table = Table(*frame.columns)
    for row in frame.astype(str).itertuples(index=False):
        table.add_row(*map(plain, row))  # a model's name is the user's text: no markup
    print_table(table, console=console)
    unreviewed = sorted({str(v).rstrip("*") for v in frame["language"] if str(v).endswith("*")})
    if unreviewed:
        console.print(f"*: the {', '.join(unreviewed)} prompts are {UNREVIEWED_NOTE} (--language)")


@runs_app.command("export")
@cli_errors
def runs_export(
    run_id: str,
    fmt: Annotated[str, typer.Option("--format", help="csv or jsonl")] = "csv",
) -> None:
    """One row per sample to stdout."""
    from nationbias.stores.state.runstore import RunStore

    if fmt not in ("csv", "jsonl"):
        raise InputError(f"--format must be csv or jsonl, not {fmt!r}")
    RunStore().export(run_id, fmt)  # type: ignore[arg-type]


@cache_app.command("stats")
@cli_errors
def cache_stats() -> None:
    """Entries and size of the response cache."""
    from nationbias.stores.state.cache import ResponseCache

    stats = ResponseCache().stats()
    if stats.damaged is not None:
        console.print(
            f"{stats.path}: damaged ({stats.damaged}), {stats.size_bytes / 1e6:.2f} MB: its rows cannot be "
            "counted; runs ask again what they cannot read, `nationbias cache clear` starts it afresh",
            highlight=False,
            markup=False,
            soft_wrap=True,
        )
        return
    console.print(plain(f"{stats.path}: {stats.entries} responses, {stats.size_bytes / 1e6:.2f} MB"))
    for model, count in stats.by_model.items():
        console.print(plain(f"  {model}: {count}"), highlight=False)


@cache_app.command("clear")
@cli_errors
def cache_clear() -> None:
    """Delete every cached response."""
    from nationbias.stores.state.cache import ResponseCache

    cache = ResponseCache()
    removed = cache.clear()
    if removed is None:
        console.print(f"{cache.path} was damaged: replaced by an empty cache", highlight=False, markup=False)
        return
    console.print(f"removed {removed} cached responses")
