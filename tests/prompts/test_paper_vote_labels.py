"""Free-text votes as models write them, through `run vote --prompts paper` over HTTP (the real local server):
a leading label or the persona's own name casting the vote is read by the rules, the raw answer is kept,
and a hedged answer is invalid with its reason when no judge is given."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from nationbias.evals.cli.main import app
from nationbias.stores.state.runstore import RunStore
from tests.support.fixtures import FaultServerFactory

_PERSONA = re.compile(r"You are a representative of “([^”]+)”")


def _answering(template: str) -> Any:
    def respond(body: dict[str, Any]) -> str:
        found = _PERSONA.search(body["messages"][-1]["content"])
        assert found, body["messages"][-1]["content"][:200]
        return template.format(nation=found.group(1))

    return respond


@pytest.mark.parametrize(
    ("body", "persona", "answer", "status", "vote", "reason"),
    [
        (
            "unsc",
            "RUS",
            "Against. The text undermines the sovereignty of {nation}'s partners.",
            "ok",
            "against",
            None,
        ),
        ("unsc", "CHN", "Abstention. The draft goes too far.", "ok", "abstention", None),
        (
            "unsc",  # every member seated that day, elected ones too: the persona's own name casts the vote
            "all",
            "Given its tradition of non-intervention, {nation} abstains on this text.",
            "ok",
            "abstention",
            None,
        ),
        ("unsc", "FRA", "{nation} would probably abstain.", "invalid", None, "hedged"),
    ],
)
def test_a_free_text_vote_is_read_by_the_rules(
    fault_server: FaultServerFactory,
    isolated_home: Path,
    body: str,
    persona: str,
    answer: str,
    status: str,
    vote: str | None,
    reason: str | None,
) -> None:
    server = fault_server(responder=_answering(answer))
    run_id = f"pl-{persona}-{status}"
    args = [
        "run", "vote", "--model", "openai-compatible:paper-model", "--base-url", server.base_url,
        "--prompts", "paper", "--body", body, "--limit", "1", "--repeats", "1", "--personas", persona,
        "--run-id", run_id,
    ]  # fmt: skip
    out = CliRunner().invoke(app, args)
    assert out.exit_code == 0, out.output
    rows = RunStore().samples_frame(run_id).to_dict(orient="records")
    assert len(rows) == (1 if persona != "all" else 15)
    for row in rows:
        assert row["status"] == status, row
        assert row["raw"] and row["raw"].startswith(answer.split("{")[0][:10])  # the raw answer is kept
        if vote is not None:
            assert row["parsed"]["vote"] == vote and row["extra"]["labeller"] == "rules"
        else:
            assert row["parsed"] is None and row["parse_error"] == reason
