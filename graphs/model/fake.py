"""A scripted chat model for graph-logic unit tests only (never for findings).

``fake:<behaviour>``: ``hash`` picks schema options by a hash of the prompt (deterministic);
a literal option such as ``favour`` always answers it; ``garbage`` answers non-JSON text.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult


def _digest(text: str) -> int:
    return int(hashlib.sha256(text.encode()).hexdigest()[:12], 16)


def fill_schema(schema: dict[str, Any], seed: int, behaviour: str) -> Any:
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
            return sorted(options, key=lambda o: _digest(f"{seed}:{o}"))
        return [fill_schema(items, seed, behaviour)]
    if kind in ("integer", "number"):
        return seed % 3
    return f"fake rationale {seed % 97}"


class FakeChatModel(BaseChatModel):
    behaviour: str = "hash"

    @property
    def _llm_type(self) -> str:
        return "fake"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        prompt = "\n".join(str(m.content) for m in messages)
        seed = _digest(prompt)
        schema = (kwargs.get("response_format") or {}).get("schema")
        if schema is None:
            schema = ((kwargs.get("response_format") or {}).get("json_schema") or {}).get("schema")
        if self.behaviour == "garbage":
            content = "I would rather not say."
        elif schema:
            content = json.dumps(fill_schema(schema, seed, self.behaviour))
        else:
            content = f"fake answer {seed % 1000}"
        message = AIMessage(
            content=content,
            usage_metadata={
                "input_tokens": len(prompt) // 4,
                "output_tokens": len(content) // 4,
                "total_tokens": (len(prompt) + len(content)) // 4,
            },
        )
        return ChatResult(generations=[ChatGeneration(message=message)])
