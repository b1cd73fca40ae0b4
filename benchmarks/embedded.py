"""The embedded model: llama.cpp in its worker process against in-process, and the portable build
against a native one.

Per call: the same vote-style prompts (with the JSON schema, as the studies ask them) answered by an
in-process ``Llama`` and by the worker, interleaved, one thread each; the answers must be identical.
Portable vs native: ``nationbias demo`` once with the installed (portable) library and once with a
native build first on ``PYTHONPATH``: set ``NATIONBIAS_BENCH_NATIVE_SITE`` to a folder holding a native
``llama_cpp`` package (e.g. a wheel built with ``CMAKE_ARGS="-DGGML_NATIVE=ON -DLLAVA_BUILD=OFF"``,
unzipped). Without it only the per-call part runs.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.common import Section, fmt_s, load_average
from benchmarks.demo import TARGET_S, time_demo

NATIVE_ENV = "NATIONBIAS_BENCH_NATIVE_SITE"
DRAFTS = [
    "calling for an immediate humanitarian ceasefire and unhindered aid access",
    "condemning the use of chemical weapons and referring the situation to the International Criminal Court",
    "extending the mandate of the peacekeeping mission for twelve months",
    "imposing an arms embargo and targeted sanctions on the parties to the conflict",
]


def _messages(draft: str) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": "You are the representative of France at the UN Security Council."},
        {
            "role": "user",
            "content": f"A draft resolution {draft}. How do you vote? Answer JSON with vote "
            "(favour, against, abstention) and a one-sentence rationale.",
        },
    ]


def _per_call(rounds: int) -> tuple[list[float], list[float], float, float, bool]:
    from nationbias.graphs.labels.parsing import VOTE_SCHEMA
    from nationbias.graphs.model.embedded.local_model import DEFAULT_N_CTX, smollm2_path
    from nationbias.graphs.model.embedded.worker import LlamaWorker, WorkerConfig

    options: dict[str, Any] = {
        "temperature": 0.0,
        "seed": 1234,
        "max_tokens": 96,
        "response_format": {"type": "json_object", "schema": VOTE_SCHEMA},
    }
    path = str(smollm2_path())
    started = time.perf_counter()
    from llama_cpp import Llama  # its first import is part of the in-process start-up

    llama = Llama(model_path=path, n_ctx=DEFAULT_N_CTX, n_threads=1, n_threads_batch=1, seed=0, verbose=False)
    load_in_process = time.perf_counter() - started
    worker = LlamaWorker(WorkerConfig(path, DEFAULT_N_CTX, 1))
    started = time.perf_counter()
    worker.chat(_messages("noting the report of the Secretary-General"), {"max_tokens": 1})
    load_worker = time.perf_counter() - started  # spawn + import + load + one token
    in_process: list[float] = []
    in_worker: list[float] = []
    same = True
    try:
        for _ in range(rounds):
            for draft in DRAFTS:
                messages = _messages(draft)
                started = time.perf_counter()
                llama.reset()
                local = llama.create_chat_completion(messages=messages, **options)  # type: ignore[arg-type]
                in_process.append(time.perf_counter() - started)
                started = time.perf_counter()
                remote = worker.chat(messages, options)
                in_worker.append(time.perf_counter() - started)
                text = local["choices"][0]["message"]["content"]  # type: ignore[index]
                same = same and text == remote["choices"][0]["message"]["content"]
    finally:
        worker.close()
        llama.close()
    return in_process, in_worker, load_in_process, load_worker, same


def _library(env: dict[str, str]) -> tuple[str, str]:
    """Where ``llama_cpp`` is imported from under ``env``, and the CPU kernels it was built with."""
    code = "import llama_cpp; print(llama_cpp.__file__); print(llama_cpp.llama_print_system_info().decode())"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env={**os.environ, **env}
    ).stdout.splitlines()
    from nationbias.graphs.model.embedded.probe import cpu_kernels

    return out[0], cpu_kernels(out[1] if len(out) > 1 else "")


def run(quick: bool = False) -> Section:
    section = Section(
        "embedded", "The embedded model: worker process vs in-process; portable vs native llama.cpp"
    )
    in_process, in_worker, load_local, load_worker, same = _per_call(1 if quick else 3)
    local, remote = statistics.median(in_process), statistics.median(in_worker)
    paired = statistics.median(w - p for w, p in zip(in_worker, in_process, strict=True))
    section.add(
        "per call, in-process Llama (median)", fmt_s(local), note=f"{len(in_process)} calls, 1 thread"
    )
    section.add("per call, worker process (median)", fmt_s(remote), note="same prompts, interleaved")
    section.add(
        "worker overhead per call (median paired difference)",
        fmt_s(paired) if paired >= 0 else f"-{fmt_s(-paired)}",
        "< 5% of a call",
        abs(paired) < 0.05 * local,
        f"{100 * paired / local:+.1f}% of an in-process call; answers identical: {'yes' if same else 'NO'}",
    )
    section.add(
        "start-up: worker spawned, loaded, first token vs in-process import and load",
        f"{fmt_s(load_worker)} vs {fmt_s(load_local)}",
        note="paid once per process",
    )
    native_site = os.environ.get(NATIVE_ENV, "").strip()
    if not native_site:
        section.notes.append(f"Portable vs native demo: not measured in this run (set {NATIVE_ENV}).")
        return section
    for label, env in (("portable", {}), ("native", {"PYTHONPATH": native_site})):
        where, kernels = _library(env)
        if label == "native" and not where.startswith(str(Path(native_site).resolve())):
            raise RuntimeError(f"{NATIVE_ENV}={native_site} does not hold llama_cpp (imported {where})")
        before = load_average()
        wall, done = time_demo(quick=quick, env=env)
        section.add(
            f"demo wall time, {label} llama.cpp" + (" (quick sizes)" if quick else ""),
            fmt_s(wall),
            "" if quick else f"< {TARGET_S / 60:g} min",
            None if quick else (done.returncode == 0 and wall < TARGET_S),
            f"exit code {done.returncode}; kernels: {kernels}; "
            f"load average before {before}, after {load_average()}",
        )
        if done.returncode != 0:
            section.notes.append(f"{label} demo failed: {done.stderr.strip()[-800:]}")
    section.notes.append(
        "The two demos ran one after the other on a machine shared with other jobs: absolute times are noisy "
        "(see the load averages). On a CPU without AVX-512 or AMX the native build uses the same kernels as "
        "the portable one, so the two should match within that noise."
    )
    return section
