"""The llama.cpp worker process: ``python -m nationbias.graphs.model.embedded.llama_worker``, started by
graphs/model/embedded/worker.py.

llama.cpp runs here, never in the study's process, so a native crash (SIGILL from kernels this CPU
cannot run, SIGSEGV, SIGBUS) kills this process only and the study reports it. The protocol is one
JSON object a line: the first line on stdin says what to load, the worker answers ``ready`` (or why
it could not load), then one reply per request. Replies go to a private copy of stdout; fd 1 itself
points at stderr, so nothing llama.cpp prints can corrupt them.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from collections.abc import Callable
from typing import IO, Any

Answer = Callable[[Any, dict[str, Any]], dict[str, Any]]


def load(config: dict[str, Any]) -> Any:
    from llama_cpp import Llama

    return Llama(
        model_path=config["model_path"],
        n_ctx=config["n_ctx"],
        n_threads=config["n_threads"],
        n_threads_batch=config["n_threads"],
        seed=0,
        verbose=False,
    )


def answer(llama: Any, request: dict[str, Any]) -> dict[str, Any]:
    """One chat completion; ``reset`` + temperature 0: the same prompt gives the same output."""
    llama.reset()
    result: dict[str, Any] = llama.create_chat_completion(messages=request["messages"], **request["options"])
    return result


def system_info() -> str:
    import llama_cpp

    info = llama_cpp.llama_print_system_info()
    return info.decode("utf-8", "replace") if isinstance(info, bytes) else str(info)


def _reply(out: IO[str], payload: dict[str, Any]) -> None:
    out.write(json.dumps(payload) + "\n")
    out.flush()


def serve(answer_fn: Answer = answer) -> int:
    """Load the model named on the first line, then answer requests until stdin closes."""
    out = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.stdout = sys.stderr
    # Ctrl-C reaches the whole process group, and so does a job scheduler's SIGTERM (or SIGHUP): the
    # parent handles them, lets the calls in flight finish (graphs/study/halt.py) and closes our stdin.
    for name in ("SIGINT", "SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_IGN)
    first = sys.stdin.readline()
    if not first:
        return 0
    config = json.loads(first)
    try:
        llama = load(config)
    except Exception as exc:
        _reply(out, {"ok": False, "stage": "load", "error": f"{type(exc).__name__}: {exc}"})
        return 1
    _reply(out, {"ok": True, "stage": "ready", "pid": os.getpid(), "system_info": system_info()})
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        try:
            _reply(out, {"ok": True, "result": answer_fn(llama, request)})
        except Exception as exc:  # a Python-level fault: the parent records it for this sample
            _reply(out, {"ok": False, "stage": "call", "error": f"{type(exc).__name__}: {exc}"})
    llama.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(serve())
