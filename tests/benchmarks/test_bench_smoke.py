"""The benchmark harness works end to end on tiny sizes (no timing assertions: the machine is shared)."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

from benchmarks import retrieval, throughput
from benchmarks.common import Section, fault_server_process
from benchmarks.report import markdown
from nationbias.graphs.study.sampling import SampleOptions
from nationbias.stores.corpora.corpus import load_corpus

REPO = Path(__file__).resolve().parents[2]


def test_cli_quick_replay_writes_results(tmp_path: Path) -> None:
    out = tmp_path / "RESULTS.md"
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--quick", "--only", "replay", "--out", str(out)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    text = out.read_text()
    assert "Cached replay" in text and "network calls during replay: 0" in text
    assert "cores" in text and "commit" in text and "--quick" in text


def test_throughput_pieces_on_a_tiny_study() -> None:
    corpus = load_corpus()
    tiny = SampleOptions(limit=1, repeats=1)
    with fault_server_process(0.0) as base_url:
        measured = asyncio.run(throughput._run("vote", base_url, corpus, tiny, 4))
        calls, wall = throughput.sequential_loop(base_url, corpus, tiny)
        floor = asyncio.run(throughput.raw_floor(base_url, corpus, tiny, 4))
    assert measured.samples == 5 and measured.calls == 5 and measured.efficiency >= 0
    assert floor.calls == 5 and floor.wall_s > 0
    assert calls == 5 and wall > 0


def test_retrieval_child_measures_keyword_and_its_naive_reference(tmp_path: Path) -> None:
    for strategy in ("keyword", "keyword-naive"):
        result = retrieval.child(strategy, "unsc", 3, True, str(tmp_path))
        assert result["size"] > 700 and result["queries"] == 3
        assert result["peak_rss_mb"] >= result["base_rss_mb"] > 0


def test_markdown_report_has_a_row_per_metric() -> None:
    section = Section("x", "X")
    section.add("metric a", "1", "< 2", True, "a | b")
    text = markdown([section], {"cores": "2"}, quick=False, command="python -m benchmarks")
    assert "| metric a | 1 | < 2 | PASS | a \\| b |" in text
