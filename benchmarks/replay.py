"""Cached replay: a full-size study answered entirely from the response cache.

The cache is filled once against the fault server (latency 0; not timed as replay). The server is
then stopped, and the same studies run again under new run ids, with a fresh run store and fresh
checkpoints but the same cache: every call must be a hit (``calls_made`` stays 0), and the wall
time over the number of calls is the per-call overhead of the whole stack (graph, cache lookup,
run store write).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.common import Section, fault_server_process, fmt_s, fresh_home
from nationbias.graphs.debias import DebiasOptions
from nationbias.graphs.model.call_result import CallResult
from nationbias.graphs.model.client import ModelClient
from nationbias.graphs.study.explicit import run_association_study, run_directqa_study
from nationbias.graphs.study.runner import RunSummary, frozen_gc, run_async
from nationbias.graphs.study.sampling import SampleOptions
from nationbias.graphs.study.simulate import run_debias_study, run_vote_study
from nationbias.graphs.study.study_run import StudyRun
from nationbias.stores.corpora.corpus import Corpus, load_corpus
from nationbias.stores.state.cache import ResponseCache
from nationbias.stores.state.runstore import RunStore

MODEL_SPEC = "openai-compatible:bench"
TARGET_WALL_S = 60.0
TARGET_PER_CALL_S = 0.005
CONCURRENCY = 8


@dataclass
class Plan:
    families: int | None  # DirectQA families (None: all 11)
    keywords: int | None  # Association Test keywords (None: all 48)
    drafts: int | None  # vote and debias drafts (None: all 66)
    repeats: int


FULL = Plan(families=None, keywords=None, drafts=None, repeats=3)
QUICK = Plan(families=1, keywords=2, drafts=2, repeats=1)


class CountingClient(ModelClient):
    """A ModelClient that counts every :meth:`call` (hits included), for the per-call overhead."""

    calls_seen: int = 0

    async def call(self, messages: list[dict[str, str]], **kwargs: Any) -> CallResult:
        self.calls_seen += 1
        return await super().call(messages, **kwargs)


def _client(base_url: str, cache: ResponseCache) -> CountingClient:
    client = CountingClient.from_spec(MODEL_SPEC, base_url=base_url, cache=cache)
    assert isinstance(client, CountingClient)
    return client


async def _studies(
    client: ModelClient, corpus: Corpus, store: RunStore, prefix: str, plan: Plan
) -> list[RunSummary]:
    def sample(limit: int | None) -> SampleOptions:
        return SampleOptions(limit=limit, repeats=plan.repeats)

    def run(test: str, limit: int | None) -> StudyRun:
        return StudyRun(
            client=client,
            store=store,
            run_id=f"{prefix}-{test}",
            sample=sample(limit),
            concurrency=CONCURRENCY,
            show_progress=False,
        )

    steps: list[Callable[[], Awaitable[RunSummary]]] = [
        lambda: run_directqa_study(run("directqa", plan.families)),
        lambda: run_association_study(run("association", plan.keywords)),
        lambda: run_vote_study(run("vote", plan.drafts), corpus=corpus),
        lambda: run_debias_study(run("debias", plan.drafts), corpus=corpus, options=DebiasOptions(k=1)),
    ]
    summaries = []
    for step in steps:
        summaries.append(await step())
    return summaries


def run(quick: bool = False) -> Section:
    plan = QUICK if quick else FULL
    section = Section("replay", "Cached replay (full-size study from the response cache)")
    corpus = load_corpus()
    with fresh_home("replay-fill") as fill_home:
        cache_path = fill_home / "cache.sqlite"
        with fault_server_process(0.0) as base_url:
            cache = ResponseCache(cache_path)
            filler = _client(base_url, cache)
            started = time.perf_counter()
            filled = run_async(_studies(filler, corpus, RunStore(), "fill", plan))
            fill_wall = time.perf_counter() - started
            cache.close()
        # The server is gone: a replay that missed the cache would fail (and calls_made would move).
        replay_s, replayer, replayed = _replay(base_url, corpus, cache_path, plan)
    samples = sum(s.total for s in replayed)
    errors = sum(s.error for s in replayed) + sum(s.error for s in filled)
    calls = replayer.calls_seen
    per_call = replay_s / max(1, calls)
    section.add(
        "replay wall time",
        fmt_s(replay_s),
        f"< {TARGET_WALL_S:g} s",
        replay_s < TARGET_WALL_S,
        f"{samples} samples, {calls} model calls all from the cache "
        f"(network calls during replay: {replayer.calls_made}); errors: {errors}",
    )
    section.add(
        "replay overhead per call (wall ÷ calls)",
        fmt_s(per_call),
        f"< {TARGET_PER_CALL_S * 1000:g} ms",
        per_call < TARGET_PER_CALL_S,
        f"concurrency {CONCURRENCY}; includes graph runs, cache lookups, run store and checkpoint writes",
    )
    section.add(
        "cache fill (not replay)",
        fmt_s(fill_wall),
        "",
        None,
        f"{filler.calls_made} requests to the fault server at 0 ms latency, concurrency {CONCURRENCY}",
    )
    for summary in replayed:
        section.notes.append(f"replay `{summary.run_id}`: {summary.total} samples in {fmt_s(summary.wall_s)}")
    if replayer.calls_made:
        section.notes.append("WARNING: the replay made network calls: the cache did not cover the study")
    return section


def _replay(
    base_url: str, corpus: Corpus, cache_path: Path, plan: Plan
) -> tuple[float, CountingClient, list[RunSummary]]:
    with fresh_home("replay-run") as replay_home:
        cache = ResponseCache(cache_path)
        client = _client(base_url, cache)
        store = RunStore(replay_home / "runs.sqlite")
        started = time.perf_counter()
        with frozen_gc():  # as the CLI runs a study
            summaries = run_async(_studies(client, corpus, store, "replay", plan))
        wall = time.perf_counter() - started
        store.close()
        cache.close()
    return wall, client, summaries
