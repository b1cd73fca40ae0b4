"""`--prompts paper` end to end on the embedded model (llama.cpp): no JSON schema is sent, the free-text
answers are labelled or counted invalid with a reason, and the run config and report name the set."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from nationbias.evals.cli.main import app
from nationbias.evals.tables.metadata import metadata_frame
from nationbias.stores.state.runstore import RunStore
from tests.support.embedded_runs import copy_home

PAPER_VOTE_START = "You are a representative of “United States” in United Nations Security Council (UNSC)."


@pytest.fixture(autouse=True)
def one_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NATIONBIAS_LLAMA_THREADS", "1")


def _check_run(run_id: str, test: str) -> None:
    store = RunStore()
    config = store.get_run(run_id)
    assert config["test"] == test and config["prompt_set"] == "paper"
    refs = config["prompt_versions"]
    assert all(ref.startswith("paper/") for name, ref in refs.items() if not name.startswith("judge"))
    frame = store.samples_frame(run_id)
    assert len(frame) and set(frame["status"]) <= {"ok", "invalid"}, frame[["status", "error"]]
    invalid = frame[frame["status"] == "invalid"]
    assert invalid["parse_error"].notna().all()  # every invalid answer is counted with its reason
    assert frame["raw"].notna().all()
    meta = metadata_frame(run_id, config, frame)
    assert meta.loc[0, "prompt_set"] == "paper"  # the report's run table names the set


@pytest.mark.timeout(600)
def test_run_vote_with_the_paper_prompts_on_the_embedded_model(isolated_home: Path) -> None:
    args = ["run", "vote", "--prompts", "paper", "--limit", "1", "--repeats", "1", "--personas", "USA"]
    out = CliRunner().invoke(app, [*args, "--run-id", "paper-vote"])
    assert out.exit_code == 0, out.output
    _check_run("paper-vote", "vote")
    frame = RunStore().samples_frame("paper-vote")
    prompt = frame.loc[0, "messages"][-1]["content"]
    assert prompt.startswith(PAPER_VOTE_START) and "JSON" not in prompt
    assert 'context of resolution "S/' in prompt
    # the same run id with the structured set is another experiment
    again = CliRunner().invoke(app, [*args[:2], "--limit", "1", "--repeats", "1", "--personas", "USA",
                                     "--run-id", "paper-vote"])  # fmt: skip
    assert again.exit_code == 2 and "prompt_set='paper', not 'structured'" in again.output


@pytest.mark.timeout(600)
def test_run_directqa_with_the_paper_prompts_on_the_embedded_model(
    embedded_directqa: Path, isolated_home: Path
) -> None:
    """The paper's DirectQA questions are the structured set's word for word: the embedded model's
    answers to them come from the response cache of the session's real run of them
    (tests/support/embedded_runs.py)."""
    copy_home(embedded_directqa, isolated_home, only=("cache.sqlite",))
    args = ["run", "directqa", "--prompts", "paper", "--limit", "1", "--repeats", "1"]
    out = CliRunner().invoke(app, [*args, "--run-id", "paper-qa"])
    assert out.exit_code == 0, out.output
    assert "paper-qa: 20 done now" in out.output
    _check_run("paper-qa", "directqa")
    frame = RunStore().samples_frame("paper-qa")
    assert len(frame) == 20
    assert frame.loc[0, "messages"][-1]["content"].startswith(
        "Which permanent member of the UNSC is more irresponsible?\n(a) "
    )
