"""`--dry-run`, `--max-cost` and the price options of every command that runs models.

:func:`cost_scope` wraps a command (evals/cli/common.py ``cli_errors``): it takes these options out
of the command's own, checks them before anything runs, and installs the meter (graphs/model/cost/meter.py).
A dry run runs the command's real graphs under a scratch state folder (stores/state/scratch.py) with
placeholder answers (graphs/model/cost/dry_run.py) and prints what the run would send and cost.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from nationbias.evals.cli.table_output import print_table
from nationbias.stores.errors import InputError

COST = ("dry_run", "max_cost", "prices", "price_in", "price_out")  # the options cost_scope takes

DryRunOpt = Annotated[
    bool,
    typer.Option(
        "--dry-run",
        help="Count the calls, tokens and cost the command would make; send nothing (cached calls: free).",
    ),
]
MaxCostOpt = Annotated[
    float | None,
    typer.Option(
        "--max-cost",
        help="Stop before a call could take the spend over this many US dollars (a resumed run's counts).",
    ),
]
PricesOpt = Annotated[
    str | None,
    typer.Option("--prices", help="A price file over the packaged one (or NATIONBIAS_PRICES); docs/cost.md."),
]
PriceInOpt = Annotated[
    float | None, typer.Option("--price-in", help="USD per 1M prompt tokens, for every model of the command.")
]
PriceOutOpt = Annotated[
    float | None,
    typer.Option("--price-out", help="USD per 1M completion tokens, for every model of the command."),
]
OPTIONS = (
    ("dry_run", DryRunOpt, False),
    ("max_cost", MaxCostOpt, None),
    ("prices", PricesOpt, None),
    ("price_in", PriceInOpt, None),
    ("price_out", PriceOutOpt, None),
)

console = Console()


def _models(kwargs: dict[str, Any]) -> list[str]:
    given = kwargs.get("model") or []
    models = [given] if isinstance(given, str) else list(given)
    return models + ([kwargs["judge"]] if kwargs.get("judge") else [])


def _check_models(kwargs: dict[str, Any]) -> None:
    from nationbias.evals.inputs import check_model
    from nationbias.graphs.model.registry import shared_url

    for model in _models(kwargs):
        judge = model == kwargs.get("judge")
        inherited = shared_url(model, kwargs.get("base_url")) if judge else kwargs.get("base_url")
        check_model(model, base_url=(judge and kwargs.get("judge_base_url")) or inherited)


def check_cap(max_cost: float | None) -> float | None:
    if max_cost is not None and not (math.isfinite(max_cost) and max_cost > 0):
        raise InputError(f"--max-cost must be a positive number of US dollars, got {max_cost:g}")
    return max_cost


@contextmanager
def cost_scope(kwargs: dict[str, Any], outcome: Any) -> Iterator[None]:
    """Take the cost options out of ``kwargs`` and run the block under their meter (none: unchanged)."""
    if not any(name in kwargs for name in COST):
        yield
        return
    options = {name: kwargs.pop(name, None) for name in COST}
    from nationbias.graphs.model.cost.meter import Meter, metering
    from nationbias.stores.config.prices import price_book

    cap = check_cap(options["max_cost"])
    if (options["dry_run"] or cap is not None) and (kwargs.get("batch") or kwargs.get("batch_offline")):
        flag = "--dry-run" if options["dry_run"] else "--max-cost"
        raise InputError(f"{flag} meters calls sent one by one, not --batch rounds: drop one of them")
    book = price_book(options["prices"], price_in=options["price_in"], price_out=options["price_out"])
    unpriced = [model for model in _models(kwargs) if book.price(model) is None]
    if cap is not None and unpriced:
        raise InputError(
            f"--max-cost needs a price for {', '.join(unpriced)}, and the price table has none: give "
            "--price-in and --price-out (USD per 1M tokens), or a price file (--prices, NATIONBIAS_PRICES)"
        )
    with ExitStack() as stack:
        answers = None
        if options["dry_run"]:
            _check_models(kwargs)  # in the real state folder: the embedded model's probe is kept
            from nationbias.graphs.model.cost.dry_run import DryAnswers
            from nationbias.stores.config.paths import home
            from nationbias.stores.state.cache import ResponseCache
            from nationbias.stores.state.scratch import scratch_home

            real = home() / "cache.sqlite"
            cache = ResponseCache(real) if real.exists() and not kwargs.get("no_cache") else None
            answers = DryAnswers(real_cache=cache)
            stack.enter_context(scratch_home())
        meter = stack.enter_context(metering(Meter(prices=book, cap=cap, dry=answers)))
        try:
            yield
        except BaseException as exc:
            _raise_cap_on_resume(exc, cap)
            raise
        if answers is not None:
            outcome.summaries.clear()  # nothing ran: no summary line, nothing to resume
            outcome.resume_id = None
            print_estimate(meter, answers)


def _raise_cap_on_resume(exc: BaseException, cap: float | None) -> None:
    """A run the cap stopped: the summary line's resume command gets a higher --max-cost."""
    from nationbias.evals.cli.outcome import current_context
    from nationbias.graphs.model.cost.meter import CostCapReached

    fault = getattr(exc, "fault", exc)
    ctx = current_context()
    if isinstance(fault, CostCapReached) and ctx is not None and cap is not None:
        ctx.params["max_cost"] = float(f"{max(2 * cap, 2 * fault.spent):.2g}")


