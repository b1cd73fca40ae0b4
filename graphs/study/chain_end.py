"""LangChain's chain-end callback without its task when no handler listens, while a study runs.

``AsyncCallbackManagerForChainRun.on_chain_end`` is ``@shielded``: every call creates a task and
shields it, so that a handler's end event survives a cancellation, even when the run has no
handler and the body returns at once. LangGraph calls it for every node and once per graph, and
each costs three event-loop turns: 27 of the 49 turns on the critical path of a five-call debias
sample, each turn a wait behind every other sample's work at 64 in flight (benchmarks/throughput.py,
finding 17). Inside :func:`unshielded_chain_end` a run without handlers returns at once; a run with
handlers (a tracer, a user's callback) takes the shielded path unchanged.
``tests/stores/test_upstream_contract.py`` checks the upstream method this wraps.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from langchain_core.callbacks.manager import AsyncCallbackManagerForChainRun

SHIELDED_CHAIN_END = AsyncCallbackManagerForChainRun.on_chain_end
_lock = threading.Lock()
_users = 0


async def on_chain_end(self: AsyncCallbackManagerForChainRun, outputs: Any, **kwargs: Any) -> None:
    """Upstream's ``on_chain_end``, without the task when there is no handler to shield."""
    if not self.handlers:
        return  # upstream's body returns here too, after a task and a shield
    await SHIELDED_CHAIN_END(self, outputs, **kwargs)


@contextmanager
def unshielded_chain_end() -> Iterator[None]:
    """Install :func:`on_chain_end` for the duration (nested and concurrent runs share it)."""
    global _users
    with _lock:
        if _users == 0:
            AsyncCallbackManagerForChainRun.on_chain_end = on_chain_end  # type: ignore[method-assign]
        _users += 1
    try:
        yield
    finally:
        with _lock:
            _users -= 1
            if _users == 0:
                AsyncCallbackManagerForChainRun.on_chain_end = SHIELDED_CHAIN_END  # type: ignore[method-assign]
