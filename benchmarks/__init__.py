"""Benchmarks of nationbias against physical limits: ``python -m benchmarks [--quick] [--only NAME]``.

Each benchmark is one module exposing ``run(quick: bool) -> Section``; :mod:`benchmarks.common` holds
the shared pieces (fresh state folders, the fault server in its own process, machine facts).
"""

BENCHMARKS = (
    "throughput",
    "replay",
    "retrieval",
    "retrieval_quality",
    "demo",
    "embedded",
    "assembly_scale",
    "sample_browser",
    "suite",
)
