"""Batch mode's rounds: replay the graphs from the cache, batch what they still need, wait, ingest.

One round runs every sample not done yet through the real graphs with :data:`BATCH` set: a sample
whose calls are all cached completes and is written; the others defer (graphs/model/batch/calls.py). The
round's deferred calls become one batch per endpoint, recorded before submission; once it ends its
answers enter the cache, and the next round advances every sample by (at least) one call. A round
with nothing deferred has written every row: the run is complete. The cache replay is the durable
checkpoint, so a run resumed after a kill settles its open batches first, then goes on.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Any

from rich.console import Console

from nationbias.graphs.model.batch.api import BatchClient
from nationbias.graphs.model.batch.calls import BATCH, BatchRound, Endpoint, batch_line
from nationbias.graphs.model.batch.ingest import ingest, parse_output
from nationbias.graphs.study.runner import RunSummary
from nationbias.graphs.terminal_text import plain
from nationbias.stores.state.batches import BatchStore, RoundRow
from nationbias.stores.state.cache import ResponseCache

console = Console(stderr=True)
ENDED = ("completed", "failed", "expired", "cancelled")


def poll_seconds() -> float:
    """How often a running batch is asked for its state (``NATIONBIAS_BATCH_POLL_S``, default 30 s)."""
    return float(os.environ.get("NATIONBIAS_BATCH_POLL_S", "30") or 30)


def input_lines(requests: list[dict[str, Any]]) -> bytes:
    """OpenAI's batch input format, one request a line (``batch export`` writes the same)."""
    lines = [json.dumps(batch_line(str(r["custom_id"]), r["body"]), ensure_ascii=False) for r in requests]
    return ("\n".join(lines) + "\n").encode("utf-8")


@dataclass(kw_only=True)
class BatchRun:
    """One run in batch mode: its stores, and how it waits and talks."""

    run_id: str
    store: BatchStore
    cache: ResponseCache
    offline: bool = False  # record rounds only: export, run elsewhere, import, rerun
    show_progress: bool = True
    resume: str = ""  # the command that picks the run up again
    poll_s: float = field(default_factory=poll_seconds)

    def _metadata(self, row: RoundRow) -> dict[str, str]:
        group = hashlib.sha256(row.grp.encode()).hexdigest()[:16]
        return {"nationbias_run": self.run_id, "nationbias_round": str(row.round), "nationbias_group": group}

    async def settle(self) -> list[RoundRow]:
        """Submit, wait for and ingest every open round; offline, return those still waiting."""
        waiting = []
        for row in self.store.rounds(self.run_id, open_only=True):
            if self.offline:
                waiting.append(row)
                continue
            async with BatchClient(Endpoint.from_group(row.grp)) as api:
                batch_id = row.batch_id or await self._submit(api, row)
                await self._finish(api, row, batch_id)
        return waiting

    async def _submit(self, api: BatchClient, row: RoundRow) -> str:
        """Find the batch a kill kept from being recorded, or upload the round's file and create it.

        The uploaded file's id is recorded before the batch is created, so the batch made from it
        is found again (or, by its metadata, on servers that keep metadata)."""
        metadata = self._metadata(row)
        batch = await api.find(metadata, row.input_file)
        if batch is None:
            input_file = row.input_file
            if input_file is None:
                content = input_lines(self.store.requests(self.run_id, row.round, grp=row.grp))
                input_file = await api.upload(content, name=f"{self.run_id}-round{row.round}.jsonl")
                self.store.uploaded(row, input_file=input_file)
            batch = await api.create(input_file, metadata=metadata)
        self.store.submitted(row, batch_id=str(batch["id"]))
        return str(batch["id"])

    async def _finish(self, api: BatchClient, row: RoundRow, batch_id: str) -> None:
        batch = await self._wait(api, row, batch_id)
        requests = {r["custom_id"]: r for r in self.store.requests(self.run_id, row.round, grp=row.grp)}
        text = ""
        for file_id in (batch.get("output_file_id"), batch.get("error_file_id")):
            if file_id:
                text += (await api.content(str(file_id))).decode("utf-8") + "\n"
        lines = parse_output(text, source=f"batch {batch_id} output", known=requests, strict=False)
        ingest(lines, store=self.store, cache=self.cache, run_id=self.run_id, requests=requests, final=True)

    async def _wait(self, api: BatchClient, row: RoundRow, batch_id: str) -> dict[str, object]:
        """Poll until the batch ends; Ctrl-C leaves it running on the server."""
        status = console.status("", spinner="dots") if self.show_progress else None
        last = None
        try:
            if status is not None:
                status.start()
            while True:
                batch = await api.get(batch_id)
                if batch.get("status") != last:
                    self.store.server_state(row, batch)
                    last = batch.get("status")
                counts = batch.get("request_counts") or {}
                if status is not None:
                    status.update(
                        plain(
                            f"round {row.round}: batch {batch_id} {last} · {counts.get('completed', 0)}/"
                            f"{counts.get('total', row.requests)} done · {counts.get('failed', 0)} failed"
                        )
                    )
                if last in ENDED:
                    return batch
                await asyncio.sleep(self.poll_s)
        except (asyncio.CancelledError, KeyboardInterrupt):
            console.print(
                plain(
                    f"batch {batch_id} keeps running on the server; resume: nationbias runs resume "
                    f"{self.run_id}" + (f" (or {self.resume})" if self.resume else "")
                ),
                highlight=False,
                soft_wrap=True,
            )
            raise
        finally:
            if status is not None:
                status.stop()


def _merge(total: RunSummary | None, summary: RunSummary) -> RunSummary:
    """A run's summary over its rounds: rows written by any round, skipped as before the first."""
    if total is None:
        return replace(summary, first_errors=list(summary.first_errors))
    total.ok, total.invalid = total.ok + summary.ok, total.invalid + summary.invalid
    total.error, total.wall_s = total.error + summary.error, total.wall_s + summary.wall_s
    total.first_errors = (total.first_errors + summary.first_errors)[:5]
    total.errored, total.unsaved = summary.errored, summary.unsaved
    return total


async def run_rounds(batch: BatchRun, one_round: Callable[[], Awaitable[RunSummary]]) -> RunSummary:
    """Rounds until one defers nothing (the run is complete) or, offline, until a round waits."""
    total: RunSummary | None = None
    while True:
        waiting = await batch.settle()
        collector = BatchRound(failures=batch.store.failures(batch.run_id))
        token = BATCH.set(collector)
        try:
            total = _merge(total, await one_round())
        finally:
            BATCH.reset(token)
        if not collector.pending:
            return total
        if not waiting:
            rounds = batch.store.rounds(batch.run_id)
            number = max((r.round for r in rounds), default=0) + 1
            pending = {cid: (endpoint.group, body) for cid, (endpoint, body) in collector.pending.items()}
            batch.store.record_round(batch.run_id, number, pending)
            console.print(
                f"round {number}: {len(pending)} call(s) of {collector.deferred} waiting sample(s) "
                "go into a batch",
                highlight=False,
            )
        if batch.offline:
            _say_offline(batch)
            return total


def _say_offline(batch: BatchRun) -> None:
    for row in batch.store.rounds(batch.run_id, open_only=True):
        console.print(
            f"round {row.round} waits for {row.requests - row.done - row.failed} answer(s): "
            f"nationbias batch export {batch.run_id} --round {row.round} > requests.jsonl; run it "
            f"(e.g. vLLM's run_batch); nationbias batch import {batch.run_id} results.jsonl; then "
            f"{batch.resume or 'rerun the same command'}",
            highlight=False,
            soft_wrap=True,
        )
