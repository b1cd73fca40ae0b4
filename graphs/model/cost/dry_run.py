"""A dry run: the real graphs, driven by placeholder answers, counting every call and pricing it.

The calls are counted exactly, through the code path a real run takes: each test's own graph asks
the :class:`~nationbias.graphs.model.client.ModelClient` as it always does. A call the response cache already
answers is
answered from it (its real answer, so the steps after it are the real ones) and costs nothing. Any
other call is counted and priced, and answered with a placeholder of the schema's shape instead of
leaving; an identical call later in the run is then free, as the cache would make it. Nothing is
sent and nothing is written to the real stores (the command runs under stores/state/scratch.py).

What is exact and what is not: the number of calls (but see below) and, with the model's tokenizer
(graphs/model/cost/tokens.py), the prompt tokens of every prompt that depends only on the data. A prompt built
from an earlier placeholder answer (the debiased vote's history of rehearsals and reflections) is
as long as that answer makes it: an estimate. Completion tokens are always an estimate: the mean of
this model's cached answers when there are enough of them, else half of each call's budget.
The one call count that depends on answers: a reflection's prompt holds the rehearsal's label, not its
history, so when several debias cells (``study``, ``ablate``) reflect on the same precedent, the real
run asks once where the rehearsals answered alike and twice where not; placeholders cannot know which.
"""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from nationbias.graphs.model.call_result import Answer
from nationbias.graphs.model.cost.meter import METER, Ask, Meter
from nationbias.graphs.model.schema_fill import fill_schema
from nationbias.stores.state.cache import ResponseCache

if TYPE_CHECKING:
    from nationbias.graphs.model.client_view import ClientView

MIN_CACHED_ANSWERS = 10  # fewer than this many cached answers of a model: half the budget instead


def _schema(kwargs_format: dict[str, Any] | None) -> dict[str, Any] | None:
    fmt = kwargs_format or {}
    found = fmt.get("schema") or (fmt.get("json_schema") or {}).get("schema")
    return found if isinstance(found, dict) else None


@dataclass
class DryAnswers:
    """The dry meter's answerer: the real cache where it has the answer, a placeholder elsewhere."""

    real_cache: ResponseCache | None
    answered: dict[str, dict[str, Any]] = field(default_factory=dict)  # placeholders given this run
    how: dict[str, str] = field(default_factory=dict)  # per model: how its completion tokens were reckoned
    _means: dict[str, tuple[float, int]] = field(default_factory=dict)

    def expected(self, client: ClientView, budget: int) -> tuple[int, str]:
        """The completion tokens a call is expected to take, and how that was reckoned."""
        spec = client.spec
        key = f"{spec.provider}:{spec.model}"
        if key not in self._means:
            self._means[key] = self._cached_mean(spec.provider, spec.model)
        mean, count = self._means[key]
        if count >= MIN_CACHED_ANSWERS:
            return min(budget, round(mean)), f"mean of {count} cached answers"
        return max(1, budget // 2), "half the budget"

    def _cached_mean(self, provider: str, model: str) -> tuple[float, int]:
        if self.real_cache is None:
            return 0.0, 0
        try:
            with closing(sqlite3.connect(self.real_cache.path)) as conn:
                row = conn.execute(
                    "SELECT AVG(json_extract(response, '$.completion_tokens')), COUNT(*) FROM responses "
                    "WHERE provider = ? AND model = ? AND json_extract(response, '$.completion_tokens') > 0",
                    (provider, model),
                ).fetchone()
        except sqlite3.Error:
            return 0.0, 0
        return float(row[0] or 0.0), int(row[1] or 0)

    def answer(self, meter: Meter, client: ClientView, messages: list[dict[str, str]], budget: int) -> Ask:
        prompt = meter.counter(client).count(messages)
        completion, self.how[str(client.spec)] = self.expected(client, budget)
        model = str(client.spec)
        meter.tally(model).charge(meter.prices.price(model), prompt, completion, budget)

        async def placeholder(messages: list[dict[str, str]], kwargs: dict[str, Any]) -> Answer:
            schema = _schema(kwargs.get("response_format"))
            text = json.dumps(fill_schema(schema, prompt, "hash")) if schema else "(dry run: no answer)"
            return Answer(text, None, prompt, completion, "stop")

        return placeholder


class DryCache:
    """The client's cache in a dry run: reads the real one, keeps its own writes in memory."""

    def __init__(self, answers: DryAnswers, model: str) -> None:
        self.answers, self.model = answers, model
        self.path = answers.real_cache.path if answers.real_cache is not None else None

    def get(self, key: str) -> dict[str, Any] | None:
        real = self.answers.real_cache
        hit = (real.get(key) if real is not None else None) or self.answers.answered.get(key)
        meter = METER.get()
        if hit is not None and meter is not None:
            meter.tally(self.model).cached += 1
        return hit

    def put(self, key: str, *, provider: str, model: str, response: dict[str, Any]) -> None:
        self.answers.answered[key] = response  # never written: a placeholder is no answer


def dry_cache(model: str) -> Any:
    """The cache a client gets in a dry run (None outside one): evals/inputs.py asks before opening one."""
    meter = METER.get()
    if meter is None or not isinstance(meter.dry, DryAnswers):
        return None
    return DryCache(meter.dry, model)
