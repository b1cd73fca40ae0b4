"""Damage inside a store (stores/state/sqlite.py): 8 KB overwritten in the middle of ``runs.sqlite`` makes
`runs list`, `report` and a resume end in one line naming the file and the cause (exit 2), and the
file is left as it was; in ``cache.sqlite`` the rows that cannot be read are misses, asked again and
counted, and `cache stats` and `cache clear` work; a garbage or truncated ``checkpoints.sqlite``
ends a debias run in one line (exit 2) before anything is asked."""

from __future__ import annotations

import random
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from nationbias.evals.cli.main import app
from tests.support.fixtures import FaultServerFactory
from tests.support.reliability import MODEL

VOTE = ["run", "vote", "-m", MODEL, "--limit", "8", "--repeats", "1"]
TOTAL = 8 * 5


def _invoke(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


def _one_error_line(result: Result, *needles: str) -> str:
    """The command ended as bad input does: exit 2, one ``error:`` line naming ``needles``, no traceback."""
    assert result.exit_code == 2, (result.exit_code, result.output, result.exception)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    errors = [line for line in result.output.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, result.output
    for needle in needles:
        assert needle in errors[0], errors[0]
    assert "Traceback" not in result.output
    return errors[0]


def _damage_middle(path: Path, *, size: int = 8192) -> None:
    """Overwrite ``size`` bytes in the middle of ``path`` (page-aligned) with random bytes, once its
    write-ahead log is in it (as when the last process using it has ended)."""
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = bytearray(path.read_bytes())
    middle = (len(data) // 2) // 4096 * 4096
    assert middle > 4096 and middle + size < len(data), len(data)
    data[middle : middle + size] = random.Random(7).randbytes(size)
    path.write_bytes(bytes(data))


def _unreadable(path: Path, query: str) -> bool:
    try:
        with closing(sqlite3.connect(path)) as conn:
            conn.execute(query).fetchall()
    except sqlite3.DatabaseError:
        return True
    return False


def _run(url: str, run_id: str, *extra: str) -> Result:
    return _invoke(*VOTE, "--base-url", url, "--run-id", run_id, *extra)


def test_damage_inside_the_run_store_is_one_line_naming_the_file_and_the_store_is_kept(
    isolated_home: Path, fault_server: FaultServerFactory, tmp_path: Path
) -> None:
    server = fault_server()
    assert _run(server.base_url, "r1").exit_code == 0
    store = isolated_home / "runs.sqlite"
    _damage_middle(store)
    assert _unreadable(store, "SELECT * FROM samples")  # the damage is where the samples are
    damaged = store.read_bytes()
    calls = sum(server.prompt_counts().values())

    _one_error_line(_invoke("runs", "list"), str(store), "damaged", "malformed")
    _one_error_line(_invoke("report", "r1", "--out", str(tmp_path / "report")), str(store), "damaged")
    _one_error_line(_run(server.base_url, "r1"), str(store), "damaged")  # the resume
    line = _one_error_line(_invoke("runs", "export", "r1"), str(store), "damaged")
    assert "delete" not in line.replace("do not delete", "")  # no advice that risks the data
    assert store.read_bytes() == damaged  # left as it was found
    assert sum(server.prompt_counts().values()) == calls  # nothing asked


def test_a_damaged_cache_counts_unreadable_rows_as_misses_and_stats_and_clear_work(
    isolated_home: Path, fault_server: FaultServerFactory
) -> None:
    server = fault_server()
    assert _run(server.base_url, "first").exit_code == 0
    cache = isolated_home / "cache.sqlite"
    _damage_middle(cache)
    assert _unreadable(cache, "SELECT * FROM responses")
    before = sum(server.prompt_counts().values())

    again = _run(server.base_url, "second")  # the same prompts: every one a cache hit, were it whole
    assert again.exit_code == 0, again.output
    assert "error 0" in again.output and f"{TOTAL} done now" in again.output, again.output
    assert f"warning: {cache} is damaged" in again.output, again.output
    asked = sum(server.prompt_counts().values()) - before
    assert 0 < asked < TOTAL, asked  # the unreadable rows were asked again, the rest came from the cache

    stats = _invoke("cache", "stats")
    assert stats.exit_code == 0 and "damaged" in stats.output, stats.output
    cleared = _invoke("cache", "clear")
    assert cleared.exit_code == 0 and "damaged" in cleared.output, cleared.output
    stats = _invoke("cache", "stats")
    assert stats.exit_code == 0 and ": 0 responses" in stats.output, stats.output


def _truncated(path: Path) -> None:
    with closing(sqlite3.connect(path)) as conn, conn:
        conn.execute("CREATE TABLE checkpoints (thread_id TEXT, blob BLOB)")
        conn.executemany("INSERT INTO checkpoints VALUES (?, ?)", [(f"t{i}", b"x" * 3000) for i in range(40)])
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 3])


def _garbage(path: Path) -> None:
    path.write_bytes(b"this is not sqlite\x00\xff" * 300)


@pytest.mark.parametrize("spoil", [_garbage, _truncated], ids=["garbage", "truncated"])
def test_a_garbage_or_truncated_checkpoint_store_is_one_line(
    isolated_home: Path, fault_server: FaultServerFactory, spoil: object
) -> None:
    server = fault_server()
    isolated_home.mkdir(parents=True, exist_ok=True)
    path = isolated_home / "checkpoints.sqlite"
    spoil(path)  # type: ignore[operator]
    kept = path.read_bytes()
    result = _invoke(*VOTE, "--debias", "--base-url", server.base_url, "--run-id", "cp")
    _one_error_line(result, str(path))
    assert path.read_bytes() == kept
    assert sum(server.prompt_counts().values()) == 0
