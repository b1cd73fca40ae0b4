"""``local:smollm2``: the embedded offline model (llama.cpp, in a worker process); demo only."""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from nationbias.graphs.model.cost.tokens import TokenCounter, gguf_counter
from nationbias.graphs.model.providers.base import ModelSpec, ModelSpecError, Provider

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from nationbias.graphs.model.retry import RetryPolicy


EMBEDDED_TEXT_CHARS = 160  # the longest free-text field the embedded model may write


def capped(schema: dict[str, Any], limit: int) -> dict[str, Any]:
    """``schema`` with every string's ``maxLength`` at most ``limit`` (set where it had none)."""
    out = copy.deepcopy(schema)
    stack = [out]
    while stack:
        node = stack.pop()
        if node.get("type") == "string" and "enum" not in node:
            node["maxLength"] = min(int(node.get("maxLength", limit)), limit)
        stack += [v for v in node.values() if isinstance(v, dict)]
        stack += [i for v in node.values() if isinstance(v, list) for i in v if isinstance(i, dict)]
    return out


class Local(Provider):
    name = "local"
    describe = "embedded SmolLM2-135M via llama.cpp (demo only)"
    embedded = True

    def chat_model(
        self, spec: ModelSpec, params: dict[str, Any], *, policy: RetryPolicy | None
    ) -> BaseChatModel:
        from nationbias.graphs.model.embedded.local_model import LlamaCppChatModel, smollm2_path

        if spec.model != "smollm2":
            raise ModelSpecError(f"unknown embedded model {spec.model!r}: the only one is local:smollm2")
        smollm2_path()  # fail early and clearly if the wheel is missing
        allowed = {k: v for k, v in params.items() if k in {"temperature", "seed", "max_tokens"}}
        return LlamaCppChatModel(**allowed)

    def response_format(self, spec: ModelSpec, schema: dict[str, Any], name: str) -> dict[str, Any] | None:
        """The schema with short free-text fields: llama.cpp checks its grammar against the whole
        vocabulary at every token, so a 135M model's 500-character rationale costs seconds a call;
        the demo proves the plumbing, and a rationale's first sentence is all it needs."""
        return {"type": "json_object", "schema": capped(schema, EMBEDDED_TEXT_CHARS)}

    def token_counter(self, spec: ModelSpec) -> TokenCounter:
        return gguf_counter()  # the GGUF's own vocabulary

    def check_ready(self, spec: ModelSpec) -> None:
        from nationbias.graphs.model.embedded.probe import ensure_embedded_works

        self.chat_model(spec, {}, policy=None)
        ensure_embedded_works()  # a llama.cpp build this CPU cannot run fails here, in a child process

    def status(self, *, recheck: bool = False) -> str:
        from nationbias.graphs.model.embedded.probe import embedded_status

        return embedded_status(recheck=recheck)
