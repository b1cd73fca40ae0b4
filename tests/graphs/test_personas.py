"""Who votes in a study: ``--personas`` and ``--years`` on the Council and the Assembly, bad input first."""

from __future__ import annotations

import datetime as dt

import pytest

from nationbias.graphs.study.personas import PersonaError, plan_personas
from nationbias.graphs.study.sampling import (
    SampleOptions,
    eligible,
    load_items,
    parse_years,
    skipped_items,
    vote_tasks,
)
from nationbias.stores.corpora.corpus import Corpus
from nationbias.stores.corpora.regions import regional_group
from nationbias.stores.domain import P5
from nationbias.stores.errors import InputError
from nationbias.stores.records import Record, Tally


def roll_call(rcid: int, votes: dict[str, str], year: int = 2010) -> Record:
    counts = {v: list(votes.values()).count(v) for v in "YNA"}
    return Record(
        id=f"UNGA-{rcid}",
        body="unga",
        kind="draft",
        adopted=True,
        date=dt.date(year, 1, 1 + rcid % 27),
        tally=Tally(yes=counts["Y"], no=counts["N"], abstain=counts["A"]),
        votes=votes,
    )


@pytest.fixture(scope="module")
def assembly() -> Corpus:
    return load_items(SampleOptions(body="unga", years=(2005, 2019)))


def test_every_state_present_is_a_persona_and_absent_ones_are_skipped_and_counted() -> None:
    calls = [roll_call(1, {"BRA": "Y", "USA": "N"}), roll_call(2, {"BRA": "A", "IND": "Y"}), roll_call(3, {})]
    corpus = Corpus(records=calls)
    options = SampleOptions(body="unga", personas="all", repeats=1)
    assert [r.id for r in eligible(corpus, options)] == ["UNGA-1", "UNGA-2"]  # no vote: not an item
    assert skipped_items(corpus, options) == 1
    tasks = vote_tasks("vote", eligible(corpus, options), options)
    assert [(t.item, t.persona) for t in tasks] == [
        ("UNGA-1", "USA"),
        ("UNGA-1", "BRA"),
        ("UNGA-2", "BRA"),
        ("UNGA-2", "IND"),
    ]
    plan = plan_personas("USA,IND", eligible(corpus, options))
    assert [plan.for_item(r) for r in calls[:2]] == [["USA"], ["IND"]]
    assert plan.skipped(calls[:2]) == 2  # USA on 2, IND on 1: not scored, counted


def test_codes_groups_and_seeded_samples_on_the_assembly(assembly: Corpus) -> None:
    items = eligible(assembly, SampleOptions(body="unga", years=(2005, 2019)))
    assert len(items) > 1000 and all(2005 <= r.date.year <= 2019 and r.votes for r in items)
    assert plan_personas("bra, nga,IND", items).chosen == ("BRA", "NGA", "IND")
    weog = plan_personas("group:weog", items).chosen
    assert weog and {"USA", "GBR", "FRA", "DEU"} <= set(weog)
    assert all(regional_group(code) == "WEOG" for code in weog)
    first = plan_personas("sample:12", items, seed=3).chosen
    assert first == plan_personas("sample:12", items, seed=3).chosen and first is not None
    assert len(set(first)) == 12 and first != plan_personas("sample:12", items, seed=4).chosen
    p5 = plan_personas("p5", items)
    assert set(p5.for_item(items[0])) <= set(P5)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("BRA,XXX", r"unknown persona\(s\) \['XXX'\]"),
        ("group:Atlantis", "unknown group 'Atlantis'"),
        ("sample:0", "sample:N needs a whole number"),
        (" , ", "--personas is empty"),
    ],
)
def test_bad_personas_fail_before_any_call(assembly: Corpus, spec: str, message: str) -> None:
    items = eligible(assembly, SampleOptions(body="unga", years=(2015, 2015)))
    with pytest.raises(PersonaError, match=message):
        plan_personas(spec, items)


def test_council_lists_skip_unseated_members_and_groups_are_the_assemblys(corpus: Corpus) -> None:
    drafts = corpus.drafts
    plan = plan_personas("USA,Brazil", drafts)
    seated = [d for d in drafts if "Brazil" in d.votes]
    assert 0 < len(seated) < len(drafts)
    assert all(plan.for_item(d) == ["USA", "Brazil"] for d in seated)
    assert plan.skipped(drafts) == len(drafts) - len(seated)
    assert plan_personas("p5", drafts).for_item(drafts[0]) == list(P5)
    assert len(plan_personas("all", drafts).for_item(drafts[0])) == 15
    with pytest.raises(PersonaError, match="groups are for the Assembly"):
        plan_personas("group:WEOG", drafts)


@pytest.mark.parametrize(
    ("text", "message"),
    [("2019-2005", "the window is empty"), ("20x5", "give a year"), ("2005-2010-2015", "give a year")],
)
def test_bad_year_windows(text: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        parse_years(text)


def test_a_window_without_items_is_an_error(corpus: Corpus) -> None:
    assert parse_years("2010") == (2010, 2010) and parse_years(" ") is None
    with pytest.raises(InputError, match="--years 2001-2002 reaches outside the record: the Council's non"):
        eligible(corpus, SampleOptions(years=(2001, 2002)))
    calls = Corpus(records=[roll_call(1, {"BRA": "Y"}, 2000), roll_call(2, {"BRA": "N"}, 2002)])
    with pytest.raises(InputError, match="no unga item with a recorded vote in 2001: the window is empty"):
        eligible(calls, SampleOptions(body="unga", years=(2001, 2001)))
    with pytest.raises(
        InputError, match=r"start in 2000 and end in 2002; give a window inside it \(e.g. 2000-2002\)"
    ):
        eligible(calls, SampleOptions(body="unga", years=(1999, 2003)))


def test_the_assemblys_years_are_1946_to_2020_and_a_window_past_them_names_them() -> None:
    with pytest.raises(
        InputError, match=r"--years 2030 reaches outside .* roll calls with a recorded vote end in 2020"
    ):
        eligible(
            load_items(SampleOptions(body="unga", years=(2030, 2030))),
            SampleOptions(body="unga", years=(2030, 2030)),
        )
    early = SampleOptions(body="unga", years=(1900, 1950))
    with pytest.raises(InputError, match=r"start in 1946; give a window inside it \(e.g. 1946-1950\)"):
        eligible(load_items(early), early)
    whole = SampleOptions(body="unga", years=(1946, 2020))  # the record's own years: no error
    assert len(eligible(load_items(whole), whole)) > 6000
    with pytest.raises(InputError, match="choose unsc"):
        SampleOptions(body="ungaa")  # type: ignore[arg-type]
