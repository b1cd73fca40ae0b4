"""The derived-table cache: computed once, read back equal, never caching an error or a damaged file."""

from __future__ import annotations

import pandas as pd
import pytest

from nationbias.stores.state.frames import cached_frame, frame_path, source_digest


def test_a_table_is_computed_once_and_read_back_equal(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("NATIONBIAS_HOME", str(tmp_path))
    calls = []

    def compute() -> pd.DataFrame:
        calls.append(1)
        return pd.DataFrame({"a": [1, 2], "b": ["x", "y"]})

    first = cached_frame("t", {"k": 1}, compute)
    again = cached_frame("t", {"k": 1}, compute)
    other = cached_frame("t", {"k": 2}, compute)
    assert len(calls) == 2 and frame_path("t", {"k": 1}).exists()
    pd.testing.assert_frame_equal(first, again)
    pd.testing.assert_frame_equal(first, other)


def test_an_error_is_never_cached_and_a_damaged_file_is_recomputed(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("NATIONBIAS_HOME", str(tmp_path))

    def fail() -> pd.DataFrame:
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        cached_frame("t", {"k": 1}, fail)
    path = frame_path("t", {"k": 1})
    assert not path.exists() and not (path.parent.exists() and list(path.parent.glob("*.tmp")))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"not a pickle")
    got = cached_frame("t", {"k": 1}, lambda: pd.DataFrame({"a": [3]}))
    assert got["a"].tolist() == [3]


def test_the_code_digest_changes_with_the_code(tmp_path) -> None:
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("x = 1\n")
    b.write_text("y = 2\n")
    before = source_digest([a, b])
    a.write_text("x = 2\n")
    assert source_digest([a, b]) != before