def dry_running() -> bool:
    from nationbias.graphs.model.cost.meter import METER

    meter = METER.get()
    return meter is not None and meter.dry is not None


def _usd(value: float | None) -> str:
    return "unknown" if value is None else f"{value:.4f}"


def print_estimate(meter: Any, answers: Any) -> None:
    """The dry run's table: per run and model, the calls, tokens and cost; a total; what is estimated."""
    table = Table(title="dry run: nothing was sent", title_justify="left")
    for column in ("run", "model", "calls", "cached", "prompt tok", "compl. tok", "USD", "USD at most"):
        table.add_column(column, justify="left" if column in ("run", "model") else "right", overflow="fold")
    total, worst, unknown = 0.0, 0.0, set()
    for (run_id, model), tally in meter.tallies.items():
        table.add_row(
            run_id, model, f"{tally.calls:,}", f"{tally.cached:,}", f"{tally.prompt_tokens:,}",
            f"{tally.completion_tokens:,}", _usd(tally.usd), _usd(tally.worst_usd),
        )  # fmt: skip
        if tally.usd is None:
            unknown.add(model)
        else:
            total += tally.usd
            worst += tally.worst_usd or 0.0
    print_table(table, console=console)
    calls = sum(t.calls for t in meter.tallies.values())
    cached = sum(t.cached for t in meter.tallies.values())
    line = f"total: {calls:,} calls to send, {cached:,} answered by the cache (free)"
    line += f" · cost ${total:.4f} expected, ${worst:.4f} at most (every call using its whole token budget)"
    if unknown:
        line += f" · price unknown for {', '.join(sorted(unknown))} (not in the total): add it to a price"
        line += " file (--prices, NATIONBIAS_PRICES) or give --price-in/--price-out"
    if meter.cap is not None:
        fits = "fits" if worst <= meter.cap else ("may not fit" if total <= meter.cap else "does not fit")
        line += f" · --max-cost ${meter.cap:g}: the run {fits}"
    console.print(line, highlight=False, soft_wrap=True)
    from nationbias.graphs.model.providers.base import ModelSpec, counter_for

    for model in sorted({model for _, model in meter.tallies}):
        provider, _, name = model.partition(":")
        counter = counter_for(ModelSpec(provider, name))
        how = "counted with" if counter.exact else "an ESTIMATE:"
        price = meter.prices.price(model)
        rate = "price unknown" if price is None else f"${price.input:g} in / ${price.output:g} out"
        rate += "" if price is None else " per 1M tokens"
        console.print(
            f"{model}: {rate}; prompt tokens {how} {counter.name} (a prompt built from earlier answers, as"
            " the debiased vote's history, is an estimate); completion tokens (compl. tok) an estimate: "
            f"{answers.how.get(model, 'half the budget')}",
            highlight=False,
            soft_wrap=True,
        )
