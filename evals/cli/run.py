"""`nationbias run …`: one test for one model."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from nationbias.evals.cli.common import (
    RUN,
    SAMPLE,
    cli_errors,
    cli_hooks,
    given,
    print_export,
    shared_options,
)
from nationbias.evals.cli.explicit import register as register_explicit
from nationbias.evals.cli.explicit import run_association_command, run_directqa_command
from nationbias.evals.cli.plugin import register as register_plugins
from nationbias.graphs.debias_options import DebiasOptions
from nationbias.retrievers.registry import RETRIEVERS
from nationbias.stores.domain import DEBIAS, VOTE

run_app = typer.Typer(help="Run one bias test for one model.", no_args_is_help=True)


# --debias and the retrieval it uses
VOTE_OWN = ("debias", "k", "reflexion", "retriever", "threshold", "recency_halflife")


def run_vote_command(*, debias: bool = False, **options: Any) -> str:
    """`run vote [--debias]`: the plain or debiased vote through the library; returns the run id. The
    retrieval options (``--k`` …) become the debiased vote's one ``DebiasOptions`` here, handed to
    ``arun`` as that object; the plain vote has none of its own."""
    from nationbias.evals.api import arun, sync

    own = {name: options.pop(name) for name in DebiasOptions.defaults() if name in options}
    debiased = DebiasOptions(**own) if debias else None  # a bad --k fails here, one line
    summary = sync(arun(DEBIAS if debias else VOTE, hooks=cli_hooks(), test_options=debiased, **options))
    run_id = summary.run_id
    if debias:
        print_precedent_age(run_id)
    print_targets(options)
    return run_id


def print_targets(options: dict[str, Any]) -> None:
    """Under a dry run's table: which of the Council's items it priced (``--targets``)."""
    from nationbias.evals.cli.common import console
    from nationbias.evals.cli.cost import dry_running
    from nationbias.graphs.study.sampling import TARGET_ITEMS, check_body, check_targets

    if dry_running() and check_body(options.get("body") or "unsc") == "unsc":
        targets = check_targets(options.get("targets") or "failed")
        console.print(f"--targets {targets}: the votes on {TARGET_ITEMS[targets]}", highlight=False)


def print_precedent_age(run_id: str) -> None:
    """One line under a debiased run's summary: how old its precedents are (its run config keeps it)."""
    from nationbias.evals.cli.common import console
    from nationbias.evals.cli.cost import dry_running
    from nationbias.stores.state.runstore import RunStore

    if dry_running():
        return
    ages = RunStore().get_run(run_id).get("precedent_age") or {}
    if ages.get("precedents"):
        halflife = ages.get("recency_halflife")
        preference = f"recency half-life {halflife:g} years" if halflife else "no recency preference"
        console.print(
            f"precedents: {ages['precedents']} rehearsed, median age {ages['median_years']:g} years, "
            f"{ages['over_20_years']} over 20 years ({preference})"
        )


@run_app.command(VOTE)
@cli_errors
@shared_options(
    "model", "base_url", *VOTE_OWN, *SAMPLE, "personas", "body", "years", "targets", "texts", *RUN,
    "reasoning_max_tokens", "judge", "judge_base_url",
)  # fmt: skip
def run_vote(
    debias: Annotated[bool, typer.Option("--debias", help="Use the retrieval + reflexion graph.")] = False,
    k: Annotated[
        int, typer.Option("--k", help="Precedents per pool (adopted, non-adopted).")
    ] = DebiasOptions.k,
    reflexion: Annotated[bool, typer.Option("--reflexion/--no-reflexion")] = DebiasOptions.reflexion,
    retriever: Annotated[
        str, typer.Option("--retriever", help=f"The retrieval strategy: {', '.join(RETRIEVERS)}.")
    ] = DebiasOptions.retriever,
    threshold: Annotated[
        float,
        typer.Option(
            "--threshold", help="The cut of a retriever that takes one (keyword: keep score > this)."
        ),
    ] = DebiasOptions.threshold,
    recency_halflife: Annotated[
        float | None,
        typer.Option(
            "--recency-halflife",
            help="Prefer recent precedents: a precedent's retrieval score halves every this many years "
            "(0: no preference). Default: 10 on --body unga, 0 on the Council.",
        ),
    ] = DebiasOptions.recency_halflife,
    **options: Any,
) -> None:
    """Persona vote simulation: the Council's non-adopted drafts, or the Assembly's roll calls with
    --body unga (optionally debiased: earlier items are the precedent pool)."""
    print_export(run_vote_command(**given(run_vote, locals() | options)))


register_explicit(run_app)  # `run directqa`, `run association`
register_plugins(run_app)  # `run <test>` for each test a plugin registered

__all__ = ["run_app", "run_association_command", "run_directqa_command", "run_vote_command"]
