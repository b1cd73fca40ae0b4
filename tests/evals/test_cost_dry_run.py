"""`--dry-run`: the calls a run would send, counted through the real graphs, and nothing sent.

Against a real local OpenAI-compatible server that counts the requests it gets: the dry run's count
is exactly what the real run then sends (every test: vote, the debiased vote, DirectQA, the
Association Test; a study; an ablation); the dry run sends nothing and writes nothing; rerun after
the real run, every call is answered by the cache and costs nothing.
"""

from __future__ import annotations

import json
import re
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from typer.testing import CliRunner

from nationbias.evals.cli.main import app
from tests.support.fixtures import FaultServerFactory
from tests.support.reliability import MODEL

TOTAL = re.compile(
    r"^total: ([\d,]+) calls to send, ([\d,]+) answered by the cache \(free\) · cost \$([\d.]+)"
)
PRICED = ["--price-in", "2", "--price-out", "8"]

COMMANDS = {
    "vote": ["run", "vote", "--limit", "3", "--repeats", "2"],
    "debias": ["run", "vote", "--debias", "--limit", "2", "--repeats", "1"],
    "directqa": ["run", "directqa", "--limit", "1", "--repeats", "1"],
    "association": ["run", "association", "--limit", "2", "--repeats", "1"],
    "attribution": ["run", "attribution", "--limit", "2", "--repeats", "1"],
    "study": ["study", "--limit", "1", "--repeats", "1"],  # every test, then the ablation's cells
    "ablate": ["ablate", "--limit", "1", "--repeats", "1", "--k", "1", "2", "--reflexion", "on", "off"],
}


def totals(output: str) -> tuple[int, int, float]:
    found = [m for line in output.splitlines() if (m := TOTAL.match(line))]
    assert len(found) == 1, output
    calls, cached, usd = found[0].groups()
    return int(calls.replace(",", "")), int(cached.replace(",", "")), float(usd)


def stored_runs(home: Path) -> int:
    if not (home / "runs.sqlite").exists():
        return 0
    with closing(sqlite3.connect(home / "runs.sqlite")) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0])


def cached(home: Path) -> int:
    if not (home / "cache.sqlite").exists():
        return 0
    with closing(sqlite3.connect(home / "cache.sqlite")) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0])


@pytest.mark.parametrize("test", list(COMMANDS))
def test_the_dry_run_counts_the_calls_the_real_run_sends(
    test: str, fault_server: FaultServerFactory, isolated_home: Path
) -> None:
    server = fault_server()
    runner = CliRunner(env={"NATIONBIAS_BASE_URL": server.base_url, "COLUMNS": "200"})
    command = [*COMMANDS[test], "-m", MODEL, "--run-id", f"cost-{test}"]

    dry = runner.invoke(app, [*command, "--dry-run", *PRICED])
    assert dry.exit_code == 0, dry.output
    calls, free, usd = totals(dry.stdout)
    assert calls > 0 and usd > 0
    assert server.count() == 0  # nothing was sent
    assert stored_runs(isolated_home) == 0 and cached(isolated_home) == 0  # nothing was written
    assert "summary:" not in dry.stderr and "export:" not in dry.stdout
    assert not (isolated_home / "reports").exists() and not (isolated_home / "checkpoints.sqlite").exists()
    assert "an ESTIMATE: estimate (4 chars/token)" in dry.stdout  # no tokenizer for this server's model

    real = runner.invoke(app, command)
    assert real.exit_code == 0, real.output
    sent = server.count()
    # exactly the calls the dry run counted; where debias cells share a reflection, within the shared
    # ones (docs/cost.md: whether two rehearsals answered alike only the real answers say)
    assert abs(sent - calls) <= shared_reflections(isolated_home)
    if test not in ("study", "ablate"):
        assert sent == calls
    assert cached(isolated_home) == sent  # and the ones it counted as free were asked once: cached

    again = runner.invoke(app, [*command[:-2], "--run-id", f"cost-{test}-again", "--dry-run", *PRICED])
    assert again.exit_code == 0, again.output
    assert totals(again.stdout) == (0, calls + free, 0.0)  # every call answered by the cache: free
    assert server.count() == sent


def shared_reflections(home: Path) -> int:
    """Reflections on one precedent for one sample asked in more than one debias cell of the command."""
    with closing(sqlite3.connect(home / "runs.sqlite")) as conn:
        rows = conn.execute("SELECT run_id, item, persona, repeat, extra FROM samples").fetchall()
    cells: dict[tuple[str, str, int, str], set[str]] = {}
    for run_id, item, persona, repeat, extra in rows:
        for call in json.loads(extra or "{}").get("calls", []):
            if call.get("node") == "reflect":
                cells.setdefault((item, persona, repeat, call["precedent"]), set()).add(run_id)
    return sum(len(runs) - 1 for runs in cells.values())


def test_a_resumed_run_s_dry_run_counts_only_what_is_left(
    fault_server: FaultServerFactory, isolated_home: Path
) -> None:
    server = fault_server()
    runner = CliRunner(env={"NATIONBIAS_BASE_URL": server.base_url})
    small = ["run", "vote", "-m", MODEL, "--limit", "2", "--repeats", "1", "--run-id", "grow", "--no-cache"]
    assert runner.invoke(app, small).exit_code == 0
    sent = server.count()
    bigger = [*small[:5], "4", *small[6:]]  # the same run, twice the drafts
    dry = runner.invoke(app, [*bigger, "--dry-run"])
    assert dry.exit_code == 0, dry.output
    calls, _, _ = totals(dry.stdout)
    assert runner.invoke(app, bigger).exit_code == 0
    assert server.count() - sent == calls > 0


def test_an_unpriced_model_is_counted_and_its_price_said_unknown(fault_server: FaultServerFactory) -> None:
    server = fault_server()
    result = CliRunner(env={"NATIONBIAS_BASE_URL": server.base_url}).invoke(
        app, [*COMMANDS["vote"], "-m", MODEL, "--dry-run"]
    )
    assert result.exit_code == 0, result.output
    calls, _, usd = totals(result.stdout)
    assert calls == 3 * 5 * 2 and usd == 0.0  # 3 drafts x P5 x 2 repeats, none priced
    assert f"price unknown for {MODEL} (not in the total)" in result.stdout
    assert server.count() == 0


def test_the_embedded_model_s_prompts_are_counted_with_its_own_vocabulary(isolated_home: Path) -> None:
    result = CliRunner().invoke(
        app, ["run", "vote", "--model", "local:smollm2", "--limit", "1", "--repeats", "1", "--dry-run"]
    )
    assert result.exit_code == 0, result.output
    calls, _, usd = totals(result.stdout)
    assert calls == 5 and usd == 0.0  # the embedded model costs nothing
    assert "local:smollm2: $0 in / $0 out per 1M tokens; prompt tokens counted with GGUF vocabulary" in (
        " ".join(result.stdout.split())
    )
