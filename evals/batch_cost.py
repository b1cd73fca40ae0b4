"""What batch mode saved: the tokens of a run's batched answers at the price table's list price, halved.

The prices are the same table `--dry-run` and `--max-cost` read (stores/config/prices.py: the packaged table,
the user's file over it); a model not in it is "unknown price", never a guess.
"""

from __future__ import annotations

from nationbias.stores.config.prices import price_book

BATCH_DISCOUNT = 0.5  # OpenAI's and Together's batch APIs: half the online price


def saved(spec: str, *, prompt_tokens: int, completion_tokens: int) -> str:
    """The estimated saving as text: ``$1.23 (of $2.46 online)`` or ``unknown price``."""
    rates = price_book().price(spec)
    if rates is None:
        return f"unknown price for {spec}"
    online = rates.cost(prompt_tokens, completion_tokens)
    return f"${online * BATCH_DISCOUNT:.4f} (of ${online:.4f} online)"
