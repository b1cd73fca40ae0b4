"""What batch mode saved: the tokens of a run's batched answers at the list price, halved.

A small built-in table (USD per million input, output tokens), isolated so a fuller price table
can replace :func:`price`; a model not in it is "unknown price", never a guess.
"""

from __future__ import annotations

PRICES: dict[str, tuple[float, float]] = {  # model name prefix -> (input, output) USD per 1M tokens
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4o": (2.50, 10.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1": (2.00, 8.00),
    "o3-mini": (1.10, 4.40),
    "meta-llama/Llama-3.3-70B-Instruct-Turbo": (0.88, 0.88),
}
BATCH_DISCOUNT = 0.5  # OpenAI's and Together's batch APIs: half the online price


def price(model: str) -> tuple[float, float] | None:
    """The longest matching prefix's price, or None."""
    matches = [name for name in PRICES if model.startswith(name)]
    return PRICES[max(matches, key=len)] if matches else None


def saved(model: str, *, prompt_tokens: int, completion_tokens: int) -> str:
    """The estimated saving as text: ``$1.23 (of $2.46 online)`` or ``unknown price``."""
    rates = price(model)
    if rates is None:
        return f"unknown price for {model}"
    online = (prompt_tokens * rates[0] + completion_tokens * rates[1]) / 1e6
    return f"${online * BATCH_DISCOUNT:.4f} (of ${online:.4f} online)"
