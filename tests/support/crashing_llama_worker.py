"""A llama.cpp worker that really dies of a signal, where llama.cpp runs: the test double for crashes.

Selected with ``NATIONBIAS_LLAMA_WORKER=tests.support.crashing_llama_worker``. It answers with the
real llama.cpp until it has answered ``NATIONBIAS_TEST_CRASH_AFTER`` prompts (default 0; the probe
does not count, ``probe`` makes the probe itself die), then dies of ``NATIONBIAS_TEST_CRASH_SIGNAL``
(SIGILL, SIGSEGV, SIGBUS, ...) on the next one. SIGSEGV is a real invalid read, not a sent signal.
"""

from __future__ import annotations

import ctypes
import os
import signal
from typing import Any

from nationbias.graphs.model.embedded.llama_worker import answer, serve


def die(sig: signal.Signals) -> None:
    if sig == signal.SIGSEGV:
        ctypes.string_at(0)  # read address 0: the kernel sends SIGSEGV
    signal.raise_signal(sig)


def main() -> int:
    sig = signal.Signals[os.environ.get("NATIONBIAS_TEST_CRASH_SIGNAL", "SIGILL")]
    after = os.environ.get("NATIONBIAS_TEST_CRASH_AFTER", "0")
    answered = 0

    def answer_or_die(llama: Any, request: dict[str, Any]) -> dict[str, Any]:
        nonlocal answered
        if request.get("probe"):
            if after == "probe":
                die(sig)
            return answer(llama, request)
        if after != "probe" and answered >= int(after):
            die(sig)
        answered += 1
        return answer(llama, request)

    return serve(answer_or_die)


if __name__ == "__main__":
    raise SystemExit(main())
