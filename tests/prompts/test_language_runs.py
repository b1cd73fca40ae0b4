"""`--language` end to end: every test (and the debias graph) asked in Chinese on the deterministic fake
model through the CLI, one run on the embedded model in Spanish; the run config, `runs list` and the
report name the language and mark it unreviewed; a run keeps its language on resume."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from nationbias.evals.api import report
from nationbias.evals.cli.main import app
from nationbias.evals.tables.metadata import metadata_frame
from nationbias.prompts.registry import QUOTED_TEXT, UNREVIEWED_NOTE
from nationbias.stores.state.runstore import RunStore

HAN = re.compile(r"[\u4E00-\u9FFF]")
SMALL = ["--limit", "1", "--repeats", "1"]
COMMANDS = {
    "zh-vote": ["run", "vote", "--personas", "USA"],
    "zh-debias": ["run", "vote", "--debias", "--personas", "USA"],
    "zh-directqa": ["run", "directqa"],
    "zh-association": ["run", "association"],
}


def _run(args: list[str]) -> str:
    out = CliRunner().invoke(app, args)
    assert out.exit_code == 0, out.output
    return out.output


def _check(run_id: str, language: str, *, script: re.Pattern[str]) -> None:
    store = RunStore()
    config = store.get_run(run_id)
    assert config["language"] == language and config["text_language"] == QUOTED_TEXT
    assert UNREVIEWED_NOTE in config["language_note"]
    refs = config["prompt_versions"]
    templates = {name: ref for name, ref in refs.items() if "@v" in ref}
    assert templates and all(ref.startswith(f"{language}/") for ref in templates.values()), refs
    frame = store.samples_frame(run_id)
    assert len(frame) and frame["raw"].notna().all()
    for messages in frame["messages"]:
        assert script.search(messages[-1]["content"]), messages[-1]["content"][:200]
    meta = metadata_frame(run_id, config, frame)
    assert meta.loc[0, "language"] == config["language_note"] and meta.loc[0, "text_language"] == QUOTED_TEXT


def test_every_test_and_the_debias_graph_run_in_chinese_on_the_fake_model(isolated_home: Path) -> None:
    for run_id, command in COMMANDS.items():
        _run([*command, "-m", "fake:hash", *SMALL, "--language", "zh", "--run-id", run_id])
        _check(run_id, "zh", script=HAN)
    debias = RunStore().samples_frame("zh-debias")
    steps = [call for calls in debias["extra"] for call in (calls or {}).get("calls", [])]
    assert all(HAN.search(call["messages"][-1]["content"]) for call in steps if "messages" in call)
    listed = _run(["runs", "list"])
    assert "│ zh*" in listed and "the zh prompts are not yet reviewed by a native speaker" in listed
    page = report(list(COMMANDS), out=isolated_home / "report").read_text(encoding="utf-8")
    assert f"the translation is {UNREVIEWED_NOTE}" in page


def test_a_run_keeps_its_language_on_resume(isolated_home: Path) -> None:
    args = [*COMMANDS["zh-vote"], "-m", "fake:hash", *SMALL, "--run-id", "kept"]
    _run([*args, "--language", "zh"])
    again = CliRunner().invoke(app, [*args, "--language", "fr"])
    assert again.exit_code == 2 and "language='zh', not 'fr'" in again.output
    english = CliRunner().invoke(app, args)  # the default language is another experiment too
    assert english.exit_code == 2 and "language='zh', not 'en'" in english.output
    assert "0 done now" in _run([*args, "--language", "zh"])


def test_an_unknown_language_is_one_line_and_writes_nothing(isolated_home: Path) -> None:
    out = CliRunner().invoke(app, ["run", "vote", "-m", "fake:hash", *SMALL, "--language", "de"])
    assert out.exit_code == 2
    lines = [line for line in out.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: unknown language 'de': choose one of ar (Arabic)")
    assert not (isolated_home / "runs.sqlite").exists()


@pytest.fixture
def one_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NATIONBIAS_LLAMA_THREADS", "1")


@pytest.mark.timeout(600)
def test_a_vote_in_spanish_on_the_embedded_model(isolated_home: Path, one_thread: None) -> None:
    args = ["run", "vote", "--model", "local:smollm2", *SMALL, "--personas", "USA", "--language", "es"]
    _run([*args, "--run-id", "es-vote"])
    _check("es-vote", "es", script=re.compile(r"\bUsted es representante\b"))
    frame = RunStore().samples_frame("es-vote")
    assert set(frame["status"]) <= {"ok", "invalid"}, frame[["status", "error"]]
    assert frame[frame["status"] == "invalid"]["parse_error"].notna().all()
    ok = frame[frame["status"] == "ok"]
    assert ok["parsed"].map(lambda p: p["vote"] in {"favour", "against", "abstention"}).all()
