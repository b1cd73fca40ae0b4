"""What a run spends, priced call by call before the call leaves: the meter behind ``--max-cost``.

The command line installs one :class:`Meter` for a command (a study's runs share it). Every attempt
of every model call passes :func:`guard` (graphs/model/client.py) just before it leaves: with a cap, the call
is priced at its worst (its prompt tokens, counted with the model's tokenizer, plus its whole
``max_tokens`` budget at the completion price) and refused with :class:`CostCapReached` (a run
fault: what is stored is kept, the summary line says how to resume) if it could take the spend over
the cap; once answered, it is charged what the provider's usage says it took. Cached calls never
reach it: they cost nothing. A run's spend is stored in its config (``cost``), and a resumed run
starts from it, so a cap holds across resumes. A dry run (graphs/model/cost/dry_run.py) uses the same meter.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from nationbias.graphs.model.call_result import Answer
from nationbias.graphs.model.cost.tokens import TokenCounter
from nationbias.graphs.model.providers.base import counter_for
from nationbias.stores.config.prices import Price, PriceBook
from nationbias.stores.state.faults import RunFault

if TYPE_CHECKING:
    from nationbias.graphs.model.client_view import ClientView
    from nationbias.stores.state.runstore import RunStore

Ask = Callable[[list[dict[str, str]], dict[str, Any]], Awaitable[Answer]]

# A prompt whose tokens are only estimated is priced this much larger before it leaves: the cap holds
# even when the provider counts a third more tokens than 4 characters a token.
ESTIMATE_MARGIN = 1.5
METER: ContextVar[Meter | None] = ContextVar("nationbias_meter", default=None)
RUN: ContextVar[str] = ContextVar("nationbias_metered_run", default="")


class CostCapReached(RunFault):
    """The next call could take the spend over ``--max-cost``: it was not sent. The calls in flight
    are paid for and fit under the cap: they finish and are stored (graphs/study/halt.py)."""

    graceful = True

    def __init__(self, *, cap: float, spent: float, reserved: float, worst: float, model: str) -> None:
        self.cap, self.spent = cap, spent + reserved
        super().__init__(
            f"--max-cost ${cap:g} reached: ${spent:.4f} spent, up to ${reserved:.4f} more for the calls in "
            f"flight, and the next call to {model} could cost up to ${worst:.4f}; it was not sent, "
            "everything done so far is kept (rerun with a higher --max-cost to go on)"
        )


@dataclass
class Tally:
    """One model's calls in one run: those that leave (paid) and those the cache answers (free)."""

    calls: int = 0
    cached: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    max_completion_tokens: int = 0  # the budgets the calls are sent with: the worst case
    usd: float | None = 0.0  # None: the model has no price
    worst_usd: float | None = 0.0

    def charge(self, price: Price | None, prompt: int, completion: int, budget: int = 0) -> None:
        self.calls += 1
        self.prompt_tokens += prompt
        self.completion_tokens += completion
        self.max_completion_tokens += budget
        if price is None:
            self.usd = self.worst_usd = None
        elif self.usd is not None and self.worst_usd is not None:
            self.usd += price.cost(prompt, completion)
            self.worst_usd += price.cost(prompt, budget)

    def record(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if k not in ("max_completion_tokens", "worst_usd")}


class Answerer(Protocol):
    """How a dry run answers a call instead of sending it (graphs/model/cost/dry_run.py)."""

    def answer(
        self, meter: Meter, client: ClientView, messages: list[dict[str, str]], budget: int
    ) -> Ask: ...


