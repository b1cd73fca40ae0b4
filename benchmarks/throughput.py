"""Throughput against the physical limit: vote and debias studies on a fixed-latency fault server.

With every call taking ``latency`` seconds on the server and ``concurrency`` calls in flight, no
client can do better than ``calls × latency ÷ concurrency`` seconds; efficiency is that bound over
the measured wall time of the runner. The server runs in its own process (so its CPU does not share
the client's event loop); an in-process server is measured too at the highest concurrency, for
comparison. The baseline is the way research scripts do it: a ``for`` loop over the synchronous
``openai.OpenAI`` client.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from benchmarks.common import Section, fault_server_process, fmt_s, fresh_home
from graphs.debias import DebiasOptions
from graphs.llm import ModelClient
from graphs.parsing import VOTE_SCHEMA
from graphs.simulate import SampleOptions, run_debias_study, run_vote_study, select_drafts, vote_tasks
from graphs.vote import VOTE_MAX_TOKENS, vote_messages
from stores.corpus import Corpus, load_corpus
from stores.runstore import RunStore

LATENCY_S = 0.2
MODEL_SPEC = "openai-compatible:bench"
TARGET_EFFICIENCY = 0.90
TARGET_SPEEDUP = 50.0
FINDINGS = """**Findings (targets missed: efficiency 0.9 at c=64, speed-up 50×).** cProfile of the vote
study at c=64: the client is CPU-bound, not waiting. (1) Fixed: httpcore's connection pool rescans
every connection
(`has_expired` → a socket poll each) whenever a request enters or leaves it, quadratic in the pool:
at 64 in flight this alone held a raw httpx client to 0.15–0.18 efficiency. `graphs/http.py` now
round-robins over 8 small `httpx2` pools (vote c=64 0.27 → ~0.38–0.45 on this loaded machine; raw
httpx 0.15 → 0.75). (2) Fixed: the debias checkpointer (AsyncSqliteSaver: one connection, one lock)
ran WAL with `synchronous=FULL`, ~4 ms of fsync per node commit, serialising all workers; now
`synchronous=NORMAL` as the other stores (debias c=64 wall 33 s → 14 s). (3) Left: ~5 ms of CPU per
call remains in the stack, measured with `getrusage` (3.3 s CPU for 640 calls): openai SDK request
transform (`_async_transform_recursive`, ~110 recursive calls per request, ~25%), langchain-openai
`_agenerate` incl. a thread-pool hop per result (`run_in_executor`), langgraph `ainvoke` (~15%),
`stores.leak.context_for_prompt` recomputed 2–4× per call (regex over the context, ~6%; a per-record
memo would help), run store writes (~3%). 64 workers × 1 call per 200 ms need 320 calls/s, i.e.
≤ ~1.5 ms CPU per call for 0.9; with the machine shared (load average 3–6 on 2 cores while measuring)
the process got ~0.75 of a core. The physical floor on this box: raw asyncio sockets reach 0.90–0.92
at c=64 against the same server. Reaching the target needs a thinner hot path (the openai client
without langchain's wrapper, or uvloop), a design change outside this issue's surgical edits.
The server in its own process or in-process makes little difference (0.378 vs 0.367): the client
is the limit."""


@dataclass
class Measured:
    test: str
    concurrency: int
    samples: int
    calls: int
    wall_s: float
    server: str = "process"

    @property
    def bound_s(self) -> float:
        return self.calls * LATENCY_S / self.concurrency

    @property
    def efficiency(self) -> float:
        return self.bound_s / self.wall_s if self.wall_s > 0 else 0.0

    @property
    def per_call_s(self) -> float:
        return self.wall_s / max(1, self.calls)


def _client(base_url: str) -> ModelClient:
    return ModelClient.from_spec(MODEL_SPEC, base_url=base_url, cache=None)


async def _run(test: str, base_url: str, corpus: Corpus, sample: SampleOptions, concurrency: int) -> Measured:
    client = _client(base_url)
    with fresh_home(f"tp-{test}-{concurrency}"):
        store = RunStore()
        run_id = f"bench-{test}-c{concurrency}"
        if test == "vote":
            summary = await run_vote_study(
                client=client,
                corpus=corpus,
                store=store,
                run_id=run_id,
                sample=sample,
                concurrency=concurrency,
                show_progress=False,
            )
        else:
            summary = await run_debias_study(
                client=client,
                corpus=corpus,
                store=store,
                run_id=run_id,
                sample=sample,
                options=DebiasOptions(k=1),
                concurrency=concurrency,
                show_progress=False,
            )
        store.close()
    if summary.error:
        raise RuntimeError(f"{test} at concurrency {concurrency}: {summary.first_errors}")
    return Measured(test, concurrency, summary.total, client.calls_made, summary.wall_s)


def sequential_loop(base_url: str, corpus: Corpus, sample: SampleOptions) -> tuple[int, float]:
    """The research-script baseline: one synchronous ``openai.OpenAI`` call after another."""
    import openai

    records = {r.id: r for r in corpus.records}
    tasks = vote_tasks("vote", select_drafts(corpus, sample), sample)
    fmt = _client(base_url).response_format(VOTE_SCHEMA, "vote")
    client = openai.OpenAI(base_url=base_url, api_key="not-needed", max_retries=0)
    started = time.perf_counter()
    for task in tasks:
        request: dict[str, Any] = {
            "model": "bench",
            "messages": vote_messages(records[task.item], task.persona),
            "response_format": fmt,
            "temperature": 0.0,
            "seed": 1234,
            "max_tokens": VOTE_MAX_TOKENS,
        }
        client.chat.completions.create(**request)
    wall = time.perf_counter() - started
    client.close()
    return len(tasks), wall


@contextmanager
def _inprocess_server() -> Iterator[str]:
    from tests.support.fault_server import FaultConfig, FaultServer

    with FaultServer(config=FaultConfig(latency_s=LATENCY_S)) as server:
        yield server.base_url


def run(quick: bool = False) -> Section:
    section = Section(
        "throughput", f"Throughput against the physical limit ({LATENCY_S * 1000:.0f} ms latency)"
    )
    corpus = load_corpus()
    n_drafts = len(corpus.drafts)
    levels = (1, 8, 64) if quick else (1, 8, 32, 64)
    # 64 drafts × 5 personas: a whole number of waves at concurrency 64 (330 calls would be 5.2
    # waves, and the last partial wave alone caps efficiency at 0.86 whatever the client does).
    full_vote = SampleOptions(limit=13 if quick else 64, repeats=1 if quick else 2)
    full_debias = SampleOptions(limit=13 if quick else 64, repeats=1)
    slice_c1 = SampleOptions(limit=2 if quick else 6, repeats=1)
    slice_debias_low = SampleOptions(limit=2 if quick else 3, repeats=1)
    slice_debias_c8 = SampleOptions(limit=4 if quick else 20, repeats=1)
    results: list[Measured] = []
    with fault_server_process(LATENCY_S) as base_url:
        asyncio.run(_run("vote", base_url, corpus, slice_c1, 2))  # warm-up: imports, prompt registry
        for level in levels:
            vote_sample = slice_c1 if level == 1 else full_vote
            results.append(asyncio.run(_run("vote", base_url, corpus, vote_sample, level)))
        for level in levels:
            sample = {1: slice_debias_low, 8: slice_debias_c8}.get(level, full_debias)
            results.append(asyncio.run(_run("debias", base_url, corpus, sample, level)))
        seq_calls, seq_wall = sequential_loop(base_url, corpus, slice_c1)
    with _inprocess_server() as base_url:
        inproc = asyncio.run(_run("vote", base_url, corpus, full_vote, max(levels)))
        inproc.server = "in-process"

    full_calls = {m.test: m.calls for m in results if m.concurrency == max(levels)}
    for m in results:
        extrapolated = m.calls != full_calls[m.test]
        scope = f"{m.samples} samples, {m.calls} calls"
        if extrapolated:
            projected = m.per_call_s * full_calls[m.test]
            scope += f" (a slice: full study {full_calls[m.test]} calls ≈ {fmt_s(projected)}, per call)"
        ok = m.efficiency >= TARGET_EFFICIENCY if m.concurrency == 64 else None
        section.add(
            f"{m.test} c={m.concurrency}: efficiency",
            f"{m.efficiency:.3f}",
            f"≥ {TARGET_EFFICIENCY}" if m.concurrency == 64 else "",
            ok,
            f"wall {fmt_s(m.wall_s)} vs bound {fmt_s(m.bound_s)}; {scope}",
        )
    top_vote = next(m for m in results if m.test == "vote" and m.concurrency == max(levels))
    section.add(
        f"vote c={inproc.concurrency}, server in-process: efficiency",
        f"{inproc.efficiency:.3f}",
        "",
        None,
        f"wall {fmt_s(inproc.wall_s)}; same study with the server sharing the client's process",
    )
    seq_per_call = seq_wall / seq_calls
    projected_seq = seq_per_call * top_vote.calls
    speedup = projected_seq / top_vote.wall_s
    section.add(
        f"vote c={top_vote.concurrency} vs sequential openai.OpenAI loop: speed-up",
        f"{speedup:.1f}×",
        f"≥ {TARGET_SPEEDUP:g}×",
        speedup >= TARGET_SPEEDUP,
        f"loop: {seq_calls} calls in {fmt_s(seq_wall)} ({fmt_s(seq_per_call)}/call), "
        f"extrapolated to {top_vote.calls} calls = {fmt_s(projected_seq)}; runner {fmt_s(top_vote.wall_s)}",
    )
    section.notes.append(
        f"Vote: {full_vote.limit} of the {n_drafts} drafts × 5 personas × {full_vote.repeats} repeat(s) "
        f"({full_calls['vote']} calls: whole waves at concurrency {max(levels)}); "
        f"debias k=1 (keyword retriever, reflexion on) over {full_debias.limit} drafts × 5 personas "
        "× 1 repeat (1 to 5 chained calls per sample). "
        "Concurrency 1 (and debias at 8) run on a smaller slice: their wall time is per call of that slice; "
        "efficiency is a ratio and needs no extrapolation. Wall time is the runner's (`RunSummary.wall_s`), "
        "study setup (corpus, augmented fields, graph build) excluded. Calls: `ModelClient.calls_made`; "
        "`--no-cache` (cache=None)."
    )
    section.notes.append(FINDINGS)
    return section
