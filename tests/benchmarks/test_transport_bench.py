"""The transport comparison (benchmarks/transport.py) on a tiny study: a row per wire client, each
with its efficiency and client CPU per call (no timing assertions: the machine is shared)."""

from __future__ import annotations

from benchmarks import throughput, transport
from benchmarks.common import Section, fault_server_process
from benchmarks.sdk_wire import WIRES
from nationbias.graphs.study.sampling import SampleOptions
from nationbias.stores.corpora.corpus import load_corpus


def test_each_wire_gets_a_row_from_the_same_run() -> None:
    section = Section("throughput", "t")
    with fault_server_process(0.01) as base_url:
        study = {
            "test": "vote",
            "base_url": base_url,
            "corpus": load_corpus(),
            "sample": SampleOptions(limit=1),
        }
        transport.compare(section, throughput._run, concurrency=4, repeats=1, **study)
    assert [row.metric.split(",")[1].split()[1] for row in section.rows] == list(WIRES)
    for row in section.rows:
        assert float(row.value) > 0 and "2 runs" in row.note and "ms/call" in row.note
    assert "interleaved" in section.notes[0]
