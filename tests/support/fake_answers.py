"""Deterministic answer content for the fault server, so a rerun yields byte-identical replies.

Everything is derived from :func:`prompt_key` (sha256 of the messages), never from time or
arrival order: the same request body always gets the same content.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Mapping
from typing import Any

_MAX_DEPTH = 32


def prompt_key(messages: object) -> str:
    """The per-prompt counter key: sha256 of the canonical JSON of ``messages``."""
    canonical = json.dumps(messages, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


def schema_of(response_format: object) -> dict[str, Any] | None:
    """The JSON schema inside an OpenAI ``response_format``, in either accepted spelling."""
    if not isinstance(response_format, Mapping):
        return None
    schema: object = None
    if response_format.get("type") == "json_object":
        schema = response_format.get("schema")
    elif response_format.get("type") == "json_schema":
        inner = response_format.get("json_schema")
        schema = inner.get("schema") if isinstance(inner, Mapping) else None
    return dict(schema) if isinstance(schema, Mapping) else None


def default_content(body: Mapping[str, Any]) -> str:
    """The answer when no responder is set: schema-valid JSON if asked for, else short text."""
    key = prompt_key(body.get("messages"))
    response_format = body.get("response_format")
    schema = schema_of(response_format)
    if schema is not None:
        return json.dumps(fake_instance(schema, key=key), ensure_ascii=False)
    if isinstance(response_format, Mapping) and response_format.get("type") == "json_object":
        return json.dumps({"text": f"deterministic answer {key[:12]}"})
    return f"Deterministic answer {key[:12]}."


def fake_instance(schema: Mapping[str, Any], *, key: str) -> Any:
    """A value satisfying ``schema`` whose choices are seeded by ``key`` (the prompt hash)."""
    return _Faker(schema, key).value(schema, "$", 0)


class _Faker:
    """Walks a JSON schema ($ref/$defs, anyOf/oneOf/allOf, enum, const) producing one instance."""

    def __init__(self, root: Mapping[str, Any], key: str) -> None:
        self.root = root
        self.key = key

    def _digest(self, path: str) -> int:
        return int(hashlib.sha256(f"{self.key}|{path}".encode()).hexdigest()[:16], 16)

    def _resolve(self, schema: Mapping[str, Any], depth: int) -> Mapping[str, Any]:
        while "$ref" in schema and depth < _MAX_DEPTH:
            target: Any = self.root
            for part in str(schema["$ref"]).removeprefix("#").strip("/").split("/"):
                if part:
                    target = target[part.replace("~1", "/").replace("~0", "~")]
            siblings = {k: v for k, v in schema.items() if k != "$ref"}
            schema = {**target, **siblings}
            depth += 1
        return schema

    def value(self, schema: Mapping[str, Any], path: str, depth: int) -> Any:
        if depth > _MAX_DEPTH:
            return None
        schema = self._resolve(schema, depth)
        if "const" in schema:
            return schema["const"]
        if schema.get("enum"):
            options = list(schema["enum"])
            return options[self._digest(path) % len(options)]
        for combinator in ("anyOf", "oneOf"):
            choices = [self._resolve(c, depth) for c in schema.get(combinator, [])]
            if choices:
                non_null = [c for c in choices if c.get("type") != "null"]
                return self.value((non_null or choices)[0], path, depth + 1)
        if schema.get("allOf"):
            merged: dict[str, Any] = {}
            for part in schema["allOf"]:
                merged.update(self._resolve(part, depth))
            return self.value(merged, path, depth + 1)
        return self._typed(schema, path, depth)

    def _typed(self, schema: Mapping[str, Any], path: str, depth: int) -> Any:
        kind = schema.get("type")
        if isinstance(kind, list):
            kind = next((k for k in kind if k != "null"), "null")
        if kind is None:
            kind = "object" if "properties" in schema else "array" if "items" in schema else "string"
        if kind == "object":
            props = schema.get("properties", {})
            return {name: self.value(sub, f"{path}.{name}", depth + 1) for name, sub in props.items()}
        if kind == "array":
            return self._array(schema, path, depth)
        if kind in ("integer", "number"):
            return _number(schema, integer=kind == "integer")
        if kind == "boolean":
            return self._digest(path) % 2 == 1
        if kind == "null":
            return None
        return _string(schema, f"rationale {self._digest(path) % 16**12:012x}")

    def _array(self, schema: Mapping[str, Any], path: str, depth: int) -> list[Any]:
        items = self._resolve(schema.get("items", {}), depth)
        low, high = int(schema.get("minItems", 0)), schema.get("maxItems")
        if items.get("enum"):  # a ranking: a hash-seeded permutation of all options
            options = list(items["enum"])
            random.Random(self._digest(path)).shuffle(options)
            return options if high is None else options[: int(high)]
        count = max(low, 1) if high is None else min(max(low, 1), int(high))
        return [self.value(items, f"{path}[{i}]", depth + 1) for i in range(count)]


def _number(schema: Mapping[str, Any], *, integer: bool) -> float | int:
    """Zero, nudged into [minimum, maximum] when the schema excludes it."""
    step = 1 if integer else 0.5
    value: float = 0
    if "minimum" in schema:
        value = max(value, schema["minimum"])
    if "exclusiveMinimum" in schema and value <= schema["exclusiveMinimum"]:
        value = schema["exclusiveMinimum"] + step
    if "maximum" in schema:
        value = min(value, schema["maximum"])
    if "exclusiveMaximum" in schema and value >= schema["exclusiveMaximum"]:
        value = schema["exclusiveMaximum"] - step
    return int(value) if integer else value


def _string(schema: Mapping[str, Any], text: str) -> str:
    """``text`` padded or cut to the schema's length bounds."""
    low, high = int(schema.get("minLength", 0)), schema.get("maxLength")
    text = text.ljust(low, "x")
    return text if high is None else text[: int(high)]
