"""No key in any stored or shown text: every registered provider's key values, and key shapes.

The values come from the provider registry (graphs/model/providers), so a provider added there is
redacted without a list here to remember.
"""

from __future__ import annotations

import re

from nationbias.graphs.model.providers.base import key_values

_KEY_PATTERN = re.compile(r"\b(sk|tgp)[-_][A-Za-z0-9_\-*.]{6,}|(?<=Bearer )[^\s'\"]+", re.IGNORECASE)


def redact(text: str) -> str:
    """Hide API keys: the configured ones, and anything shaped like ``sk-…`` or a bearer token."""
    for value in key_values():
        text = text.replace(value, "[redacted]")
    return _KEY_PATTERN.sub("[redacted]", text)


def describe(exc: BaseException) -> str:
    """One line for the run store: errors are stored and shown, so they never carry a key."""
    status = getattr(exc, "status_code", None)
    text = redact(str(exc)).splitlines()[0][:300] if str(exc) else ""
    return f"{type(exc).__name__}{f' {status}' if status else ''}: {text}"
