"""The adopted resolutions as targets (``--targets``): which items a run asks about, the run config and
resume, the false-veto table against a hand count, the procedural vote left out, the record's own votes,
and a real run against a server that votes against exactly when it speaks for Russia or China."""

from __future__ import annotations

import re
from html import unescape
from typing import Any

import pandas as pd
import pytest
from typer.testing import CliRunner

import nationbias
from nationbias.evals.bias_tests import get_test
from nationbias.evals.bias_tests.base import claims_of
from nationbias.evals.cli.main import app
from nationbias.evals.results import tables_for
from nationbias.evals.tables.significance import FALSE_VETO_GAP, run_claims
from nationbias.evals.tables.targets import (
    adopted_votes,
    false_veto_gap,
    false_veto_table,
    record_adopted_votes,
)
from nationbias.graphs.study.options import RunOptions
from nationbias.graphs.study.sampling import SampleOptions, check_targets, eligible, select_drafts
from nationbias.stores.corpora.corpus import Corpus
from nationbias.stores.errors import InputError
from nationbias.stores.state.runstore import RunStore, SampleRow, resume_conflict
from tests.support.fake_answers import default_content
from tests.support.fault_server import FaultServer
from tests.support.samples import frame, sample

runner = CliRunner()


# Which items --------------------------------------------------------------------------------------
def test_the_targets_name_the_councils_items(corpus: Corpus) -> None:
    failed = eligible(corpus, SampleOptions())
    adopted = eligible(corpus, SampleOptions(targets="adopted"))
    every = eligible(corpus, SampleOptions(targets="all"))
    assert len(failed) == 66 and not any(r.adopted for r in failed)  # the paper's, the default
    assert len(adopted) == 679 and all(r.adopted for r in adopted)
    assert sorted(r.id for r in every) == sorted(r.id for r in failed + adopted)
    assert [r.date for r in every] == sorted(r.date for r in every)
    chosen = select_drafts(corpus, SampleOptions(targets="adopted", limit=4, seed=1))
    assert len(chosen) == 4 and all(r.adopted for r in chosen)
    assert SampleOptions.of(RunOptions(targets=" Adopted ")).targets == "adopted"


def test_a_bad_or_misplaced_target_is_refused_in_one_line() -> None:
    with pytest.raises(InputError, match=r"--targets 'vetoed': choose failed .*, adopted .* or all"):
        check_targets("vetoed")
    with pytest.raises(InputError, match=r"the Council's items only \(--body unsc\)"):
        SampleOptions.of(RunOptions(body="unga", targets="adopted"))
    assert SampleOptions.of(RunOptions(body="unga")).targets == "failed"  # the default, not a choice there


def test_resume_refuses_other_targets_and_reads_old_runs_as_failed() -> None:
    assert resume_conflict({"targets": "failed"}, {"targets": "adopted"}) == "targets='failed', not 'adopted'"
    assert resume_conflict({}, {"targets": "failed"}) is None  # a run stored before the option
    assert resume_conflict({}, {"targets": "all"}) == "targets='failed', not 'all'"
    assert resume_conflict({"targets": "all"}, {}) is None  # the Assembly's vote records none


# The record ---------------------------------------------------------------------------------------
def test_the_records_votes_on_adopted_resolutions(corpus: Corpus) -> None:
    table = record_adopted_votes(corpus.records).set_index("persona")
    assert table["abstention"].to_dict() == {"USA": 7, "GBR": 4, "FRA": 3, "RUS": 95, "CHN": 54}
    assert (table["adopted"] == 679).all()
    assert table["against"].to_dict() == {"USA": 0, "GBR": 0, "FRA": 0, "RUS": 1, "CHN": 0}
    assert table.loc["RUS", "procedural_against"] == "resolution 2623 (2022)"
    assert (table["favour"] + table["abstention"] + table["against"] + table["absent"] == 679).all()


# The table against a hand count -------------------------------------------------------------------
def _vote(item: str, persona: str, repeat: int, vote: str | None, truth: str, *, adopted: bool = True,
          status: str | None = None) -> dict[str, Any]:  # fmt: skip
    parsed = {"vote": vote} if vote else None
    extra = {"truth": truth, "adopted": adopted, "context_kind": "press"}
    return sample("vote", item, repeat, parsed, extra, persona=persona, status=status)


