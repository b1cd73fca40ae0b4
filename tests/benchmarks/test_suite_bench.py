"""The suite benchmark measures the README's own test commands and reads pytest's summary right."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import suite
from tests.support.costs import INNER_LOOP


def test_the_commands_are_the_readmes_and_the_inner_loop_leaves_out_every_cost_marker() -> None:
    full, inner = suite.readme_commands()
    assert full[:3] == inner[:3] == ["uv", "run", "pytest"]
    assert inner[inner.index("-m") + 1] == INNER_LOOP
    assert "-m" not in full and "--durations=20" in full


def test_a_readme_without_both_commands_is_an_error_naming_it(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text("```bash\nuv sync && uv run pytest -n 2\n```\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"README\.md: expected one full test command and one inner loop"):
        suite.readme_commands(readme)


@pytest.mark.parametrize(
    ("line", "counts"),
    [
        (
            "================= 1343 passed, 1 xfailed in 529.35s (0:08:49) ==================",
            {"passed": 1343, "xfailed": 1},
        ),
        ("1186 passed in 99.85s (0:01:39)", {"passed": 1186}),
        ("== 3 failed, 10 passed, 2 skipped in 4.01s ==", {"failed": 3, "passed": 10, "skipped": 2}),
    ],
)
def test_the_last_summary_line_is_read(line: str, counts: dict[str, int]) -> None:
    output = f"..F.\n== 1 passed in 0.1s ==\nnoise\n{line}\n"
    assert suite.parse_counts(output) == counts


def test_no_summary_is_an_error() -> None:
    with pytest.raises(ValueError, match="no pytest summary line"):
        suite.parse_counts("Traceback (most recent call last):\n  ...\nKeyboardInterrupt\n")


def test_a_quick_run_times_a_real_pytest_run_of_one_file() -> None:
    section = suite.run(quick=True)
    (row,) = section.rows
    assert row.metric == "inner loop, median of 1" and row.ok is None
    assert row.value.endswith(" s") and float(row.value.removesuffix(" s")) > 0
    assert " passed" in row.note and "failed" not in row.note and "skipped" not in row.note
    assert suite.QUICK_TARGET in section.notes[0] and INNER_LOOP in section.notes[0]


def test_the_slowest_tests_are_read_from_the_durations_table() -> None:
    output = (
        "....\n=== slowest 20 durations ===\n157.22s call     tests/evals/test_fresh_clone.py::test_a\n"
        "59.94s setup    tests/evals/test_framing_embedded.py::test_b@llama_server\n\n"
        "(3 durations < 0.005s hidden.)\n=== 2 passed in 3.00s ===\n"
    )
    assert suite.slowest(output) == (
        "157.22s call     tests/evals/test_fresh_clone.py::test_a",
        "59.94s setup    tests/evals/test_framing_embedded.py::test_b@llama_server",
    )
    assert suite.slowest(output, 1) == ("157.22s call     tests/evals/test_fresh_clone.py::test_a",)
    assert suite.slowest("== 2 passed in 3.00s ==") == ()
