"""Reading OpenAI batch output files into the response cache, the same way an online answer is stored.

Used by batch mode when a batch ends and by ``nationbias batch import`` (a file an offline runner
such as vLLM's ``run_batch`` wrote). The whole file is checked before anything is written: a line
that is not JSON, lacks a custom id, names a request the run never made, or repeats one is an
error naming its line number. Ingesting twice is harmless (the cache is keyed by custom id), so a
kill during ingest loses nothing: the resumed run ingests again.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from nationbias.graphs.model.answer_shape import body_budget
from nationbias.graphs.model.batch.calls import Endpoint
from nationbias.graphs.model.call_result import Answer, CallResult, answer_from_json
from nationbias.graphs.model.retry import CallError
from nationbias.stores.errors import InputError
from nationbias.stores.state.batches import BatchStore, Outcome
from nationbias.stores.state.cache import ResponseCache


class BatchFileError(InputError):
    """A batch output file that cannot be ingested as a whole (nothing of it is written)."""


@dataclass(frozen=True)
class OutputLine:
    number: int
    custom_id: str
    status: int | None
    body: dict[str, Any] | None
    error: str | None
    answer: Answer | None = None  # a 200's body, read and checked (graphs/model/answer_shape.py)


def parse_output(
    text: str, *, source: str, known: Mapping[str, dict[str, Any]], strict: bool = True
) -> list[OutputLine]:
    """Every line of an OpenAI batch output (or error) file, checked against ``known`` (the run's
    requests by custom id); raises on the first bad one, so nothing of a bad file is written: an
    answer whose numbers or shape are not a chat completion's names its line too.
    ``strict=False`` (a batch the run found on its server) skips lines for requests it never made, and
    an answered line that is no answer fails (asked again next round) instead of the whole file."""
    lines: list[OutputLine] = []
    seen: dict[str, int] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        where = f"{source} line {number}"
        try:
            record = json.loads(raw)
        except ValueError as exc:
            raise BatchFileError(f"{where}: not JSON ({exc})") from None
        if not isinstance(record, dict) or not isinstance(record.get("custom_id"), str):
            raise BatchFileError(f"{where}: not a batch output line (no custom_id)")
        cid = record["custom_id"]
        if cid not in known and not strict:
            continue
        if cid not in known:
            raise BatchFileError(f"{where}: unknown custom_id {cid[:80]!r}: no request of this run has it")
        if cid in seen:
            raise BatchFileError(f"{where}: custom_id {cid[:16]}… repeats line {seen[cid]}")
        seen[cid] = number
        response, error = record.get("response"), record.get("error")
        if response is None and not error:
            raise BatchFileError(f"{where}: neither a response nor an error")
        if response is not None and (
            not isinstance(response, dict) or not isinstance(response.get("status_code"), int)
        ):
            raise BatchFileError(f"{where}: response has no integer status_code")
        body = response.get("body") if isinstance(response, dict) else None
        if body is not None and not isinstance(body, dict):
            raise BatchFileError(f"{where}: response body is not a JSON object")
        status = response["status_code"] if isinstance(response, dict) else None
        line = OutputLine(number, cid, status, body, _reason(error) if error else None)
        if status == 200 and body is not None and not error:
            try:
                answer = answer_from_json(body, max_tokens=body_budget(known[cid].get("body") or {}))
            except CallError as exc:
                if strict:
                    raise BatchFileError(f"{where}: {exc}") from None
                line = OutputLine(number, cid, status, body, f"{type(exc).__name__}: {exc}"[:300])
            else:
                line = OutputLine(number, cid, status, body, None, answer)
        lines.append(line)
    return lines


def _reason(error: Any) -> str:
    if isinstance(error, dict):
        code, message = error.get("code"), error.get("message")
        return ": ".join(str(part) for part in (code, message) if part) or json.dumps(error)[:200]
    return str(error)[:200]


def _outcome(line: OutputLine, request: dict[str, Any], cache: ResponseCache) -> Outcome:
    """Put one answered line into the cache as an online answer; or say why it failed."""
    answer = line.answer
    if line.error or line.status != 200 or answer is None:
        detail = line.error or _reason((line.body or {}).get("error") or "no body")
        return Outcome(line.custom_id, False, f"HTTP {line.status}: {detail}" if line.status else detail)
    if not answer.raw.strip() and not answer.reasoning and answer.finish_reason != "length":
        return Outcome(line.custom_id, False, "the model returned empty content")
    sent = request["body"]
    max_tokens = sent.get("max_tokens", sent.get("max_completion_tokens"))
    endpoint = Endpoint.from_group(request["grp"])
    result = CallResult.from_answer(answer, 0.0, 1, max_tokens)
    cache.put(line.custom_id, provider=endpoint.provider, model=endpoint.model, response=result.as_dict())
    if delay := float(os.environ.get("NATIONBIAS_BATCH_INGEST_DELAY_S", "0") or 0):
        time.sleep(delay)  # a test hook: time to kill the process in the middle of an ingest
    return Outcome(line.custom_id, True, None, answer.prompt_tokens, answer.completion_tokens)


def ingest(
    lines: list[OutputLine],
    *,
    store: BatchStore,
    cache: ResponseCache,
    run_id: str,
    requests: dict[str, dict[str, Any]],
    final: bool,
) -> list[Outcome]:
    """Cache every answered line, then record all outcomes per (round, endpoint) in one transaction
    each. ``final``: the batch is over, so a request it did not answer failed; otherwise (an import)
    a round is over once none of its requests is pending."""
    outcomes = [_outcome(line, requests[line.custom_id], cache) for line in lines]
    by_round: dict[tuple[int, str], list[Outcome]] = {}
    for outcome in outcomes:
        request = requests[outcome.custom_id]
        by_round.setdefault((request["round"], request["grp"]), []).append(outcome)
    if final:
        for request in requests.values():
            by_round.setdefault((request["round"], request["grp"]), [])
    for (number, grp), found in by_round.items():
        covered = {o.custom_id for o in found}
        rest = [
            r
            for r in requests.values()
            if (r["round"], r["grp"]) == (number, grp)
            and r["status"] == "pending"
            and r["custom_id"] not in covered
        ]
        store.ingested(run_id, number, grp, found, final=final or not rest)
    return outcomes
