"""The direct providers' two wire clients side by side, in the throughput run: our aiohttp client
(graphs/model/http.py) and the openai SDK over its own aiohttp transport (``openai.DefaultAioHttpClient``,
benchmarks/sdk_wire.py). The same vote study at the top concurrency, the two interleaved run by
run so the shared VM's load falls on both alike; the client's CPU per call beside the efficiency."""

from __future__ import annotations

import time
from collections.abc import Callable, Coroutine
from statistics import median
from typing import Any

from benchmarks.common import Section
from benchmarks.sdk_wire import WIRES
from nationbias.graphs.study.runner import run_async

NOTE = (
    "Transport: the vote study at c={c} through each wire client of the direct providers "
    "(`benchmarks.sdk_wire.on_wire`), interleaved run by run ({n} runs each, "
    "median). "
    "CPU per call is the client process's CPU time (`time.process_time`, the server runs in its own "
    "process) over the calls made: graph, run store and transport together, so the difference between "
    "the rows is the transport's. The library asks through the first (`WIRES[0]`)."
)


def compare(
    section: Section,
    run: Callable[..., Coroutine[Any, Any, Any]],
    *,
    concurrency: int,
    repeats: int,
    **study: Any,
) -> None:
    """Add one row per wire (efficiency, CPU per call) and the note; ``run`` is throughput's ``_run``."""
    walls: dict[str, list[Any]] = {wire: [] for wire in WIRES}
    cpu: dict[str, list[float]] = {wire: [] for wire in WIRES}
    for _ in range(max(repeats, 2)):
        for wire in WIRES:
            started = time.process_time()
            measured = run_async(run(concurrency=concurrency, wire=wire, **study))
            cpu[wire].append((time.process_time() - started) / max(1, measured.calls))
            walls[wire].append(measured)
    for wire in WIRES:
        runs = walls[wire]
        effs = sorted(m.efficiency for m in runs)
        label = "aiohttp, graphs/model/http.py" if wire == "aiohttp" else "openai SDK + DefaultAioHttpClient"
        section.add(
            f"vote c={concurrency}, wire {wire} ({label}): efficiency",
            f"{median(effs):.3f}",
            "",
            None,
            f"{len(runs)} runs ({effs[0]:.3f}–{effs[-1]:.3f}); "
            f"client CPU {median(cpu[wire]) * 1000:.2f} ms/call; "
            f"wall {median(m.wall_s for m in runs):.2f} s, {runs[0].calls} calls",
        )
    section.notes.append(NOTE.format(c=concurrency, n=len(walls[WIRES[0]])))
