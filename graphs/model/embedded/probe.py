"""Does the embedded model work on this machine? Asked once per build of llama.cpp, in a child process.

A llama.cpp build made for another CPU dies of SIGILL on its first matrix product. The first use
of ``local:smollm2`` asks the worker for a few tokens before any run store is opened; the answer is
kept in ``NATIONBIAS_HOME/embedded-probe.json`` under the build's fingerprint (the llama-cpp-python
version and the sha256 of its shared libraries), the GGUF file and the thread count, so only the
first use pays for it, and a rebuilt library is probed again.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import tempfile
import threading
import time
from dataclasses import dataclass
from importlib import metadata, util
from pathlib import Path
from typing import Any

from nationbias.graphs.model.embedded.gguf import DEFAULT_N_CTX, llama_threads, smollm2_path
from nationbias.graphs.model.embedded.worker import EmbeddedBackendCrashed, WorkerConfig, get_worker
from nationbias.stores.config.paths import home
from nationbias.stores.errors import InputError

PROBE_FILE = "embedded-probe.json"
PROBE_MESSAGES = [{"role": "user", "content": "Reply with one word: ready."}]
PROBE_OPTIONS: dict[str, Any] = {"temperature": 0.0, "seed": 0, "max_tokens": 4}
_SHARED = (".so", ".dylib", ".dll")
_CHECKED: set[str] = set()  # probe keys that answered in this process
_SAVE_LOCK = threading.Lock()  # concurrent calls that saw one crash all remember it: one writer at a time


@dataclass(frozen=True)
class ProbeResult:
    works: bool
    checked: str  # when the probe ran (UTC)
    remembered: bool  # from an earlier process
    system_info: str


@functools.cache
def library_fingerprint() -> dict[str, str]:
    """The llama-cpp-python version and one sha256 over its shared libraries (names and bytes)."""
    spec = util.find_spec("llama_cpp")
    if spec is None or not spec.submodule_search_locations:
        raise InputError("llama-cpp-python is not installed: `uv sync` installs it")
    package = Path(next(iter(spec.submodule_search_locations)))
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*")):
        if path.is_file() and not path.is_symlink() and any(ext in path.name for ext in _SHARED):
            digest.update(path.relative_to(package).as_posix().encode() + b"\0")
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return {"llama_cpp": metadata.version("llama-cpp-python"), "libraries": digest.hexdigest()}


def probe_key(config: WorkerConfig) -> str:
    gguf = Path(config.model_path).stat()
    facts = {
        **library_fingerprint(),
        "gguf": [config.model_path, gguf.st_size, gguf.st_mtime_ns],
        "threads": config.n_threads,
        "worker": config.module,
    }
    return hashlib.sha256(json.dumps(facts, sort_keys=True).encode()).hexdigest()


def _path() -> Path:
    return home() / PROBE_FILE


def _load() -> dict[str, dict[str, Any]]:
    try:
        data = json.loads(_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}  # none yet, or unreadable: probe again
    return data if isinstance(data, dict) else {}


def _save(key: str, record: dict[str, Any]) -> None:
    """Read, change and replace the file; a unique temporary name per writer, so neither a thread
    nor another process can move this one's file away."""
    with _SAVE_LOCK:
        data = _load()
        data[key] = record
        target = _path()
        fd, name = tempfile.mkstemp(dir=target.parent, prefix=f".{PROBE_FILE}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as tmp:
                tmp.write(json.dumps(data, indent=1, sort_keys=True))
            os.replace(name, target)
        except BaseException:
            Path(name).unlink(missing_ok=True)
            raise


def _now() -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())


def remember_crash(config: WorkerConfig, exc: EmbeddedBackendCrashed) -> None:
    """A native crash is a property of this build on this CPU: remember it (a kill from outside is not)."""
    if not exc.native:
        return
    record = {"works": False, "cause": exc.cause, "doing": exc.doing, "advice": exc.advice, "checked": _now()}
    _save(probe_key(config), record)
    _CHECKED.discard(probe_key(config))


def ensure_embedded_works(*, recheck: bool = False) -> ProbeResult:
    """Probe the embedded model once per build (or use the remembered answer); raise if it crashes.

    The probe runs in the worker the run then uses, so a working build costs one short answer.
    """
    worker = get_worker(str(smollm2_path()), DEFAULT_N_CTX, threads=llama_threads)
    key = probe_key(worker.config)
    record = None if recheck else _load().get(key)
    if record is None:
        try:
            worker.chat(PROBE_MESSAGES, PROBE_OPTIONS, probe=True)
        except EmbeddedBackendCrashed as exc:
            remember_crash(worker.config, exc)
            raise
        record = {"works": True, "checked": _now(), "system_info": worker.system_info}
        _save(key, record)
        _CHECKED.add(key)
        return ProbeResult(True, record["checked"], False, worker.system_info)
    if not record.get("works"):
        raise EmbeddedBackendCrashed(
            cause=str(record.get("cause")),
            native=True,
            doing=f"{record.get('doing')} (remembered from {record.get('checked')}; "
            "`nationbias models --recheck` probes again)",
            advice=str(record.get("advice")),
        )
    return ProbeResult(True, str(record.get("checked")), key not in _CHECKED, str(record.get("system_info")))


def cpu_kernels(system_info: str) -> str:
    """The CPU features llama.cpp was built to use, from ``llama_print_system_info()``."""
    cpu = system_info.split("CPU :", 1)[-1].split("|")
    return " ".join(part.split("=")[0].strip() for part in cpu if part.strip().endswith("= 1"))


def embedded_status(*, recheck: bool = False) -> str:
    """One line for ``nationbias models``: whether the embedded model works here, and why not."""
    try:
        result = ensure_embedded_works(recheck=recheck)
    except Exception as exc:
        return f"no: {exc}"
    when = f"remembered from {result.checked}" if result.remembered else f"probed {result.checked}"
    version = library_fingerprint()["llama_cpp"]
    kernels = cpu_kernels(result.system_info)
    return f"yes: llama.cpp {version} answered on this CPU ({when}); kernels: {kernels or 'unknown'}"
