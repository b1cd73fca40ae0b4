"""A placeholder answer of a JSON schema's shape, chosen by a seed: the fake model's answers and a dry
run's placeholders (graphs/model/cost/dry_run.py). Plain Python, so a dry run or a real run's start-up
never loads LangChain's model classes for it."""

from __future__ import annotations

import hashlib
from typing import Any


def digest(text: str) -> int:
    """A stable seed from a text (a prompt): the first 48 bits of its SHA-256."""
    return int(hashlib.sha256(text.encode()).hexdigest()[:12], 16)


def fill_schema(schema: dict[str, Any], seed: int, behaviour: str) -> Any:
    """A value of ``schema``'s shape: ``behaviour`` where it is one of an enum's options, else picked by
    ``seed``."""
    kind = schema.get("type")
    if "enum" in schema:
        options = list(schema["enum"])
        return behaviour if behaviour in options else options[seed % len(options)]
    if kind == "object":
        props = schema.get("properties", {})
        return {name: fill_schema(sub, seed + i, behaviour) for i, (name, sub) in enumerate(props.items())}
    if kind == "array":
        items = schema.get("items", {})
        if "enum" in items:  # a ranking: a permutation of the options
            options = list(items["enum"])
            return sorted(options, key=lambda o: digest(f"{seed}:{o}"))
        return [fill_schema(items, seed, behaviour)]
    if kind in ("integer", "number"):
        return seed % 3
    return f"fake rationale {seed % 97}"
