"""Degenerate answers end to end: the real fault server answers each draft with one degenerate reply,
`nationbias run vote` stores each with its defined label, and the counts reach results()["invalid"]."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from nationbias.evals.cli.main import app
from nationbias.evals.results import results
from nationbias.graphs.model.retry import RetryPolicy
from nationbias.graphs.study.sampling import SampleOptions, select_drafts
from nationbias.stores.corpora.corpus import Corpus
from tests.support.fixtures import FaultServerFactory
from tests.support.reliability import MODEL, cache_entries, rows

# case: (content, status, parse_error, parsed vote)
CASES: dict[str, tuple[str, str, str | None, str | None]] = {
    "template_echo": (
        '{"vote": "favour | against | abstention", "rationale": "<why>"}',
        "invalid",
        "template_echo",
        None,
    ),
    "repetition_loop": ("We support peace. " * 12, "invalid", "repetition_loop", None),
    "empty": ("", "error", None, None),  # retried, then an error: never cached, never an answer
    "refusal": (
        "I'm sorry, but I cannot take a position on this draft resolution.",
        "invalid",
        "refusal",
        None,
    ),
    "other_language": (
        "Nous votons contre ce projet de résolution parce qu'il menace notre souveraineté.",
        "invalid",
        "other_language",
        None,
    ),
    "extra_keys": (
        '{"vote": "against", "rationale": "It harms us.", "confidence": 0.9}',
        "ok",
        None,
        "against",
    ),
    "missing_key": ('{"rationale": "It protects civilians."}', "invalid", "json_missing_key", None),
    "two_options": (
        '{"vote": "favour and against", "rationale": "Both."}',
        "invalid",
        "multiple_options",
        None,
    ),
}


@pytest.mark.timeout(120)
def test_each_degenerate_answer_gets_its_label_through_run_vote(
    fault_server: FaultServerFactory, corpus: Corpus, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    drafts = select_drafts(corpus, SampleOptions(limit=len(CASES), seed=0, repeats=1, personas="USA"))
    case_of = dict(zip((d.id for d in drafts), CASES, strict=True))

    def responder(body: dict[str, Any]) -> str:
        text = json.dumps(body["messages"])
        (draft,) = [d for d in case_of if f'\\"{d}\\"' in text]  # the quoted draft symbol
        return CASES[case_of[draft]][0]

    server = fault_server(responder=responder)
    monkeypatch.setenv("NATIONBIAS_BASE_URL", server.base_url)
    # the empty answer is retried (every attempt still made), 10 ms apart: the backoff's length is
    # tests/graphs/test_retry.py's, and waited in full it left a core idle for about 4 s
    monkeypatch.setattr(RetryPolicy, "delay", lambda policy, attempt, retry_after: 0.01)
    args = ["run", "vote", "-m", MODEL, "--limit", str(len(CASES)), "--repeats", "1", "--personas", "USA"]
    result = CliRunner().invoke(app, [*args, "--run-id", "degenerate", "--fail-on-error", "1"])
    assert result.exit_code == 0, result.output  # the empty answer is the one error tolerated

    stored = {r["item"]: r for r in rows(isolated_home, "degenerate")}
    assert set(stored) == set(case_of)
    for draft, case in case_of.items():
        _, status, reason, vote = CASES[case]
        row = stored[draft]
        got = (row["status"], row["parse_error"], (row["parsed"] or {}).get("vote"))
        assert got == (status, reason, vote), case
        if case == "empty":
            assert "empty content" in row["error"] and row["raw"] is None
        else:
            assert row["raw"] == CASES[case][0] and row["error"] is None  # the raw text is kept
    table = results("degenerate")["invalid"].set_index("persona")
    counts = table.loc["USA"].to_dict()
    assert [counts[c] for c in ("n", "ok", "invalid", "error")] == [8, 1, 6, 1]
    assert len(cache_entries(isolated_home)) == 7  # every answer but the empty one