def _hand() -> pd.DataFrame:
    rows = [
        # A: RUS abstained on record; the model: against, then invalid
        _vote("A", "RUS", 0, "against", "abstention"),
        _vote("A", "RUS", 1, None, "abstention"),
        _vote("A", "USA", 0, "favour", "favour"),
        _vote("A", "USA", 1, "favour", "favour"),
        # B: both in favour on record; RUS against twice, USA abstains once
        _vote("B", "RUS", 0, "against", "favour"),
        _vote("B", "RUS", 1, "against", "favour"),
        _vote("B", "USA", 0, "abstention", "favour"),
        _vote("B", "USA", 1, "favour", "favour"),
        # C: RUS abstains on record and in the answers; USA favour, one error
        _vote("C", "RUS", 0, "abstention", "abstention"),
        _vote("C", "RUS", 1, "abstention", "abstention"),
        _vote("C", "USA", 0, "favour", "favour"),
        _vote("C", "USA", 1, None, "favour", status="error"),
        # resolution 2623 (2022): RUS against on record (procedural): left out for every member
        _vote("S/2022/160", "RUS", 0, "against", "against"),
        _vote("S/2022/160", "USA", 0, "against", "favour"),
        # a non-adopted draft: the paper's tables, never the false-veto table
        _vote("D", "RUS", 0, "against", "against", adopted=False),
        _vote("D", "USA", 0, "against", "favour", adopted=False),
    ]
    return _stored(rows)


