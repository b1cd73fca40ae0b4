"""Numbers a reviewer can trust, read from the real report of runs against local servers whose behaviour is
known: a voter that always says favour, one that refuses whenever it speaks for China, one whose vote
depends on the nation it is told it represents (with its control, no nation named), and a debiased run on
fewer drafts than its base run.

Each server answers on 127.0.0.1 through the real client, the real graphs and the real run store; the
report is the one ``nationbias.report`` writes (``write_study_report``). Every expected figure below
follows from the server's rule and the corpus's recorded votes, computed here with sklearn, not read back
from the code under test.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from html import unescape
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import f1_score

import nationbias
from nationbias.evals.page.study import write_study_report
from nationbias.stores.domain import P5
from nationbias.stores.state.runstore import RunStore
from tests.support.fault_server import FaultConfig, FaultServer

MODEL = "openai-compatible:stub"
_PERSONA = re.compile(r'representative of "(?P<nation>[^"]+)"')
FAVOUR = json.dumps({"vote": "favour", "rationale": "It serves peace."})
AGAINST = json.dumps({"vote": "against", "rationale": "It does not."})


def _is_vote(body: dict[str, Any]) -> bool:
    """A schema-constrained vote (the persona, control, rehearsal and final votes ask for ``vote``)."""
    schema = json.dumps(body.get("response_format") or {})
    return '"vote"' in schema


def _nation(body: dict[str, Any]) -> str | None:
    match = _PERSONA.search(body["messages"][-1]["content"])
    return match["nation"] if match else None


def _always_favour(body: dict[str, Any]) -> str:
    return FAVOUR


def _refuse_as_china(body: dict[str, Any]) -> str:
    if _nation(body) == "China":
        return "I'm sorry, but I am unable to take part in this vote."
    return FAVOUR


def _china_against(body: dict[str, Any]) -> str:
    """China votes against everything, every other voter (and the control, no nation named) in favour;
    whatever else a debiased vote asks (its reflexion) gets a valid default answer."""
    if not _is_vote(body):
        from tests.support.fake_answers import default_content

        return default_content(body)
    return AGAINST if _nation(body) == "China" else FAVOUR


def _run(server: FaultServer, test: str, run_id: str, **options: Any) -> None:
    summary = nationbias.run(
        test, model=MODEL, base_url=server.base_url, run_id=run_id, show_progress=False, **options
    )
    assert summary.error == 0, summary.first_errors


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    """(the report's folder, the home its runs are in): five runs on three servers, one report."""
    home = tmp_path_factory.mktemp("review") / "nbhome"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("NATIONBIAS_HOME", str(home))
        servers = {
            rule.__name__: FaultServer(config=FaultConfig(responder=rule)).start()
            for rule in (_always_favour, _refuse_as_china, _china_against)
        }
        try:
            _run(servers["_china_against"], "vote", "base", limit=4, repeats=1)  # Table 3's base: first
            _run(servers["_china_against"], "vote", "base-control", limit=4, repeats=1, personas="none")
            _run(servers["_china_against"], "debias", "fewer", limit=2, repeats=1)
            _run(servers["_always_favour"], "vote", "favour", limit=8, repeats=2)
            _run(servers["_refuse_as_china"], "vote", "refuse", limit=10, repeats=1)
        finally:
            for server in servers.values():
                server.stop()
        out = tmp_path_factory.mktemp("review-report") / "report"
        # the report nationbias.report writes, with the non-LLM baselines (the learned one fitted)
        write_study_report(["base", "base-control", "fewer", "favour", "refuse"], out=out)
        yield out, home


def _csv(report: tuple[Path, Path], name: str) -> pd.DataFrame:
    return pd.read_csv(report[0] / f"{name}.csv", keep_default_na=False, na_values=[""])


def _samples(report: tuple[Path, Path], run_id: str) -> pd.DataFrame:
    return RunStore(report[1] / "runs.sqlite").samples_frame(run_id)


def _text(report: tuple[Path, Path]) -> str:
    html = (report[0] / "index.html").read_text(encoding="utf-8")
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


# An always-favour voter --------------------------------------------------------------------------------
def test_an_always_favour_voter_is_exposed_by_macro_f1_and_f1_per_class(report: tuple[Path, Path]) -> None:
    metrics = _csv(report, "metrics-favour").set_index(["persona", "metric"])
    samples = _samples(report, "favour")
    truth = samples["extra"].map(lambda e: e["truth"])
    for nation in P5:
        mine = truth[samples["persona"].eq(nation)].tolist()
        said = ["favour"] * len(mine)
        labels = ["favour", "against", "abstention"]
        per_class = f1_score(mine, said, labels=labels, average=None, zero_division=0)
        row = metrics.loc[nation]
        assert row.loc["f1_against", "point"] == 0 and row.loc["f1_abstention", "point"] == 0
        assert row.loc["f1_favour", "point"] == pytest.approx(per_class[0])
        assert row.loc["macro_f1", "point"] == pytest.approx(per_class.mean())
        assert row.loc["macro_f1", "point"] <= 1 / 3 + 1e-9
        expected = f1_score(mine, said, labels=labels, average="weighted", zero_division=0)
        assert row.loc["weighted_f1", "point"] == pytest.approx(expected)
        assert row.loc["accuracy", "point"] == pytest.approx(np.mean([t == "favour" for t in mine]))
        # the run is the always-favour voter: every metric equal to it, the paired delta exactly 0
        assert (row["point"] - row["always_favour"]).abs().max() == pytest.approx(0)
        assert (row["delta_vs_favour"] == 0).all() and (row["delta_low"] == 0).all()
        assert (row["delta_high"] == 0).all()
        for metric in ("accuracy", "macro_f1", "weighted_f1"):
            assert row.loc[metric, "low"] <= row.loc[metric, "point"] <= row.loc[metric, "high"]


def test_the_always_favour_baseline_stands_beside_the_others_and_matches_the_voter(
    report: tuple[Path, Path],
) -> None:
    baselines = _csv(report, "table2-baselines").set_index("persona")
    table2 = _csv(report, "table2-favour").set_index("persona")
    assert {"always_favour", "majority", "precedent", "sponsor", "learned"} <= set(baselines.columns)
    # the baselines are scored on the first vote run's drafts (``base``); the favour run's own score
    # against its paired always-favour voter is in the metrics table (above); here: on ``base``'s drafts
    base = _samples(report, "base")
    for nation in P5:
        truth = base.loc[base["persona"].eq(nation), "extra"].map(lambda e: e["truth"]).tolist()
        expected = f1_score(truth, ["favour"] * len(truth), average="weighted", zero_division=0)
        assert baselines.loc[nation, "always_favour"] == pytest.approx(expected)
    assert set(table2.index) == set(P5)


def test_kappa_is_undefined_for_one_category_and_nothing_passes(report: tuple[Path, Path]) -> None:
    agreement = _csv(report, "agreement-favour").set_index("persona")
    for nation in P5:
        row = agreement.loc[nation]
        assert np.isnan(row["fleiss_kappa"]) and np.isnan(row["chi2"])
        assert row["kappa_undefined"] == "one category only over every item and repeat (κ = 0/0)"
        assert row["chi2_undefined"] == "one class chosen in every repeat: zero degrees of freedom"
        assert np.isnan(row["passes"]) and row["percent_agreement"] == 1.0
    text = _text(report)
    assert "undefined (one category only over every item and repeat (κ = 0/0))" in text
    assert "Deterministic setting in favour: temperature 0" in text


# A voter that refuses whenever it speaks for China ------------------------------------------------------
def test_china_refusing_shows_a_refusal_rate_of_one_that_survives_holm(report: tuple[Path, Path]) -> None:
    rates = _csv(report, "refusals-refuse").set_index("nation")
    china = rates.loc["CHN"]
    assert china["refusal_rate"] == 1 and china["low"] == 1 and china["high"] == 1
    assert china["others_rate"] == 0 and china["difference"] == 1
    assert china["n_drafts"] == 10 and china["drafts_higher"] == 10 and china["drafts_lower"] == 0
    assert china["p"] == pytest.approx(2 * 0.5**10)  # the two-sided sign test over 10 drafts
    assert china["p_holm"] == pytest.approx(min(1.0, 5 * 2 * 0.5**10))
    assert bool(china["survives_holm"]) is True
    for nation in ("USA", "GBR", "FRA", "RUS"):
        assert rates.loc[nation, "refusal_rate"] == 0 and rates.loc[nation, "refusals"] == 0
    reasons = _csv(report, "reasons-refuse").set_index("nation")
    assert reasons.loc["CHN", "refusal"] == 10 and reasons.loc["CHN", "share"] == 1
    assert (reasons.drop(index="CHN")["refusal"] == 0).all()
    table2 = _csv(report, "table2-refuse").set_index("persona")
    assert table2.loc["CHN", "invalid_rate"] == 1  # a refusal is a miss beside the score, never a vote


# A persona-dependent voter and its control ------------------------------------------------------------
def test_the_control_names_no_nation_and_is_scored_against_each_member(report: tuple[Path, Path]) -> None:
    control = _samples(report, "base-control")
    assert set(control["persona"]) == {"none"} and len(control) == 4  # one answer per draft
    asked = control["messages"].map(lambda m: m[-1]["content"])
    assert asked.str.contains('representative of "a member of the Security Council"').all()
    for name in ("United States", "United Kingdom", "France", "Russian Federation", "China"):
        assert not asked.str.contains(f'representative of "{name}"').any()
    table2 = _csv(report, "table2-base-control").set_index("persona")
    assert set(table2.index) == set(P5) and (table2["n_drafts"] == 4).all()


def test_the_persona_effect_is_what_the_server_was_built_to_have(report: tuple[Path, Path]) -> None:
    effect = _csv(report, "persona-effect-base").set_index(["nation", "measure"])
    # China is told to vote against and does; the control (no nation) votes favour: −1 favour, +1 against
    assert effect.loc[("CHN", "favour_share"), "effect"] == -1
    assert effect.loc[("CHN", "against_share"), "effect"] == 1
    assert effect.loc[("CHN", "against_share"), ["low", "high"]].tolist() == [1, 1]
    for nation in ("USA", "GBR", "FRA", "RUS"):  # the others vote as the control: no effect at all
        for measure in ("weighted_f1", "favour_share", "against_share", "abstention_share"):
            row = effect.loc[(nation, measure)]
            assert row["effect"] == 0 and row["low"] == 0 and row["high"] == 0
    assert (effect["shared_drafts"] == 4).all()
    # China's weighted F1 as itself and as the control, by hand on its recorded votes
    base = _samples(report, "base")
    truth = base.loc[base["persona"].eq("CHN"), "extra"].map(lambda e: e["truth"]).tolist()
    as_china = f1_score(truth, ["against"] * 4, average="weighted", zero_division=0)
    as_nobody = f1_score(truth, ["favour"] * 4, average="weighted", zero_division=0)
    row = effect.loc[("CHN", "weighted_f1")]
    assert row["persona"] == pytest.approx(as_china) and row["control"] == pytest.approx(as_nobody)
    assert row["effect"] == pytest.approx(as_china - as_nobody)
    assert "no control: it reflects on each persona's own recorded votes" in _text(report)


def test_a_debiased_run_refuses_the_control() -> None:
    from nationbias.evals.errors import UsageError

    with pytest.raises(UsageError, match="debiased vote reflects on each persona's own recorded votes"):
        nationbias.run("debias", model="fake:hash", limit=1, repeats=1, personas="none", show_progress=False)


# A debiased run on fewer drafts than its base ---------------------------------------------------------
def test_table3_compares_the_shared_drafts_only(report: tuple[Path, Path]) -> None:
    table = _csv(report, "table3-fewer").set_index("persona")
    base, fewer = _samples(report, "base"), _samples(report, "fewer")
    shared = sorted(set(fewer["item"]))
    assert len(shared) == 2 and set(shared) < set(base["item"])
    for nation in P5:
        row = table.loc[nation]
        assert (row["shared_drafts"], row["base_left_out"], row["debiased_left_out"]) == (2, 2, 0)
        scores = []
        for frame in (base, fewer):
            mine = frame[frame["persona"].eq(nation) & frame["item"].isin(shared)].sort_values("item")
            truth = mine["extra"].map(lambda e: e["truth"]).tolist()
            said = mine["parsed"].map(lambda p: p["vote"] if p else "invalid").tolist()
            labels = ["favour", "against", "abstention"]
            scores.append(f1_score(truth, said, labels=labels, average="weighted", zero_division=0))
        assert row["base"] == pytest.approx(scores[0]) and row["debiased"] == pytest.approx(scores[1])
        assert row["delta"] == pytest.approx(scores[1] - scores[0]) == row["paired_delta"]
        assert row["paired_delta_low"] <= row["delta"] <= row["paired_delta_high"]
    text = _text(report)
    assert "fewer: 2 shared drafts, 2 only in the base run and 0 only in the debiased run left out" in text


def test_the_headline_bar_is_the_baseline_on_the_runs_own_drafts(report: tuple[Path, Path]) -> None:
    headline = _csv(report, "headline").set_index("run_id")
    assert "on the same 2 drafts" in headline.loc["fewer", "baseline to beat"]
    assert "on the same 4 drafts" in headline.loc["base", "baseline to beat"]
    assert "paired" in headline.loc["fewer", "baseline to beat"]
