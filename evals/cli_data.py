"""`nationbias data …`: validate, inspect, augment and import the corpus."""

from __future__ import annotations

import typer

data_app = typer.Typer(help="Validate, inspect, augment and import the UNSC corpus.", no_args_is_help=True)
