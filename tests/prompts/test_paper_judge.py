"""The paper set over HTTP (the real local server): no schema is sent, the free-text votes are read by
the rules, and the judge reads the ones they cannot, in `run vote` and in the debias final vote."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from nationbias.evals.cli.main import app
from nationbias.graphs.study.sampling import SampleOptions, select_drafts
from nationbias.stores.corpora.corpus import Corpus
from nationbias.stores.state.runstore import RunStore
from tests.support.fixtures import FaultServerFactory

UNDECIDED = "Russia weighs both sides of this draft with care."


class Scripted:
    """Free text for the paper prompts (undecided on ``target``), JSON for the judge."""

    def __init__(self, target: str) -> None:
        self.target = target
        self.bodies: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> str:
        with self._lock:
            self.bodies.append(body)
        text = body["messages"][-1]["content"]
        if body["model"] == "judge":
            return '{"vote": "abstention"}'
        if "Reflect in at most four sentences" in text:
            return "I misjudged how much Russia values the sponsors' support."
        if f'context of resolution "{self.target}"' in text:
            return UNDECIDED
        return "Vote: favour\nRationale: Russia supports the text."

    def model_bodies(self) -> list[dict[str, Any]]:
        return [b for b in self.bodies if b["model"] == "paper-model"]


def _args(base_url: str, run_id: str, *extra: str) -> list[str]:
    return [
        "run", "vote", "--model", "openai-compatible:paper-model", "--base-url", base_url,
        "--prompts", "paper", "--limit", "1", "--repeats", "1", "--personas", "RUS",
        "--run-id", run_id, *extra,
    ]  # fmt: skip


def _target(corpus: Corpus) -> str:
    return select_drafts(corpus, SampleOptions(limit=1))[0].id


def test_run_vote_paper_with_a_judge(
    fault_server: FaultServerFactory, corpus: Corpus, isolated_home: Path
) -> None:
    script = Scripted(_target(corpus))
    server = fault_server(responder=script)
    out = CliRunner().invoke(app, _args(server.base_url, "pv-judged", "--judge", "openai-compatible:judge"))
    assert out.exit_code == 0, out.output
    row = RunStore().samples_frame("pv-judged").to_dict(orient="records")[0]
    assert row["status"] == "ok" and row["parsed"]["vote"] == "abstention" and row["raw"] == UNDECIDED
    assert row["extra"]["labeller"] == "judge" and row["extra"]["rules_reason"] == "no_option"
    assert row["model_calls"] == 2
    assert all("response_format" not in b for b in script.model_bodies())  # free text: no schema
    config = RunStore().get_run("pv-judged")
    assert config["options"]["judge"] == "openai-compatible:judge"
    assert config["prompt_versions"]["judge_vote"].startswith("judge_vote@v1:")
    # without a judge the same answer is invalid with the rules' reason, never guessed
    plain = CliRunner().invoke(app, _args(server.base_url, "pv-plain"))
    assert plain.exit_code == 0, plain.output
    row = RunStore().samples_frame("pv-plain").to_dict(orient="records")[0]
    assert row["status"] == "invalid" and row["parse_error"] == "no_option"


def test_a_judge_on_structured_votes_is_refused(isolated_home: Path) -> None:
    args = ["run", "vote", "--model", "fake:hash", "--judge", "fake:hash", "--limit", "1"]
    out = CliRunner().invoke(app, args)
    assert out.exit_code == 2 and "--judge reads free-text votes: use it with --prompts paper" in out.output


def test_debias_paper_rehearses_with_the_papers_prompt_and_judges_the_final_vote(
    fault_server: FaultServerFactory, corpus: Corpus, isolated_home: Path
) -> None:
    script = Scripted(_target(corpus))
    server = fault_server(responder=script)
    args = _args(server.base_url, "pd-judged", "--debias", "--judge", "openai-compatible:judge")
    out = CliRunner().invoke(app, args)
    assert out.exit_code == 0, out.output
    row = RunStore().samples_frame("pd-judged").to_dict(orient="records")[0]
    assert row["status"] == "ok" and row["parsed"]["vote"] == "abstention"
    assert row["extra"]["labeller"] == "judge"
    history = row["extra"]["history"]
    assert history and all(h["predicted"] == "favour" for h in history)  # rehearsal votes: the rules
    final_prompt = row["messages"][-1]["content"]
    assert "Review the previous vote prediction data in previous vote prediction" in final_prompt
    assert "Rehearsal Resolution : " in final_prompt and "My vote / Ground Truth: favour / " in final_prompt
    persona_line = "You are a representative of “Russian Federation”"
    for call in row["extra"]["calls"]:
        if call["node"] == "rehearse":
            assert call["messages"][-1]["content"].startswith(persona_line)
    assert all("response_format" not in b for b in script.model_bodies())
    assert RunStore().get_run("pd-judged")["prompt_set"] == "paper"


def test_study_runs_every_test_with_the_chosen_set(
    fault_server: FaultServerFactory, corpus: Corpus, isolated_home: Path
) -> None:
    script = Scripted(_target(corpus))
    server = fault_server(responder=script)
    args = ["study", "--model", "openai-compatible:paper-model", "--base-url", server.base_url]
    args += ["--judge", "openai-compatible:judge", "--prompts", "paper", "--limit", "1", "--repeats", "1"]
    out = CliRunner().invoke(app, [*args, "--run-id", "st"])
    assert out.exit_code == 0, out.output
    store = RunStore()
    configs = {rid: store.get_run(rid) for rid in store.runs_frame()["run_id"]}
    tests = {"directqa", "association", "vote", "attribution", "debias"}
    assert {c["test"] for c in configs.values()} == tests
    assert {c["prompt_set"] for c in configs.values()} == {"paper"}
    assert configs["st-vote"]["options"]["judge"] == "openai-compatible:judge"
    cells = [c for c in configs.values() if c["test"] == "debias"]
    assert cells and all(c["options"]["judge"] == "openai-compatible:judge" for c in cells)  # free text
    bad = CliRunner().invoke(app, ["study", "--model", "fake:hash", "--prompts", "nope"])
    assert bad.exit_code == 2 and "unknown prompt set 'nope'" in bad.output
