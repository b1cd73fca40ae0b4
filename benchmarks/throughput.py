"""Throughput against the physical limit: vote and debias studies on a fixed-latency fault server.

With every call taking ``latency`` seconds on the server and ``concurrency`` calls in flight, no
client can do better than ``calls × latency ÷ concurrency`` seconds; efficiency is that bound over
the measured wall time of the runner. The server runs in its own process (so its CPU does not share
the client's event loop); an in-process server is measured too at the highest concurrency, for
comparison. The baseline is the way research scripts do it: a ``for`` loop over the synchronous
``openai.OpenAI`` client. The floor is the same vote requests sent by a bare aiohttp loop (no graph,
no run store, no retries): what this machine allows any Python client, measured in the same run.
The machine is a shared VM, so the top concurrency is measured ``REPEATS`` times and the median
reported, with the spread.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from statistics import median
from typing import Any

from benchmarks import transport
from benchmarks.common import Section, fault_server_process, fmt_s, fresh_home
from benchmarks.sdk_wire import WIRES, on_wire
from nationbias.graphs.debias import DebiasOptions
from nationbias.graphs.labels.parsing import VOTE_SCHEMA
from nationbias.graphs.model.client import ModelClient
from nationbias.graphs.model.http import ChatCompletionsClient
from nationbias.graphs.study.runner import RAMP_S, frozen_gc, run_async
from nationbias.graphs.study.sampling import SampleOptions, select_drafts, vote_tasks
from nationbias.graphs.study.simulate import run_debias_study, run_vote_study
from nationbias.graphs.study.study_run import StudyRun
from nationbias.graphs.vote import VOTE_MAX_TOKENS, vote_messages
from nationbias.stores.corpora.corpus import Corpus, load_corpus
from nationbias.stores.domain import VOTE_TESTS
from nationbias.stores.state.runstore import RunStore

LATENCY_S = 0.2
MODEL_SPEC = "openai-compatible:bench"
TARGET_EFFICIENCY = 0.90
TARGET_SPEEDUP = 50.0
REPEATS = 3
FINDINGS = """**Findings.** Profiles (cProfile, then py-spy) of the vote and debias studies at c=64 found
the client CPU-bound on its one event loop, or its calls leaving in bursts; each cause was fixed:
(1) httpcore's connection pool rescanned every connection per request (quadratic in the pool);
(2) the debias checkpointer fsynced every commit (`synchronous=FULL`);
(3) LangChain's wrapper and the openai SDK's request transform cost ~3 ms of CPU per call;
(4) `context_for_prompt` ran its regex on every call (now memoised per record);
(5) the run store deep-copied each sample;
(6) one checkpoint connection serialised all workers;
(7) the openai SDK over httpx (anyio, h11, httpcore) still cost ~2 ms per call: the hot path now speaks
the OpenAI wire protocol over aiohttp (`graphs/model/http.py`, C parser), as lm-eval-harness does;
(8) aiohttp's `trust_env` looked the proxy up in a worker thread on every request: it is read once;
(9) aiosqlite's thread hand-off per checkpoint statement: checkpoints are written inline, and run-store
rows and checkpoints finished in the same loop turn share one commit (`stores/state/sqlite.GroupCommit`);
with the response cache on, a debias sample checkpoints once, at its end (the cache already holds
every finished call);
(10) the CLI runs on uvloop, and a run freezes the long-lived heap (`gc.freeze`);
(11) all 64 workers started at once, so their calls left in one burst and came back in one; the loop
served each burst while interleaving LangGraph's hops, every sample ended late and the burst
re-formed every wave (per-call latency ~230 ms for 200 ms of server time). Workers now start 2 ms
apart, like a load generator's ramp-up (`graphs/study/runner.RAMP_S`), and the spacing holds;
(12) debias samples make 1, 3 or 5 chained calls: run in the given order, the last 5-call samples
left single workers running alone; samples now start longest first (retrieval is asked once per draft);
(13) debias sat on the 0.90 line (0.83–0.91 across earlier full runs). py-spy put ~20% of its CPU in
LangGraph's `SqliteSaver`, which re-serialised the whole state, every call's prompt included, at each
of a sample's up to 9 checkpoints: the call log is now a LangGraph `DeltaChannel`, so each node's new
entries are written once (a test counts every prompt's copies in the checkpoint file);
(14) a loop-iteration count showed 116 event-loop turns per 5-call sample: LangGraph runs a sync node
or router in a worker thread, and traces each conditional-edge router as a runnable of its own (a
task and shielded callbacks per step). Every node is now async and names its successor with
`Command(goto=...)`: 81 turns. With (13), the graph's CPU per call fell from 1.6 to 1.1 ms (in
process, against an instant model);
(15) without the cache, nodes checkpoint with durability "async" rather than "sync": the inline saver
still writes each checkpoint in the same loop turn, but the next node does not wait for the write's
task (49 turns on a sample's critical path). A SIGKILL test holds it to its promise: a kill repays at
most the calls on the wire;
(16) debias still measured 0.84–0.89 at ~2.75 ms of client CPU per call (~35 ms of wall per call above
the server's 200). Timestamps per sample at c=64 (on a busy VM, so every figure is inflated) found the
model client's own code ~0.1 ms per call; a reply reached its caller ~240 ms after the send (the reply
waits for the loop too); from one call's reply to the sample's next call took ~70 ms, from a sample's
start to its first call ~80 ms, from its last reply to its row ~115 ms. The wall goes to the turns a
sample waits on the loop (each turn waits behind every other sample's work) and to the CPU that makes
those turns long. py-spy split the CPU as LangGraph's engine ~47% (its callbacks 6%), the checkpoint
saver ~20% (`put` 6%, `put_writes` 6%, the commit 7%), aiohttp 16%, the nodes 7%, the model client 3%,
the run store 2%. `SqliteSaver` writes every plain channel into every checkpoint: the precedents
(written once) and the history (with its summaries) were re-serialised at each later step. Both are now
delta channels like the call log (checkpoint blobs 20 -> 14 MB per study; a test checks no checkpoint
carries them). A template's fields were re-parsed for every placeholder of every prompt (now parsed
once), and each reflection looked its statement up again for each repeat (now once per precedent,
persona, target);
(17) a turn count per sample (a self-rescheduling `call_soon`) put 27 of those 49 turns in
langchain_core's `on_chain_end`: it is `@shielded`, a task and a shield per call even with no handler
to run, and LangGraph calls it for every node and every graph. While a study runs
(`graphs/study/chain_end.py`), a run without handlers returns at once; with handlers (a tracer) the
shielded path is unchanged (tests). A sample's first call now comes 3 turns after its start (was 6),
a node hop takes 2 turns (5; 4 through update_history, was 10), its end 7 (13);
(18) a `gc.callbacks` probe found the cyclic GC's young generation collected ~550 times per study
(CPython's threshold: 700 net allocations), ~1 s of the client's CPU and pauses of up to 0.1 s on the
loop, walking in-flight states and tasks that hold no garbage. A run (`frozen_gc`, as the CLI runs it)
now sets that threshold to 20 000: 1–2 collections per study;
(19) SQLite's automatic WAL checkpoint ran inside the group commit on the loop once the WAL passed 1000
pages: a 4 MB copy and two fsyncs, ~23 ms on this VM's disk during which no sample moves, about 16
times per study (48 MB of checkpoints and 15 MB of rows). A worker thread on its own connection now
runs a PASSIVE checkpoint at most every 0.5 s (`stores/state/sqlite.GroupCommit`), so the WAL restarts
before the automatic one fires; the automatic checkpoint stays as the bound.

The floor row is the same vote requests from a bare aiohttp loop with the same ramp: what any Python
client can reach on this VM. What separates the studies from it is LangGraph's own per-step cost (a
task, callbacks and a checkpoint per node: ~40% of the debias study's CPU, py-spy), the run store and
aiohttp. Identical c=64 runs differ by up to ±0.04 on this VM, so c=64 is measured three times."""


@dataclass
class Measured:
    test: str
    concurrency: int
    samples: int
    calls: int
    wall_s: float
    server: str = "process"
    walls: list[float] = field(default_factory=list)  # every repeat, when measured more than once

    @property
    def bound_s(self) -> float:
        return self.calls * LATENCY_S / self.concurrency

    @property
    def efficiency(self) -> float:
        return self.bound_s / self.wall_s if self.wall_s > 0 else 0.0

    @property
    def per_call_s(self) -> float:
        return self.wall_s / max(1, self.calls)

    def spread(self) -> str:
        if len(self.walls) < 2:
            return ""
        effs = sorted(self.bound_s / w for w in self.walls)
        return f"median of {len(self.walls)} runs (efficiency {effs[0]:.3f}–{effs[-1]:.3f}); "


def _median_of(runs: list[Measured]) -> Measured:
    walls = [m.wall_s for m in runs]
    chosen = sorted(runs, key=lambda m: m.wall_s)[len(runs) // 2]
    chosen.wall_s = median(walls)
    chosen.walls = walls
    return chosen


def _client(base_url: str, wire: str = WIRES[0]) -> ModelClient:
    return on_wire(ModelClient.from_spec(MODEL_SPEC, base_url=base_url, cache=None), wire)


async def _run(
    test: str, base_url: str, corpus: Corpus, sample: SampleOptions, concurrency: int, wire: str = WIRES[0]
) -> Measured:
    client = _client(base_url, wire)
    with fresh_home(f"tp-{test}-{concurrency}"):
        store = RunStore()
        study = StudyRun(
            client=client,
            store=store,
            run_id=f"bench-{test}-c{concurrency}",
            sample=sample,
            concurrency=concurrency,
            show_progress=False,
        )
        if test == "vote":
            with frozen_gc():  # as the CLI runs a study
                summary = await run_vote_study(study, corpus=corpus)
        else:
            with frozen_gc():
                summary = await run_debias_study(study, corpus=corpus, options=DebiasOptions(k=1))
        store.close()
    if summary.error:
        raise RuntimeError(f"{test} at concurrency {concurrency}: {summary.first_errors}")
    return Measured(test, concurrency, summary.total, client.calls_made, summary.wall_s)


def _vote_requests(base_url: str, corpus: Corpus, sample: SampleOptions) -> list[dict[str, Any]]:
    """The vote study's request bodies, as the client sends them."""
    records = {r.id: r for r in corpus.records}
    tasks = vote_tasks("vote", select_drafts(corpus, sample), sample)
    fmt = _client(base_url).response_format(VOTE_SCHEMA, "vote")
    return [
        {
            "model": "bench",
            "messages": vote_messages(records[task.item], task.persona),
            "response_format": fmt,
            "temperature": 0.0,
            "seed": 1234,
            "max_tokens": VOTE_MAX_TOKENS,
        }
        for task in tasks
    ]


async def raw_floor(base_url: str, corpus: Corpus, sample: SampleOptions, concurrency: int) -> Measured:
    """The same requests from a bare aiohttp loop: no graph, no run store, no retries, no cache."""
    requests = _vote_requests(base_url, corpus, sample)
    client = ChatCompletionsClient(base_url=base_url, api_key="not-needed", timeout=60)
    queue = list(reversed(requests))

    async def worker(lane: int) -> None:
        await asyncio.sleep(lane * RAMP_S)  # the same ramp as the runner, for a like-for-like floor
        while queue:
            await client.create(queue.pop())

    started = time.perf_counter()
    await asyncio.gather(*(worker(lane) for lane in range(concurrency)))
    wall = time.perf_counter() - started
    await client.aclose()
    return Measured("raw aiohttp floor", concurrency, len(requests), len(requests), wall)


def sequential_loop(base_url: str, corpus: Corpus, sample: SampleOptions) -> tuple[int, float]:
    """The research-script baseline: one synchronous ``openai.OpenAI`` call after another."""
    import openai

    requests = _vote_requests(base_url, corpus, sample)
    client = openai.OpenAI(base_url=base_url, api_key="not-needed", max_retries=0)
    started = time.perf_counter()
    for request in requests:
        client.chat.completions.create(**request)
    wall = time.perf_counter() - started
    client.close()
    return len(requests), wall


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
    top = max(levels)
    repeats = 1 if quick else REPEATS
    # The paper's study (5 personas × 3 repeats) on 64 of the 66 drafts: a whole number of waves at
    # concurrency 64 (all 66 would end on a partial wave, which alone caps efficiency at 0.97).
    full_vote = SampleOptions(limit=13 if quick else 64, repeats=1 if quick else 3)
    full_debias = SampleOptions(limit=13 if quick else 64, repeats=1 if quick else 3)
    slice_c1 = SampleOptions(limit=2 if quick else 6, repeats=1)
    slice_debias_low = SampleOptions(limit=2 if quick else 3, repeats=1)
    slice_debias_c8 = SampleOptions(limit=4 if quick else 20, repeats=1)
    results: list[Measured] = []
    with fault_server_process(LATENCY_S) as base_url:
        run_async(_run("vote", base_url, corpus, slice_c1, 2))  # warm-up: imports, prompt registry
        for test in VOTE_TESTS:
            for level in levels:
                if test == "vote":
                    sample = slice_c1 if level == 1 else full_vote
                else:
                    sample = {1: slice_debias_low, 8: slice_debias_c8}.get(level, full_debias)
                runs = [
                    run_async(_run(test, base_url, corpus, sample, level))
                    for _ in range(repeats if level == top else 1)
                ]
                results.append(_median_of(runs))
        floor = _median_of([run_async(raw_floor(base_url, corpus, full_vote, top)) for _ in range(repeats)])
        study = {"test": "vote", "base_url": base_url, "corpus": corpus, "sample": full_vote}
        transport.compare(section, _run, concurrency=top, repeats=repeats, **study)
        seq_calls, seq_wall = sequential_loop(base_url, corpus, slice_c1)
    with _inprocess_server() as base_url:
        inproc = run_async(_run("vote", base_url, corpus, full_vote, top))
        inproc.server = "in-process"

    full_calls = {m.test: m.calls for m in results if m.concurrency == top}
    for m in results:
        extrapolated = m.calls != full_calls[m.test]
        scope = f"{m.samples} samples, {m.calls} calls"
        if extrapolated:
            projected = m.per_call_s * full_calls[m.test]
            scope += f" (a slice: full study {full_calls[m.test]} calls ≈ {fmt_s(projected)}, per call)"
        ok = m.efficiency >= TARGET_EFFICIENCY if m.concurrency == top else None
        section.add(
            f"{m.test} c={m.concurrency}: efficiency",
            f"{m.efficiency:.3f}",
            f"≥ {TARGET_EFFICIENCY}" if m.concurrency == top else "",
            ok,
            f"{m.spread()}wall {fmt_s(m.wall_s)} vs bound {fmt_s(m.bound_s)}; {scope}",
        )
    top_vote = next(m for m in results if m.test == "vote" and m.concurrency == top)
    section.add(
        f"floor: bare aiohttp loop, same vote requests, c={top}",
        f"{floor.efficiency:.3f}",
        note=f"{floor.spread()}wall {fmt_s(floor.wall_s)}; vote study ÷ floor = "
        f"{top_vote.efficiency / floor.efficiency:.2f}",
    )
    section.add(
        f"vote c={inproc.concurrency}, server in-process: efficiency",
        f"{inproc.efficiency:.3f}",
        note=f"wall {fmt_s(inproc.wall_s)}; same study with the server sharing the client's process",
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
        f"extrapolated to {top_vote.calls} calls = {fmt_s(projected_seq)}; runner {fmt_s(top_vote.wall_s)} "
        "(median)",
    )
    section.notes.append(
        f"Vote: {full_vote.limit} of the {n_drafts} drafts × 5 personas × {full_vote.repeats} repeat(s) "
        f"({full_calls['vote']} calls: whole waves at concurrency {top}); "
        f"debias k=1 (keyword retriever, reflexion on) over {full_debias.limit} drafts × 5 personas "
        f"× {full_debias.repeats} repeat(s) (1 to 5 chained calls per sample). "
        "Concurrency 1 (and debias at 8) run on a smaller slice: their wall time is per call of that slice; "
        "efficiency is a ratio and needs no extrapolation. Wall time is the runner's (`RunSummary.wall_s`), "
        "study setup (corpus, augmented fields, graph build) excluded. Calls: `ModelClient.calls_made`; "
        f"`--no-cache` (cache=None). Event loop: uvloop, as the CLI. c={top} is run {repeats}× and the "
        "median reported (this VM's noise between identical runs is about ±0.04)."
    )
    section.notes.append(FINDINGS)
    return section
