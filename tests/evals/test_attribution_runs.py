"""`nationbias run attribution` end to end against local OpenAI-compatible servers whose behaviour is known:
the effects, the East–West gap, the flip rate and the invalid answers come out as the servers were built."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import nationbias
from nationbias.evals.cli.main import app
from nationbias.evals.errors import UsageError
from nationbias.stores.errors import InputError
from nationbias.stores.state.runstore import RunStore
from tests.support.batch_helpers import MODEL, comparable
from tests.support.fixtures import FaultServerFactory

WEST = ("United States", "United Kingdom", "France")
FAVOUR = '{"vote": "favour", "rationale": "x"}'
AGAINST = '{"vote": "against", "rationale": "x"}'


def _prompt(body: dict[str, Any]) -> str:
    return "\n".join(str(m.get("content", "")) for m in body["messages"])


def west_voter(body: dict[str, Any]) -> str:
    """Favour exactly when the proposer is a Western permanent member; no answer it can read without one."""
    found = re.search(r"^Submitted by: (.+)$", _prompt(body), re.M)
    if found is None:
        return "I would rather not say."  # the arm with no proposer: invalid, a miss
    return FAVOUR if found[1] in WEST else AGAINST


def blind_voter(body: dict[str, Any]) -> str:
    """Blind to the proposer: the vote depends on the draft's text alone (its length's parity)."""
    text = re.sub(r"^Submitted by: .+\n", "", _prompt(body), flags=re.M)
    return FAVOUR if len(text) % 2 else AGAINST


def _run(server_url: str, run_id: str, *extra: str) -> dict[str, Any]:
    args = [
        "run", "attribution", "--model", "openai-compatible:voter", "--base-url", server_url,
        "--limit", "20", "--repeats", "2", "--run-id", run_id, *extra,
    ]  # fmt: skip
    out = CliRunner().invoke(app, args)
    assert out.exit_code == 0, out.output
    return nationbias.results(run_id)


def _effects(tables: dict[str, Any]) -> dict[str, Any]:
    effects = tables["effects"]
    return effects[effects["voter"].eq("all")].set_index("arm").to_dict("index")


def test_a_voter_that_favours_western_proposers_shows_it(
    fault_server: FaultServerFactory, isolated_home: Path, tmp_path: Path
) -> None:
    server = fault_server(responder=west_voter)
    tables = _run(server.base_url, "west")
    effects = _effects(tables)
    for code in ("USA", "GBR", "FRA"):  # each draft: 1 against its proposer mean 3/5
        row = effects[code]
        assert row["drafts"] == 20 and row["favour_rate"] == 1.0
        assert row["effect"] == pytest.approx(0.4) and row["low"] > 0
    for code in ("RUS", "CHN"):
        assert effects[code]["effect"] == pytest.approx(-0.6) and effects[code]["high"] < 0
    assert effects["east-west gap"]["effect"] == pytest.approx(-1.0) and effects["east-west gap"]["high"] < 0
    assert effects["group"]["effect"] == pytest.approx(-0.6)
    arms = tables["arms"].set_index("arm")
    assert arms.loc["none", "invalid"] == 40 and arms.loc["none", "favour_rate"] == 0.0  # a miss, shown
    assert arms["invalid"].drop("none").eq(0).all() and arms["n"].eq(40).all()
    claims = tables["significance"].set_index("nation")
    gap = claims.loc["RUS+CHN − USA+GBR+FRA"]
    assert gap["survives_holm_family"] and gap["survives_holm_report"] and gap["n"] == 20
    assert claims.loc["USA", "survives_holm_report"] and claims.loc["RUS", "statistic"] == pytest.approx(-0.6)
    flips = tables["flips"].set_index("measure")
    # each repeat's seven answers: three in favour, three against (RUS, CHN, the group), one invalid: the
    # most common answer has three, so four of seven differ from it
    assert flips.loc["flip_rate", "value"] == pytest.approx(4 / 7)
    assert flips.loc["noise_floor", "value"] == 0.0
    config = RunStore().get_run("west")
    assert config["attribution_audit"]["excluded"] == {} and config["options"]["voters"] == "none"
    frame = RunStore().samples_frame("west")
    assert len(frame) == 20 * 7 * 2 and frame["raw"].notna().all()
    assert "a member of the Security Council" in frame.loc[0, "messages"][-1]["content"]
    page = nationbias.report("west", out=tmp_path / "report")
    html = page.read_text(encoding="utf-8")
    assert 'id="attribution"' in html and "East–West proposer gap" in html
    assert (page.parent / "attribution-west.png").stat().st_size > 0


def test_a_voter_blind_to_the_proposer_shows_no_effect(
    fault_server: FaultServerFactory, isolated_home: Path
) -> None:
    server = fault_server(responder=blind_voter)
    tables = _run(server.base_url, "blind")
    for arm, row in _effects(tables).items():
        assert row["effect"] == 0.0 and row["low"] <= 0 <= row["high"], arm
    rates = tables["arms"]["favour_rate"]
    assert 0 < rates.iloc[0] < 1 and rates.nunique() == 1  # the drafts differ; the arms do not
    flips = tables["flips"].set_index("measure")
    assert flips.loc["flip_rate", "value"] == 0.0
    claims = tables["significance"]
    assert claims["p"].isna().all() and claims["note"].str.contains("nothing to test").all()


def test_p5_and_elected_voters(fault_server: FaultServerFactory, isolated_home: Path) -> None:
    server = fault_server(responder=west_voter)
    args = ["--limit", "2", "--repeats", "1"]
    for kind, per_draft in (("p5", 5), ("e10", 10)):
        run = f"voters-{kind}"
        out = CliRunner().invoke(
            app,
            ["run", "attribution", "-m", "openai-compatible:voter", "--base-url", server.base_url,
             *args, "--personas", kind, "--run-id", run],
        )  # fmt: skip
        assert out.exit_code == 0, out.output
        frame = RunStore().samples_frame(run)
        voters = frame["extra"].map(lambda e: e["voter"])
        assert len(frame) == 2 * 7 * per_draft and voters.nunique() == per_draft
        if kind == "e10":
            assert not set(voters) & {"USA", "GBR", "FRA", "RUS", "CHN"}
        prompt = frame.loc[0, "messages"][-1]["content"]
        assert "You are a representative of" in prompt and "a member of the Security Council" not in prompt


def test_what_it_refuses(isolated_home: Path) -> None:
    out = CliRunner().invoke(app, ["run", "attribution", "-m", "fake:favour", "--framing", "responsible"])
    assert out.exit_code == 2 and "--framing" in out.output
    with pytest.raises(UsageError, match="takes no option \\['framing'\\]"):
        nationbias.run("attribution", model="fake:favour", framing="responsible")
    with pytest.raises(UsageError, match="without --judge"):
        nationbias.run("attribution", model="fake:favour", judge="fake:favour", limit=1)
    with pytest.raises(InputError, match="choose none, p5, e10 or P5 codes"):
        nationbias.run("attribution", model="fake:favour", personas="all", limit=1)


def test_in_another_language_the_proposer_line_is_in_it_beside_the_uns_own_text(isolated_home: Path) -> None:
    """The line is the language's template with the UN's official name; a draft with the UN's own French text
    shows it (its English text needs no proposer rewrite), as the vote does."""
    nationbias.run(
        "attribution", model="fake:favour", language="fr", texts="auto", years="2024", limit=1, repeats=1,
        personas="FRA", run_id="fr", show_progress=False,
    )  # fmt: skip
    frame = RunStore().samples_frame("fr")
    assert len(frame) == 7 and frame["extra"].map(lambda e: e["context_kind"]).eq("un_text").all()
    prompts = frame.set_index("persona")["messages"].map(lambda m: m[-1]["content"])
    assert "Présenté par : Chine\n" in prompts["CHN|FRA"] and "version française" in prompts["CHN|FRA"]
    assert "Présenté par : États-Unis d’Amérique\n" in prompts["USA|FRA"]
    assert "Présenté par" not in prompts["none|FRA"] and not prompts.str.contains("Submitted by").any()
    audit = RunStore().get_run("fr")["attribution_audit"]
    assert audit["text_languages"] == {"fr": 1} and audit["un_text_not_used"] == {}


def test_in_batches_the_rows_are_the_online_ones(
    fault_server: FaultServerFactory, batch_server: Any, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NATIONBIAS_BATCH_POLL_S", "0.05")
    online, server = fault_server(), batch_server()
    options = {"model": MODEL, "limit": 2, "repeats": 1, "show_progress": False}
    nationbias.run("attribution", base_url=online.base_url, run_id="online", **options)
    nationbias.run("attribution", base_url=server.base_url, run_id="batched", batch=True, **options)
    rows = comparable(isolated_home, "online")
    assert len(rows) == 2 * 7 and comparable(isolated_home, "batched") == rows
    assert server.app.state.chat_calls == 0  # every arm went through the batch API
