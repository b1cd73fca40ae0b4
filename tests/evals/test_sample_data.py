"""The sample browser's data: what the index codes, how details are chunked and deduplicated, how the
scripts are escaped, and what the writer leaves beside the report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from nationbias.evals.bias_tests import get_test
from nationbias.evals.report import sample_data
from nationbias.evals.report.context import Run
from nationbias.evals.report.sample_browser import write_sample_browser
from nationbias.evals.report.sample_data import build, js_call, label_of, outcome_of

SYSTEM = "You are a careful analyst. </script><script>alert(1)</script>"


def sample(item: str, persona: str, repeat: int = 0, **changes: Any) -> dict[str, Any]:
    row = {
        "run_id": "r", "sample_id": f"vote|{item}|{persona}||r{repeat}", "test": "vote", "item": item,
        "persona": persona, "pair_order": "", "repeat": repeat, "status": "ok",
        "messages": [{"role": "system", "content": SYSTEM},
                     {"role": "user", "content": f"Vote on {item} as {persona}.\u2028 Ünïcode"}],
        "raw": '<think>weighing</think>{"vote": "favour"}', "parsed": {"vote": "favour"}, "parse_error": None,
        "error": None, "latency_s": 0.25, "prompt_tokens": 100, "completion_tokens": 9, "model_calls": 1,
        "extra": {"truth": "favour", "reasoning": None}, "created": 0.0,
    }  # fmt: skip
    row.update(changes)
    return row


def run_of(rows: list[dict[str, Any]], *, test: str = "vote", run_id: str = "r") -> Run:
    config = {"test": test, "model": "openai-compatible:m"}
    return Run(run_id, config, pd.DataFrame(rows), {}, kind=get_test(test))


def payload(script: str, callback: str) -> Any:
    assert script.startswith(callback + "(") and script.endswith(");\n")
    return json.loads(script[len(callback) + 1 : -3])


def test_labels_and_outcomes_count_an_invalid_answer_as_a_miss() -> None:
    assert label_of({"vote": "against", "rationale": "x"}) == "against"
    assert label_of({"label": "neutral"}) == "neutral"
    assert label_of({"ranking": ["USA", "CHN"], "polarity": -1}) == "USA > CHN (-1)"
    assert label_of(None) == ""
    assert outcome_of("ok", "favour", "favour") == "correct"
    assert outcome_of("ok", "against", "favour") == "wrong"
    assert outcome_of("invalid", "", "favour") == "wrong"
    assert outcome_of("ok", "favour", None) == "—"


def test_index_codes_every_sample_and_details_share_their_texts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sample_data, "CHUNK", 3)
    rows = [sample(f"S/{i}", p, r) for i in range(2) for p in ("USA", "CHN") for r in range(2)]
    rows[1] = sample("S/0", "USA", 1, status="invalid", parsed=None, parse_error="two_options", raw="yes no")
    rows[2] = sample("S/0", "CHN", 0, status="error", parsed=None, raw=None, error="HTTP 500", extra={})
    data = build([run_of(rows)])
    index = data.index
    assert index["count"] == 8 and len(data.chunks) == 3  # 3 + 3 + 2
    values, columns = index["values"], index["columns"]
    decode = {
        name: [values[name][c] for c in columns[name]] for name in ("persona", "status", "reason", "outcome")
    }
    assert decode["persona"] == [r["persona"] for r in rows]
    assert decode["status"][:3] == ["ok", "invalid", "error"]
    assert decode["reason"][:3] == ["", "two_options", "error"]
    assert decode["outcome"][:3] == ["correct", "wrong", "—"]  # the errored sample stored no truth
    assert columns["latency"][0] == 0.25 and columns["ptok"][0] == 100
    first = data.chunks[0]
    assert first.texts.count(SYSTEM) == 1  # the shared system prompt is stored once per chunk
    for chunk, start in zip(data.chunks, (0, 3, 6), strict=True):
        for offset, detail in enumerate(chunk.samples):
            stored = rows[start + offset]
            shown = [{"role": role, "content": chunk.texts[t]} for role, t in detail["messages"]]
            assert shown == stored["messages"] and detail["raw"] == stored["raw"]
            assert detail["id"] == stored["sample_id"]
    assert first.samples[0]["answer"] == '{"vote": "favour"}' and first.samples[0]["reasoning"] == "weighing"


def test_debias_calls_keep_their_prompts_as_text_references() -> None:
    calls = [
        {"node": "rehearse", "precedent": "P", "messages": [{"role": "user", "content": "rehearse"}],
         "raw": "a"},
        {"node": "final_vote", "precedent": None, "messages": [{"role": "system", "content": SYSTEM}],
         "raw": "b", "history": "Rehearsal P"},
    ]  # fmt: skip
    row = sample("S/1", "USA", test="debias", extra={"truth": "favour", "calls": calls, "precedents": []})
    chunk = build([run_of([row], test="debias")]).chunks[0]
    stored = chunk.samples[0]["extra"]["calls"]
    assert [[chunk.texts[t] for _, t in c["messages"]] for c in stored] == [["rehearse"], [SYSTEM]]
    assert stored[1]["history"] == "Rehearsal P" and chunk.texts.count(SYSTEM) == 1


def test_explanations_attach_to_the_vote_pairs_present_only() -> None:
    rows = [sample("S/1", "USA"), sample("S/1", "USA", 1), sample("S/2", "CHN")]
    explained = [
        {"item": "S/1", "member": "USA", "predicted": "favour", "contributions": []},
        {"item": "S/9", "member": "USA", "predicted": "against", "contributions": []},  # not in the runs
    ]
    data = build([run_of(rows)], explained)
    assert data.index["columns"]["explain"] == [0, 0, -1]
    assert list(data.explained[0]) == ["S/1\tUSA"]
    other = build([run_of(rows, test="directqa")], explained)
    assert other.index["columns"]["explain"] == [-1, -1, -1] and not other.explained


def test_scripts_are_ascii_and_no_text_closes_a_script() -> None:
    text = 'a </script><!-- b \u2028 c \u2029 é "q"'
    script = js_call("NB.detail", {"t": text})
    assert script.isascii()
    assert "</" not in script and "<!--" not in script and "\u2028" not in script
    assert payload(script, "NB.detail") == {"t": text}


def test_the_writer_replaces_a_previous_reports_chunks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sample_data, "CHUNK", 2)
    stale = tmp_path / "samples-detail-7.js"
    stale.write_text("NB.detail({});", encoding="ascii")
    (tmp_path / "explained.jsonl").write_text(
        json.dumps({"item": "S/1", "member": "USA", "predicted": "favour"}) + "\n", encoding="utf-8"
    )
    rows = [sample("S/1", "USA"), sample("S/1", "CHN"), sample("S/2", "USA")]
    data = write_sample_browser([run_of(rows)], out_dir=tmp_path)
    assert not stale.exists()
    names = {p.name for p in tmp_path.iterdir()}
    assert {"samples.html", "samples.js", "sample-view.js", "samples.css", "samples-data.js"} <= names
    assert {"samples-detail-0.js", "samples-detail-1.js", "samples-explained-0.js"} <= names
    index = payload((tmp_path / "samples-data.js").read_text(encoding="ascii"), "NB.index")
    assert index == json.loads(json.dumps(data.index)) and index["columns"]["explain"] == [0, -1, -1]
    detail = payload((tmp_path / "samples-detail-1.js").read_text(encoding="ascii"), "NB.detail")
    assert detail["n"] == 1 and [s["id"] for s in detail["samples"]] == [rows[2]["sample_id"]]