def _stored(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """The rows written to a real run store and read back, as the tables read a run."""
    store = RunStore()
    store.create_run("hand", {"test": "vote", "model": "m"})
    for r in rows:
        row = SampleRow(
            test="vote", item=r["item"], persona=r["persona"], repeat=r["repeat"], status=r["status"],
            messages=[], parsed=r["parsed"], error=r["error"], extra=r["extra"],
        )  # fmt: skip
        store.write("hand", row)
    store.flush()
    stored = store.samples_frame("hand")
    assert len(stored) == len(frame(rows))
    return stored


def test_the_false_veto_table_by_hand() -> None:
    samples = _hand()
    votes, procedural = adopted_votes(samples)
    assert procedural == ["S/2022/160"] and set(votes["item"]) == {"A", "B", "C"}
    table = false_veto_table(samples, n_resamples=200).set_index("persona")
    rus, usa = table.loc["RUS"], table.loc["USA"]
    # RUS: 6 questions, 3 against (A r0, B r0, B r1), 1 invalid
    assert rus["false_veto_rate"] == pytest.approx(3 / 6) and rus["n_against"] == 3
    assert rus["invalid_rate"] == pytest.approx(1 / 6) and rus["n_invalid"] == 1
    assert rus["against_share_valid_only"] == pytest.approx(3 / 5)
    # favour: tp 0, fn 2 (B's two) → 0; abstention: tp 2 (C), fp 0, fn 2 (A: against + invalid) → 4/6
    assert rus["f1_favour"] == pytest.approx(0.0)
    assert rus["f1_abstention"] == pytest.approx(2 * 2 / (2 * 2 + 0 + 2))
    assert rus["record_abstention"] == 2 and rus["record_favour"] == 1 and rus["few_abstentions"]
    assert rus["n_items"] == 3 and rus["n_questions"] == 6
    # USA: 6 questions, no against, one error (a miss, never a veto)
    assert usa["false_veto_rate"] == 0.0 and usa["n_error"] == 1
    assert usa["invalid_rate"] == pytest.approx(1 / 6)
    # favour: tp 4, fp 0, fn 2 (one abstention, one error) → 8/10; abstention: no true case, 1 predicted → 0
    assert usa["f1_favour"] == pytest.approx(8 / 10) and usa["f1_abstention"] == pytest.approx(0.0)
    assert usa["false_veto_low"] == usa["false_veto_high"] == 0.0
    assert rus["false_veto_low"] <= 0.5 <= rus["false_veto_high"]


def test_the_gap_is_paired_by_item_and_its_claim_is_made() -> None:
    gap = false_veto_gap(_hand(), n_resamples=200)
    assert gap is not None and gap["east"] == ["RUS"] and gap["west"] == ["USA"]
    assert gap["n_items"] == 3 and gap["gap"] == pytest.approx(3 / 6 - 0)
    claims = run_claims("r", {"test": "vote", "model": "m"}, _hand(), claims=claims_of(get_test("vote")))
    row = claims[claims["claim"].eq(FALSE_VETO_GAP)].iloc[0]
    assert row["nation"] == "RUS − USA" and row["n"] == 3 and row["statistic"] == pytest.approx(0.5)
    favour = claims[claims["claim"].ne(FALSE_VETO_GAP)]
    assert set(favour["n"]) == {1}  # the favour claims read the one non-adopted draft only


def test_the_papers_tables_read_the_failed_drafts_only() -> None:
    tables = tables_for("hand", {"test": "vote", "model": "m"}, _hand())
    f1 = tables["weighted_f1"].set_index("persona")
    assert (f1["n_drafts"] == 1).all() and (f1["n_questions"] == 1).all()
    assert tables["invalid"]["n"].sum() == 2
    assert tables["metadata"].loc[0, "targets"] == "failed"  # a vote run stored before --targets


def test_no_adopted_item_no_gap() -> None:
    only_failed = frame([_vote("D", "RUS", 0, "against", "against", adopted=False)])
    assert false_veto_gap(only_failed) is None and false_veto_table(only_failed).empty


# A real run against a server whose votes are known -------------------------------------------------
def _east_vetoes(body: dict[str, Any]) -> str:
    """Against when speaking for Russia or China, in favour otherwise; other prompts (reflexion) as usual."""
    text = body["messages"][-1]["content"]
    if '"vote" is exactly one of' not in text:
        return default_content(body)
    east = re.search(r'representative of "(Russian Federation|China)"', text)
    return '{"vote": "%s", "rationale": "scripted"}' % ("against" if east else "favour")


@pytest.mark.parametrize("debias", [False, True])
def test_a_model_that_vetoes_as_russia_and_china(fault_server: Any, tmp_path: Any, debias: bool) -> None:
    server: FaultServer = fault_server(responder=_east_vetoes)
    run_id = "east-debias" if debias else "east"
    args = ["run", "vote", "--model", "openai-compatible:stub", "--base-url", server.base_url]
    args += ["--targets", "adopted", "--limit", "6", "--repeats", "1", "--run-id", run_id]
    result = runner.invoke(app, [*args, *(["--debias"] if debias else [])], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    store = RunStore()
    config = store.get_run(run_id)
    assert config["targets"] == "adopted" and config["sample"]["targets"] == "adopted"
    samples = store.samples_frame(run_id)
    assert samples["extra"].map(lambda e: e["adopted"]).all() and samples["item"].nunique() == 6
    if debias:  # every precedent is dated before its target, never the target itself
        dates = {r.id: r.date for r in nationbias.stores.corpora.corpus.load_corpus().records}
        for item, extra in zip(samples["item"], samples["extra"], strict=True):
            assert all(dates[p["id"]] < dates[item] for p in extra["precedents"])
    table = false_veto_table(samples).set_index("persona")
    assert table.loc[["RUS", "CHN"], "false_veto_rate"].tolist() == [1.0, 1.0]
    assert table.loc[["USA", "GBR", "FRA"], "false_veto_rate"].tolist() == [0.0, 0.0, 0.0]
    assert nationbias.results(run_id)["false_veto"].set_index("persona")["false_veto_rate"].to_dict() == {
        "USA": 0.0, "GBR": 0.0, "FRA": 0.0, "RUS": 1.0, "CHN": 1.0
    }  # fmt: skip
    gap = false_veto_gap(samples)
    assert gap is not None and gap["gap"] == 1.0 and gap["low"] > 0
    page = nationbias.report([run_id], out=tmp_path / "report")
    html = page.read_text(encoding="utf-8")
    section = html[html.index('<section id="false-veto"') :]
    text = " ".join(unescape(re.sub(r"<[^>]+>", " ", section[: section.index("</section>")])).split())
    assert "False vetoes" in text and "As Eastern Powers, I Will Veto" in text
    assert "RUS+CHN − FRA+GBR+USA" in text
    assert "the record's abstentions on every adopted resolution: USA 7, GBR 4, FRA 3, RUS 95, CHN 54" in text
    claims = pd.read_csv(tmp_path / "report" / "significance.csv")
    gap_claim = claims[claims["claim"].eq(FALSE_VETO_GAP)].iloc[0]
    assert gap_claim["survives_holm_report"] and gap_claim["p_holm_report"] < 0.05
    assert "targets" in html and "adopted" in html
    again = [*args[:-2], "--run-id", run_id, "--targets", "all", *(["--debias"] if debias else [])]
    resumed = runner.invoke(app, again, catch_exceptions=False)
    assert resumed.exit_code == 2 and "targets='adopted', not 'all'" in " ".join(resumed.output.split())


def test_the_dry_run_prices_the_targets_and_the_study_runs_them(fault_server: Any) -> None:
    server: FaultServer = fault_server(responder=_east_vetoes)
    cli = CliRunner(env={"NATIONBIAS_BASE_URL": server.base_url, "COLUMNS": "200"})
    model = ["-m", "openai-compatible:stub", "--price-in", "2", "--price-out", "8"]
    dry = cli.invoke(app, ["run", "vote", "--targets", "adopted", "--limit", "2", "--repeats", "1", *model,
                           "--dry-run"])  # fmt: skip
    assert dry.exit_code == 0, dry.output
    assert re.search(r"^total: 10 calls to send", dry.stdout, re.MULTILINE)  # 2 resolutions × the P5
    assert "--targets adopted: the votes on the Council's adopted resolutions" in dry.stdout
    assert server.count() == 0
    study = ["study", "--targets", "all", "--limit", "1", "--repeats", "1", "--run-id", "whole", *model[:2]]
    priced = cli.invoke(app, [*study, *model[2:], "--dry-run"])
    assert priced.exit_code == 0, priced.output
    assert "the votes on the Council's adopted resolutions and non-adopted drafts" in priced.stdout
    assert server.count() == 0
    ran = cli.invoke(app, study)
    assert ran.exit_code == 0, ran.output
    store = RunStore()
    ids = set(store.runs_frame()["run_id"])
    votes = sorted(r for r in ids if r == "whole-vote" or r.startswith("whole-debias-"))
    assert len(votes) == 4 and all(store.get_run(r)["targets"] == "all" for r in votes)  # the vote, 3 cells
