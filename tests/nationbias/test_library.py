"""The library as a notebook drives it: inside an already-running event loop, sync and awaited."""

from __future__ import annotations

import asyncio
import gc
from pathlib import Path

import pytest

import nationbias
from nationbias.evals.errors import UsageError
from nationbias.stores.state.runstore import RunStore


def test_run_study_results_and_report_inside_a_running_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    froze: list[str] = []  # the test session freezes its own heap (tests/conftest.py): watch the calls
    monkeypatch.setattr(gc, "freeze", lambda: froze.append("freeze"))
    monkeypatch.setattr(gc, "unfreeze", lambda: froze.append("unfreeze"))

    async def notebook() -> None:
        asyncio.get_running_loop()  # as in Jupyter: asyncio.run / uvloop.run would fail here
        vote = nationbias.run(
            "vote", model="fake:hash", limit=1, repeats=1, personas="USA", show_progress=False
        )
        assert vote.total == 1 and vote.done == 1
        assert froze == []  # freezing the heap is the CLI's choice, not the library's
        plan = nationbias.StudyPlan(
            limits={"vote": 1}, debias_limit=1, repeats=1, cells=[nationbias.Cell(0, False, "keyword")]
        )
        ids = await nationbias.astudy(model="fake:hash", plan=plan, run_prefix="nb", show_progress=False)
        assert ids == ["nb-vote", "nb-vote-control", "nb-debias-k0-norf-keyword"]  # the control: no nation
        tables = nationbias.results(ids[2])
        assert tuple(tables) == nationbias.RESULT_TABLES["debias"]
        assert not bool(tables["metadata"].loc[0, "embedded"])  # the fake model: graph logic only
        path = nationbias.report([vote.run_id, *ids])
        assert path.name == "index.html" and "Table 3" in path.read_text()

    asyncio.run(notebook())
    assert set(RunStore().runs_frame()["test"]) == {"vote", "debias"}


def test_bad_options_are_project_errors_and_write_nothing(isolated_home: Path) -> None:
    with pytest.raises(UsageError, match="unknown test 'nope'"):
        nationbias.run("nope", model="fake:hash")
    with pytest.raises(UsageError, match="takes no option"):
        nationbias.run("vote", model="fake:hash", k=2)  # k is the debiased vote's
    assert not (isolated_home / "runs.sqlite").exists()
