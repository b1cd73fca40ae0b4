"""llama.cpp's thread count follows the CPU in use now, not the lagging load average."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from nationbias.graphs.model.embedded.gguf import busy_cores, llama_threads


def test_busy_cores_is_a_share_of_the_machine() -> None:
    busy = busy_cores()
    assert busy is not None and 0.0 <= busy <= (os.cpu_count() or 1)


def test_a_spinning_neighbour_halves_the_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NATIONBIAS_LLAMA_THREADS", raising=False)
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        assert (busy_cores(0.5) or 0.0) >= 0.5
        assert llama_threads() == max(1, (os.cpu_count() or 2) // 2)
    finally:
        spinner.kill()
        spinner.wait()


def test_the_variable_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NATIONBIAS_LLAMA_THREADS", "3")
    assert llama_threads() == 3
