"""Lone surrogates: text JSON can carry (the escape ``\\ud83d`` alone) and UTF-8 cannot.

A data line that holds one is not text: it passes ``json.loads`` and then fails wherever the text is
encoded (SQLite, a tokenizer, a terminal), far from the file. The loaders refuse it where it enters,
naming the file, the line and the field.
"""

from __future__ import annotations

import re

# Only a \uD800-\uDFFF escape can put a surrogate into a string read from UTF-8 JSON: a cheap test
# of the raw line before the parsed object is walked.
_ESCAPE = re.compile(r"\\u[dD][89abcdefABCDEF]")


def may_hold_surrogates(line: str) -> bool:
    """Whether a raw JSON line has a surrogate escape at all (a pair is fine, a lone one is not)."""
    return _ESCAPE.search(line) is not None


def lone_surrogate_field(value: object, path: str = "") -> str | None:
    """The dotted path of the first string in ``value`` holding a lone surrogate, or None."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return path or "<value>"
        return None
    if isinstance(value, dict):
        items: list[tuple[str, object]] = [(str(k), v) for k, v in value.items()]
    elif isinstance(value, list):
        items = [(str(i), v) for i, v in enumerate(value)]
    else:
        return None
    for key, item in items:
        found = lone_surrogate_field(item, f"{path}.{key}" if path else key)
        if found is not None:
            return found
    return None


def surrogate_problem(line: str, obj: object) -> tuple[str, str] | None:
    """``(field, message)`` when the parsed line ``obj`` holds a lone surrogate, else None."""
    if not may_hold_surrogates(line):
        return None
    field = lone_surrogate_field(obj)
    if field is None:
        return None
    return (
        field,
        "holds a lone surrogate (a \\uD800-\\uDFFF escape without its pair): not text; fix the escape",
    )
