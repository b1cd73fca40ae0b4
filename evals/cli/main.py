"""The `nationbias` command line."""

from __future__ import annotations

import io
import sys
from typing import Annotated

import typer
from rich.table import Table

from nationbias.evals.cli.baselines import register as register_baselines
from nationbias.evals.cli.batch import register as register_batch
from nationbias.evals.cli.common import console
from nationbias.evals.cli.data import data_app
from nationbias.evals.cli.run import run_app
from nationbias.evals.cli.runs import cache_app, runs_app
from nationbias.evals.cli.study import register as register_study
from nationbias.evals.cli.table_output import print_table

app = typer.Typer(
    help="nationbias: measure and reduce nation-level bias of LLMs on real UN Security Council records.",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
    pretty_exceptions_short=True,
)


@app.callback()
def _before_any_command() -> None:
    # A terminal that cannot show a character (an ASCII-only stdout: PYTHONIOENCODING=ascii, LC_ALL=C
    # without UTF-8 coercion) gets its escape, not a UnicodeEncodeError after the run is stored.
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper) and stream.errors in ("strict", "surrogateescape"):
            stream.reconfigure(errors="backslashreplace")


app.add_typer(run_app, name="run")
app.add_typer(runs_app, name="runs")
app.add_typer(cache_app, name="cache")
app.add_typer(data_app, name="data")
register_study(app)
register_baselines(app)
register_batch(app, runs_app)  # `batch export|import`, `runs status|resume`


@app.command("models")
def models(
    recheck: Annotated[
        bool, typer.Option("--recheck", help="Probe the embedded model again, not the remembered answer.")
    ] = False,
) -> None:
    """The model providers and whether each is usable on this machine."""
    from nationbias.graphs.model.registry import provider_status

    table = Table("provider", "spec", "usable here", "about")
    for row in provider_status(recheck=recheck):
        table.add_row(row["provider"], row["spec"], row["usable"], row["about"])
    print_table(table, console=console)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
