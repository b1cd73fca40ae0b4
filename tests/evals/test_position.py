"""Answer order: the position tables against a hand count, and against real local servers whose answer
follows the place in the question (always the second option; the names in the order given), through
the real runs and the real report: position consistency 0 and a flagged headline."""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import nationbias
from nationbias.evals.tables import position as P
from nationbias.stores.domain import P5, P5_NAMES
from tests.support.fault_server import FaultServer
from tests.support.samples import frame, sample

NAMES = {name: code for code, name in P5_NAMES.items()}


def _qa(order: str, label: str | None, *, repeat: int = 0, family: str = "general") -> dict[str, Any]:
    parsed = {"label": label} if label else None
    return sample("directqa", family, repeat, parsed, {"labeller": "rules"}, pair_order=order)


def _second(order: str) -> str:
    return order.split("-")[1]


PAIRS = ("USA-CHN", "CHN-USA", "RUS-FRA", "FRA-RUS", "GBR-USA", "USA-GBR")


# DirectQA by hand --------------------------------------------------------------------------------------
def test_a_model_that_always_picks_the_second_option() -> None:
    samples = frame([_qa(order, _second(order), repeat=r) for order in PAIRS for r in (0, 1)])
    table = P.directqa_position(samples, n_resamples=200).set_index("measure")
    assert table.loc[P.TAKES_B, "share"] == 1.0 and table.loc[P.TAKES_A, "share"] == 0.0
    assert (table.loc[P.TAKES_B, "count"], table.loc[P.TAKES_B, "n"]) == (12, 12)
    assert table.loc[P.TAKES_B, "low"] > 0.5
    consistency = table.loc[P.CONSISTENCY]
    assert consistency["share"] == 0.0 and (consistency["count"], consistency["n"]) == (0, 6)
    assert P.position_consistent_directqa(samples).empty
    pairs = P.pair_consistency(samples)
    assert list(pairs.columns) == P.PAIR_COLUMNS and (pairs["consistency"] == 0).all()
    assert pairs["n_both"].tolist() == [2, 2, 2]
    flag = P.position_flag(
        P.directqa_position(samples, n_resamples=200),
        family="general",
        measures=(P.TAKES_A, P.TAKES_B),
        top="CHN",
        top_consistent=None,
    )
    assert "takes position (b): 1.000" in flag and "no position-consistent answer" in flag


def test_a_model_that_reads_the_nations_is_consistent_and_not_flagged() -> None:
    preference = ["RUS", "CHN", "USA", "GBR", "FRA"]  # the more irresponsible first, whatever the order

    def chosen(order: str) -> str:
        a, b = order.split("-")
        return a if preference.index(a) < preference.index(b) else b

    samples = frame([_qa(order, chosen(order)) for order in PAIRS])
    table = P.directqa_position(samples, n_resamples=200).set_index("measure")
    assert table.loc[P.CONSISTENCY, "share"] == 1.0
    assert table.loc[P.TAKES_A, "share"] == pytest.approx(0.5)  # each pair once per position
    kept = P.position_consistent_directqa(samples)
    assert len(kept) == len(samples)
    flag = P.position_flag(
        P.directqa_position(samples, n_resamples=200),
        family="general",
        measures=(P.TAKES_A, P.TAKES_B),
        top="RUS",
        top_consistent="RUS",
    )
    assert flag == ""


def test_the_position_counts_match_a_hand_count() -> None:
    samples = frame(
        [
            _qa("USA-CHN", "CHN"),
            _qa("CHN-USA", "CHN"),  # consistent: CHN both ways
            _qa("RUS-FRA", "FRA"),
            _qa("FRA-RUS", "RUS"),  # the second both times: inconsistent
            _qa("GBR-USA", "neutral"),
            _qa("USA-GBR", "USA"),  # a neutral side: not counted in consistency
            _qa("USA-CHN", None, family="int_peace_security"),  # invalid: no choice
            _qa("CHN-USA", "USA", family="int_peace_security"),  # one order only answered
        ]
    )
    table = P.directqa_position(samples, n_resamples=200)
    general = table[table["family"].eq("general")].set_index("measure")
    # choices: CHN (b), CHN (a), FRA (b), RUS (b), USA (a) → 2 of 5 take (a), 3 of 5 (b)
    assert (general.loc[P.TAKES_A, "count"], general.loc[P.TAKES_A, "n"]) == (2, 5)
    assert (general.loc[P.TAKES_B, "count"], general.loc[P.TAKES_B, "n"]) == (3, 5)
    assert (general.loc[P.CONSISTENCY, "count"], general.loc[P.CONSISTENCY, "n"]) == (1, 2)
    everything = table[table["family"].eq(P.ALL_FAMILIES)].set_index("measure")
    assert (everything.loc[P.TAKES_B, "count"], everything.loc[P.TAKES_B, "n"]) == (4, 6)  # + USA (b)
    assert (everything.loc[P.CONSISTENCY, "count"], everything.loc[P.CONSISTENCY, "n"]) == (1, 2)
    kept = P.position_consistent_directqa(samples)
    assert sorted(kept["pair_order"]) == ["CHN-USA", "USA-CHN"] and set(kept["item"]) == {"general"}
    pairs = P.pair_consistency(samples).set_index(["family", "pair"])
    assert pairs.loc[("general", "CHN-USA"), "consistency"] == 1.0
    assert pairs.loc[("general", "FRA-RUS"), "consistency"] == 0.0
    assert np.isnan(pairs.loc[("general", "GBR-USA"), "consistency"])


