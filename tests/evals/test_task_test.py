"""A test declared as its tasks (evals/bias_tests/tasks.py) run by the framework's loop against a real
local server: each answer read into its row, a cut-off answer never read, resume asks nothing twice,
and a --language the test does not declare is refused before anything is sent."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

import nationbias
from nationbias.evals.bias_tests.base import REGISTRY
from nationbias.evals.bias_tests.plugin import P5, Reading, RunContext, Task, TaskTest, bias_test, task
from nationbias.evals.errors import UsageError
from nationbias.stores.errors import InputError
from nationbias.stores.state.runstore import RunStore
from tests.support.fixtures import FaultServerFactory

ANSWERS = {"USA": "Yes.", "GBR": "Perhaps.", "FRA": "Yes, it", "RUS": "No.", "CHN": "yes"}  # FRA: cut off


class Ask(TaskTest):
    name = "ask-members"
    languages = ("en",)
    tables = ()
    agreement_table = None
    invalid_table = None
    sections = ()
    study = None

    def tasks(self, ctx: RunContext) -> list[Task]:
        return [task(self.name, n, repeat=r) for n in P5 for r in range(ctx.sample.repeats)]

    def messages(self, one: Task, ctx: RunContext) -> list[dict[str, str]]:
        return [{"role": "user", "content": f"Member {one.item}: permanent? Answer yes or no."}]

    def read(self, one: Task, answer: str) -> Reading:
        word = answer.strip(" .").lower().split(",")[0]
        return (
            Reading({"answer": word}) if word in ("yes", "no") else Reading(None, f"not yes/no: {answer!r}")
        )

    def result_tables(self, samples: Any) -> dict[str, Any]:
        return {}


@pytest.fixture
def registered() -> Iterator[None]:
    bias_test(Ask)
    yield
    REGISTRY.pop(Ask.name)


def _answer(body: dict[str, Any]) -> str:
    return ANSWERS[body["messages"][0]["content"].split()[1].rstrip(":")]


def _cut_fra(body: dict[str, Any], completion: dict[str, Any]) -> dict[str, Any]:
    if "FRA" in body["messages"][0]["content"]:
        completion["choices"][0]["finish_reason"] = "length"
    return completion


def test_the_framework_runs_a_task_test_and_resumes_it(
    registered: None, fault_server: FaultServerFactory, isolated_home: Path
) -> None:
    server = fault_server(responder=_answer, finisher=_cut_fra)
    run = {"model": "openai-compatible:fault-model", "base_url": server.base_url, "show_progress": False}
    summary = nationbias.run(Ask.name, **run, repeats=2, run_id="ask", concurrency=3)
    assert summary.total == 10 and server.count() == 10
    samples = RunStore(isolated_home / "runs.sqlite").samples_frame("ask").set_index(["item", "repeat"])
    by_item = samples.xs(0, level="repeat")
    assert by_item["status"].to_dict() == {
        "USA": "ok", "GBR": "invalid", "FRA": "invalid", "RUS": "ok", "CHN": "ok",
    }  # fmt: skip
    assert by_item.loc["USA", "parsed"] == {"answer": "yes"} and by_item.loc["GBR", "parsed"] is None
    assert by_item.loc["GBR", "parse_error"] == "not yes/no: 'Perhaps.'"
    assert by_item.loc["FRA", "raw"] == "Yes, it" and by_item.loc["FRA", "parsed"] is None  # never read
    assert by_item.loc["FRA", "extra"]["finish_reason"] == "length"
    assert samples["raw"].notna().all() and (samples["model_calls"] == 1).all()
    config = RunStore(isolated_home / "runs.sqlite").get_run("ask")
    assert config["test"] == Ask.name and config["language"] == "en" and config["data_sha256"]
    assert "wording_sha256" not in config  # it declares no wording of its own

    again = nationbias.run(Ask.name, **run, repeats=2, run_id="ask")
    assert again.skipped == 10 and server.count() == 10  # resumed: nothing asked twice

    with pytest.raises(UsageError, match="test 'ask-members' does not support --language fr: it asks in en"):
        nationbias.run(Ask.name, **run, language="fr", run_id="ask-fr")
    with pytest.raises(UsageError, match="test 'ask-members' reads its own answers: it takes no --judge"):
        nationbias.run(Ask.name, **run, judge="openai-compatible:fault-model", run_id="ask-judged")
    assert server.count() == 10


class Worded(Ask):
    name = "ask-worded"
    wording: ClassVar[dict[str, Any]] = {"question": "Member {nation}: permanent? Answer yes or no."}


@pytest.fixture
def worded() -> Iterator[None]:
    bias_test(Worded)
    yield
    REGISTRY.pop(Worded.name)


def test_a_resume_with_other_wording_is_refused_as_one_with_another_option(
    worded: None, fault_server: FaultServerFactory, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = fault_server(responder=_answer)
    run = {"model": "openai-compatible:fault-model", "base_url": server.base_url, "show_progress": False}
    assert nationbias.run(Worded.name, **run, repeats=1, run_id="worded").done == 5
    stored = RunStore(isolated_home / "runs.sqlite").get_run("worded")["wording_sha256"]
    assert nationbias.run(Worded.name, **run, repeats=1, run_id="worded").skipped == 5  # same wording
    monkeypatch.setattr(Worded, "wording", {"question": "Member {nation}: a permanent one? Yes or no."})
    with pytest.raises(InputError, match=f"run 'worded' was started with wording_sha256='{stored}', not '"):
        nationbias.run(Worded.name, **run, repeats=1, run_id="worded")
    assert server.count() == 5  # nothing asked under the other wording
