"""The cost rules (tests/support/costs.py) mark what they say; the xdist groups reach xdist's scheduler."""

from __future__ import annotations

import importlib
from typing import Any

import pytest
from xdist.scheduler.loadgroup import LoadGroupScheduling

from tests.support.costs import name_the_groups, reachable_marks, shared_group

SAMPLES = "tests.support.cost_samples"


def _marks(name: str) -> set[str]:
    """The marks the source rules give the sample ``name`` (and what it reaches)."""
    return reachable_marks([getattr(importlib.import_module(SAMPLES), name)])


def test_the_style_audit_the_report_and_study_commands_and_an_assembly_report_are_slow() -> None:
    assert _marks("style_audit_fixture") == {"slow"}
    assert _marks("report_command") == {"slow"}
    assert _marks("study_command") == {"slow"}  # its options from a list: still a whole study
    assert _marks("assembly_report") == {"slow"}
    assert _marks("council_report") == set()  # a report of a Council run fits nothing: inner loop


def test_what_a_test_imports_in_its_own_body_counts() -> None:
    assert _marks("learned_baseline_imported_in_the_test") == {"slow"}  # `import ... as U`, then U.f()
    assert _marks("learned_baseline_imported_by_name") == {"slow"}
    assert _marks("a_cheap_module_imported_in_the_test") == set()


class _Item:
    """What ``name_the_groups`` and ``shared_group`` read of a pytest item."""

    def __init__(self, nodeid: str, *groups: str, function: Any = None) -> None:
        from _pytest.nodeid import NodeId

        self._id = NodeId.parse(nodeid)
        self.marks = [pytest.mark.xdist_group(g).mark for g in groups]
        self.function = function
        self.fixturenames: list[str] = []

    @property
    def nodeid(self) -> str:
        return str(self._id)

    def iter_markers(self, name: str) -> Any:
        return iter([m for m in self.marks if m.name == name])


def test_an_assembly_reader_shares_the_assemblys_worker_and_a_council_one_does_not() -> None:
    samples = importlib.import_module(SAMPLES)
    assert shared_group(_Item("t.py::a", function=samples.assembly_reader)) == "assembly"
    assert shared_group(_Item("t.py::b", function=samples.council_reader)) is None


def test_each_group_reaches_xdists_scheduler_through_the_node_id() -> None:
    items = [
        _Item("tests/a.py::test_x", "assembly"),
        _Item("tests/a.py::test_y[1-2.0]", "tests/a.py"),
        _Item("tests/b.py::test_z"),
    ]
    name_the_groups(items)
    name_the_groups(items)  # a second pass (a fixed xdist) changes nothing
    scope = LoadGroupScheduling._split_scope
    assert [scope(None, i.nodeid) for i in items] == ["assembly", "tests/a.py", "tests/b.py::test_z"]
    assert items[1].nodeid == "tests/a.py::test_y[1-2.0]@tests/a.py"
