"""A scripted chat model for graph-logic unit tests only (never for findings).

``fake:<behaviour>``: ``hash`` picks schema options by a hash of the prompt (deterministic);
a literal option such as ``favour`` always answers it; ``garbage`` answers non-JSON text.
"""

from __future__ import annotations

import json
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from nationbias.graphs.model.schema_fill import digest, fill_schema


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
        seed = digest(prompt)
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
