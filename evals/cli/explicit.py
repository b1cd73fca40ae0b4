"""`nationbias run directqa | association`: the explicit bias tests, answered in free text or JSON."""

from __future__ import annotations

from functools import partial
from typing import Annotated, Any

import typer

from nationbias.evals.bias_tests.association import AssociationOptions
from nationbias.evals.bias_tests.directqa import DirectQAOptions
from nationbias.evals.cli.common import (
    MODELS,
    TEST_RUN,
    cli_errors,
    given,
    print_export,
    run_bias_test,
    shared_options,
)
from nationbias.graphs.labels.framing import DEFAULT_FRAMING
from nationbias.stores.domain import ASSOCIATION, DIRECTQA

PoolOpt = Annotated[
    str | None, typer.Option("--pool", help="Keyword pool CSV (category,keyword); default: the paper's.")
]
FamiliesOpt = Annotated[
    int | None, typer.Option("--limit", help="Only this many families ('general' first; seeded).")
]
FramingOpt = Annotated[
    str,
    typer.Option(
        "--framing",
        help="irresponsible (the paper's question), responsible (its mirror) or both (the framing table).",
    ),
]
KeywordsOpt = Annotated[
    int | None, typer.Option("--limit", help="Only this many keywords (seeded, spread over categories).")
]

# `run directqa` and `run association` through the library; each returns the run id.
run_directqa_command = partial(run_bias_test, DIRECTQA)
run_association_command = partial(run_bias_test, ASSOCIATION)


def register(run_app: typer.Typer) -> None:
    """Mount `run directqa` and `run association` on the `run` group."""
    run_app.command(DIRECTQA)(cli_errors(run_directqa))
    run_app.command(ASSOCIATION)(cli_errors(run_association))


@shared_options(*MODELS, "framing", *TEST_RUN)
def run_directqa(limit: FamiliesOpt = None, framing: FramingOpt = DEFAULT_FRAMING, **options: Any) -> None:
    """DirectQA: which of two permanent members is more irresponsible (general + 10 UNSC functions);
    --framing responsible|both asks which is more responsible too."""
    own = DirectQAOptions(framing=framing)
    print_export(
        run_directqa_command(test_options=own, **given(run_directqa, locals() | options, drop=("framing",)))
    )


@shared_options(*MODELS, "pool", *TEST_RUN)
def run_association(pool: PoolOpt = None, limit: KeywordsOpt = None, **options: Any) -> None:
    """Association Test: rank the P5 by relevance to each keyword; the rationale gives the polarity."""
    own = AssociationOptions(pool=pool)
    print_export(
        run_association_command(
            test_options=own, **given(run_association, locals() | options, drop=("pool",))
        )
    )
