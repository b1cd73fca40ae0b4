"""A study against the real fault-injecting server (429 with Retry-After, 500, 503, client timeouts,
malformed JSON, truncated bodies, empty content) completes; what still fails after the retries is
recorded with its reason and counted, never cached, and `--retry-errors` re-asks only those prompts."""

from __future__ import annotations

import asyncio
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from nationbias.evals.cli.main import app
from nationbias.evals.results import results
from nationbias.graphs.debias import DebiasOptions
from nationbias.graphs.model.client import ModelClient
from nationbias.graphs.model.registry import GenerationParams, parse_spec
from nationbias.graphs.model.retry import RetryPolicy
from nationbias.graphs.study.sampling import SampleOptions
from nationbias.graphs.study.simulate import run_debias_study, run_vote_study
from nationbias.graphs.study.study_run import StudyRun
from nationbias.stores.corpora.corpus import Corpus
from nationbias.stores.state.cache import ResponseCache
from nationbias.stores.state.runstore import RunStore
from tests.support.fake_answers import prompt_key
from tests.support.fault_server import FaultConfig, FaultServer
from tests.support.fixtures import FaultServerFactory
from tests.support.reliability import MODEL, cache_entries, rows

FAULTS: dict[str, Any] = {
    "latency_s": 0.01,
    "rate_429": 0.08,
    "rate_500": 0.08,
    "rate_503": 0.08,
    "rate_timeout": 0.06,
    "rate_malformed_json": 0.08,
    "rate_truncated": 0.08,
    "rate_empty": 0.08,
    "retry_after": "0.05",
    "hang_s": 3.0,  # above the client's 0.5 s timeout: a real client-side timeout
    "seed": 11,
}
# What the last attempt's fault looks like in the stored error text.
FAULT_TEXT = re.compile(
    r"\w+ (429: .*rate limited|500: .*internal error|503: .*unavailable) \(injected\)"
    r"|RequestTimeout: no answer within [\d.]+ s"
    r"|(TransportError|ConnectionFailed): \w+: .+"
    r"|BrokenAnswer: .+"
    r"|EmptyAnswer: the model returned empty content"
)
VOTE = SampleOptions(limit=12, repeats=1)  # 60 samples
DEBIAS = SampleOptions(limit=3, repeats=1)  # 15 samples, up to 5 calls each


def _client(server: FaultServer) -> ModelClient:
    """Two attempts and a short timeout, so faults outlast the retries often enough to be seen."""
    return ModelClient(
        spec=parse_spec(MODEL, base_url=server.base_url),
        params=GenerationParams(timeout=0.5),
        cache=ResponseCache(),
        retry=RetryPolicy(max_attempts=2, initial_delay=0.01, max_delay=0.2),
    )


def _asked(server: FaultServer, before: dict[str, Any]) -> Counter[str]:
    old = before["prompts"]
    asked = {k: v["total"] - old.get(k, {}).get("total", 0) for k, v in server.stats()["prompts"].items()}
    return Counter({k: n for k, n in asked.items() if n})


@pytest.mark.timeout(300)
def test_faults_are_recorded_counted_never_cached_and_retried_alone(
    fault_server: FaultServerFactory,
    isolated_home: Path,
    corpus: Corpus,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    server = fault_server(**FAULTS)
    store = RunStore()
    vote = asyncio.run(
        run_vote_study(
            StudyRun(
                client=_client(server),
                store=store,
                run_id="faulty-vote",
                sample=VOTE,
                concurrency=8,
                show_progress=False,
            ),
            corpus=corpus,
        )
    )
    debias = asyncio.run(
        run_debias_study(
            StudyRun(
                client=_client(server),
                store=store,
                run_id="faulty-debias",
                sample=DEBIAS,
                concurrency=8,
                show_progress=False,
            ),
            corpus=corpus,
            options=DebiasOptions(k=1),
        )
    )
    seen = server.stats()["by_outcome"]
    assert {"429", "500", "503", "timeout", "malformed_json", "truncated", "empty", "ok"} <= set(seen), seen

    # the study completed: every sample has a row; failures carry their reason and are counted
    for summary, run_id, total in ((vote, "faulty-vote", 60), (debias, "faulty-debias", 15)):
        stored = rows(isolated_home, run_id)
        assert summary.total == summary.done == len(stored) == total
        failed = [r for r in stored if r["status"] == "error"]
        assert summary.error == len(failed)
        for row in failed:
            assert FAULT_TEXT.search(row["error"]), row["error"]
            assert row["parsed"] is None  # a broken body that was paid for is kept; nothing else answered
            assert row["raw"] is None or row["error"].startswith("BrokenAnswer"), row["error"]
        table = results(run_id)["invalid"]
        assert (int(table["error"].sum()), int(table["ok"].sum())) == (summary.error, summary.ok)
        assert int(table["invalid"].sum()) == summary.invalid
    assert vote.error > 0 and debias.error > 0

    # no error is cached: one entry per successful call, each with an answer
    entries = cache_entries(isolated_home)
    ok_calls = sum(r["status"] != "error" for r in rows(isolated_home, "faulty-vote"))
    debias_rows = rows(isolated_home, "faulty-debias")
    ok_calls += len(
        {prompt_key(c["messages"]) for r in debias_rows for c in r["extra"]["calls"] if not c["error"]}
    )
    assert len(entries) == ok_calls
    assert all(e["error"] is None and e["raw"].strip() for e in entries)

    # --retry-errors on a healthy server re-asks exactly the failed samples' prompts
    failed_vote = {
        prompt_key(r["messages"]) for r in rows(isolated_home, "faulty-vote") if r["status"] == "error"
    }
    retried_debias = [r["sample_id"] for r in debias_rows if r["status"] == "error"]
    server.config = FaultConfig(latency_s=0.01)
    monkeypatch.setenv("NATIONBIAS_BASE_URL", server.base_url)
    for run_id, extra in (
        ("faulty-vote", ["--limit", "12"]),
        ("faulty-debias", ["--debias", "--limit", "3"]),
    ):
        before = server.stats()
        args = ["run", "vote", "-m", MODEL, *extra, "--repeats", "1", "--run-id", run_id, "--retry-errors"]
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 0, result.output
        asked = _asked(server, before)
        after = {r["sample_id"]: r for r in rows(isolated_home, run_id)}
        assert all(r["status"] == "ok" for r in after.values())
        if run_id == "faulty-vote":
            assert dict(asked) == dict.fromkeys(failed_vote, 1)
        else:
            # only the failed samples' calls (their successful earlier calls come from the cache)
            own = {prompt_key(c["messages"]) for s in retried_debias for c in after[s]["extra"]["calls"]}
            assert asked and set(asked) <= own and max(asked.values()) == 1
            for sample in retried_debias:  # a fresh graph: no failed call of the first attempt left over
                calls = after[sample]["extra"]["calls"]
                assert after[sample]["model_calls"] == len(calls) and not any(c["error"] for c in calls)
                assert calls[-1]["node"] == "final_vote"
    assert len(cache_entries(isolated_home)) == 60 + len(
        {prompt_key(c["messages"]) for r in rows(isolated_home, "faulty-debias") for c in r["extra"]["calls"]}
    )