# Association by hand -----------------------------------------------------------------------------------
def _at(keyword: str, given: list[str], ranking: list[str] | None, repeat: int = 0) -> dict[str, Any]:
    parsed = {"ranking": ranking, "polarity": 1} if ranking else None
    extra = {"category": "peace", "order_presented": given}
    return sample("association", keyword, repeat, parsed, extra)


def test_the_association_position_matches_a_hand_count() -> None:
    given = ["CHN", "USA", "GBR", "FRA", "RUS"]
    other = ["USA", "CHN", "GBR", "FRA", "RUS"]
    samples = frame(
        [
            _at("peacekeeping", given, given),  # keeps the order given
            _at("sanctions", given, given),  # keeps it
            _at("vetoes", given, ["CHN", "RUS", "USA", "GBR", "FRA"]),  # first-listed first, order not kept
            _at("ceasefire", given, other),  # neither
            _at("mediation", given, None),  # invalid: not counted
        ]
    )
    table = P.association_position(samples, n_resamples=200).set_index("measure")
    assert (table.loc[P.KEEPS_ORDER, "count"], table.loc[P.KEEPS_ORDER, "n"]) == (2, 4)
    assert (table.loc[P.FIRST_FIRST, "count"], table.loc[P.FIRST_FIRST, "n"]) == (3, 4)
    assert table.loc[P.FIRST_FIRST, "share"] == pytest.approx(0.75)
    free = P.order_free_association(samples)
    assert sorted(free["item"]) == ["ceasefire", "vetoes"]


# Real servers, the real report --------------------------------------------------------------------------
_PAIR = re.compile(r"\(a\)\s*(?P<a>[A-Za-z ]+?),?\s*\(b\)\s*(?P<b>[A-Za-z ]+?)\s*(?:\n|$)")


def _always_second(body: dict[str, Any]) -> str:
    """Names the second option of a DirectQA pair whatever the nations; ranks the Association's names
    in the order given."""
    text = body["messages"][-1]["content"]
    if match := _PAIR.search(text):
        return f"{match['b']}."
    listed = text.split("permanent members of UNSC:", 1)[1].strip().splitlines()[: len(P5)]
    rationale = "The first leads the peacekeeping effort. The second contributes troops and funding."
    return json.dumps({"ranking": [line.strip() for line in listed], "rationale": rationale})


def _section_text(html: str, section_id: str) -> str:
    part = html[html.index(f'<section id="{section_id}"') :]
    part = part[: part.index("</section>")]
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", part)).split())


def test_a_server_that_always_picks_the_second_option_is_flagged_in_the_report(
    fault_server: Any, tmp_path: Path
) -> None:
    server: FaultServer = fault_server(responder=_always_second)
    common = {
        "model": "openai-compatible:stub",
        "base_url": server.base_url,
        "repeats": 1,
        "show_progress": False,
    }
    qa = nationbias.run("directqa", limit=1, run_id="second", **common)
    at = nationbias.run("association", limit=3, run_id="listed", **common)
    assert qa.ok == 20 and at.ok == 3
    tables = nationbias.results("second")
    position = tables["position"].set_index("measure")
    assert position.loc[P.CONSISTENCY, "share"] == 0.0 and position.loc[P.CONSISTENCY, "n"] == 10
    assert position.loc[P.TAKES_B, "share"] == 1.0 and position.loc[P.TAKES_B, "n"] == 20
    assert (tables["position_pairs"]["consistency"] == 0).all()
    kept = nationbias.results("listed")["position"].set_index("measure")
    assert kept.loc[P.KEEPS_ORDER, "share"] == 1.0 and kept.loc[P.KEEPS_ORDER, "n"] == 3

    html = nationbias.report(["second", "listed"], out=tmp_path / "report").read_text(encoding="utf-8")
    first = _section_text(html, "first-screen")
    assert first.count("FLAGGED: answer order") == 2, first
    assert "takes position (b): 1.000" in first and "no position-consistent answer to confirm it" in first
    assert "keeps the order given: 1.000" in first
    directqa = _section_text(html, "figure2-directqa")
    assert "general pair consistency 0.000 [0.000, 0.000] 0 of 10" in directqa, directqa
    assert "general takes position (b) 1.000 [1.000, 1.000] 20 of 20" in directqa
    assert "pair consistency: of the askings" in directqa  # what the number means, on the page
    association = _section_text(html, "figure3-association")
    assert "all keywords keeps the order given 1.000 [1.000, 1.000] 3 of 3" in association, association
    written = pd.read_csv(tmp_path / "report" / "position-second.csv")
    assert list(written.columns) == P.POSITION_COLUMNS
    scored = pd.read_csv(tmp_path / "report" / "irres-consistent-second.csv")
    assert scored["consistent"].isna().all()  # no position-consistent answer: no score, never a zero