@dataclass
class Meter:
    """The spend of one command: per (run, model) tallies, the cap, what calls in flight may still cost."""

    prices: PriceBook
    cap: float | None = None
    dry: Answerer | None = None
    tallies: dict[tuple[str, str], Tally] = field(default_factory=dict)
    prior: dict[str, dict[str, Any]] = field(default_factory=dict)  # each run's stored spend, at its start
    reserved: float = 0.0

    @property
    def spent(self) -> float:
        before = sum(float(p.get("usd") or 0.0) for p in self.prior.values())
        return before + sum(t.usd or 0.0 for t in self.tallies.values())

    def tally(self, model: str, run_id: str | None = None) -> Tally:
        return self.tallies.setdefault((RUN.get() if run_id is None else run_id, model), Tally())

    def counter(self, client: ClientView) -> TokenCounter:
        return counter_for(client.spec)

    def wrap(
        self, client: ClientView, messages: list[dict[str, str]], kwargs: dict[str, Any], ask: Ask
    ) -> Ask:
        budget = int(kwargs.get("max_tokens") or client.params.max_tokens)
        if self.dry is not None:
            return self.dry.answer(self, client, messages, budget)
        model = str(client.spec)
        price = self.prices.price(model)
        worst = 0.0
        if self.cap is not None and price is not None:
            counter = self.counter(client)
            prompt = counter.count(messages) * (1 if counter.exact else ESTIMATE_MARGIN)
            worst = price.cost(math.ceil(prompt), budget)
            if self.spent + self.reserved + worst > self.cap:
                raise CostCapReached(
                    cap=self.cap, spent=self.spent, reserved=self.reserved, worst=worst, model=model
                )
            self.reserved += worst
        tally = self.tally(model)

        async def paid(messages: list[dict[str, str]], kwargs: dict[str, Any]) -> Answer:
            try:
                reply = await ask(messages, kwargs)
            finally:
                self.reserved -= worst
            prompt = reply.prompt_tokens or self.counter(client).count(messages)
            completion = reply.completion_tokens or self.counter(client).count_text(reply.raw)
            tally.charge(price, prompt, completion)
            return reply

        return paid

    def display(self) -> str:
        """The progress display's spend: so far, of the cap."""
        if self.dry is not None:
            return "dry run"
        if any(t.usd is None for t in self.tallies.values()):
            return "spent: price unknown"
        return f"spent ${self.spent:.4f}" + (f" of ${self.cap:g}" if self.cap is not None else "")


def guard(client: ClientView, messages: list[dict[str, str]], kwargs: dict[str, Any], ask: Ask) -> Ask:
    """``ask`` as it may leave now: unchanged without a meter; priced (and maybe refused) with one."""
    meter = METER.get()
    return ask if meter is None else meter.wrap(client, messages, kwargs, ask)


@contextmanager
def metering(meter: Meter) -> Iterator[Meter]:
    """Every call of this block (and of the tasks it starts) goes through ``meter``."""
    token = METER.set(meter)
    try:
        yield meter
    finally:
        METER.reset(token)


class RunSpend:
    """One run under the meter: its calls are tallied under its id; its spend is stored with it."""

    def __init__(self, store: RunStore, run_id: str) -> None:
        self.store, self.run_id, self.meter = store, run_id, METER.get()
        self.token = RUN.set(run_id)
        if self.meter is not None and run_id not in self.meter.prior:
            self.meter.prior[run_id] = store.get_run(run_id).get("cost") or {}

    def close(self) -> None:
        """Store the run's spend (what it had, plus this command's calls) in its config."""
        RUN.reset(self.token)
        if self.meter is None or self.meter.dry is not None:
            return
        before = self.meter.prior.get(self.run_id, {})
        now = Tally()
        for (run_id, _), tally in self.meter.tallies.items():
            if run_id == self.run_id:
                for name in ("calls", "prompt_tokens", "completion_tokens"):
                    setattr(now, name, getattr(now, name) + getattr(tally, name))
                now.usd = None if tally.usd is None or now.usd is None else now.usd + tally.usd
        record = now.record()
        for name in ("calls", "prompt_tokens", "completion_tokens", "usd"):
            if record[name] is not None and before.get(name) is not None:
                record[name] += before[name]
        record.pop("cached")
        self.store.update_config(self.run_id, cost=record)
