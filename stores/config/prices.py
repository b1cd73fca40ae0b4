"""The price table: US dollars per million prompt and completion tokens, per model spec.

The table ships as a data file the user can edit (``stores/tables/prices.toml``: ``stores/data/`` holds
only the copy of ../shared); a file of their own
(``NATIONBIAS_PRICES`` or ``--prices``, the same layout) wins entry by entry. Under both lie the
prices a provider module ships itself (``Provider.prices``, filed by :func:`provide_prices` when the
provider is registered, graphs/model/providers/). A key is a model spec (``openai:gpt-4o-mini``) or a
whole provider (``local:*``). A model with no entry has no price: callers say so rather than guess.
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from nationbias.stores.config.settings import settings
from nationbias.stores.errors import InputError

PACKAGED = Path(__file__).parents[1] / "tables" / "prices.toml"


@dataclass(frozen=True)
class Price:
    """USD per 1M tokens; ``source`` says where it came from (a file, or the command line)."""

    input: float
    output: float
    source: str = ""

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (prompt_tokens * self.input + completion_tokens * self.output) / 1e6


PROVIDED: dict[str, Price] = {}  # the providers' own prices, by key: the lowest layer of the book


def provide_prices(entries: Mapping[str, Price]) -> None:
    """File a provider's own prices (keys as in the table) under the packaged table and the user's file."""
    for key, price in entries.items():
        if ":" not in key:
            raise InputError(f"price key {key!r} is not '<provider>:<model>' (or '<provider>:*')")
        PROVIDED[key] = Price(
            _number(price.input, f"{key}.input"), _number(price.output, f"{key}.output"), price.source
        )


def _number(value: object, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
        raise InputError(f"{where} must be a number of US dollars >= 0, got {value!r}")
    return float(value)


def read_prices(path: Path) -> dict[str, Price]:
    """One price file: ``[models."<spec>"]`` tables with ``input`` and ``output``; errors name the entry."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"price file {path} does not exist") from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise InputError(f"price file {path} cannot be read: {exc}") from None
    models = data.get("models")
    if not isinstance(models, dict):
        raise InputError(f'price file {path} has no [models."<spec>"] tables')
    prices = {}
    for spec, entry in models.items():
        where = f"{path}: models.{spec!r}"
        if not isinstance(entry, dict) or not {"input", "output"} <= set(entry):
            raise InputError(f"{where} needs both input and output (USD per 1M tokens)")
        prices[spec] = Price(
            _number(entry["input"], f"{where}.input"), _number(entry["output"], f"{where}.output"), str(path)
        )
    return prices


@dataclass(frozen=True)
class PriceBook:
    """The packaged table under the user's file, and one price for every model given on the command line."""

    entries: dict[str, Price]
    forced: Price | None = None

    def price(self, spec: str) -> Price | None:
        if self.forced is not None:
            return self.forced
        provider = spec.split(":", 1)[0]
        return self.entries.get(spec) or self.entries.get(f"{provider}:*")


def price_book(
    path: str | Path | None = None, *, price_in: float | None = None, price_out: float | None = None
) -> PriceBook:
    """The prices in force: ``path`` (else ``NATIONBIAS_PRICES``) over the packaged table; ``price_in``
    and ``price_out`` (USD per 1M tokens, both or neither) price every model."""
    entries = PROVIDED | read_prices(PACKAGED)
    user = path or settings().prices
    if user:
        entries |= read_prices(Path(user).expanduser())
    if (price_in is None) != (price_out is None):
        raise InputError("--price-in and --price-out go together (USD per 1M prompt and completion tokens)")
    forced = None
    if price_in is not None and price_out is not None:
        forced = Price(_number(price_in, "--price-in"), _number(price_out, "--price-out"), "command line")
    return PriceBook(entries, forced)
