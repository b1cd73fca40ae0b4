"""Statements for reflection: the `statements` field and delegation summaries from real press excerpts."""

from __future__ import annotations

from nationbias.stores.corpora.corpus import Corpus
from nationbias.stores.corpora.countries import to_iso3
from nationbias.stores.text.statements import (
    all_statements_for,
    delegation_summaries,
    filtered_statements,
    statement_problem,
    statements_for,
)


def test_press_summaries_name_the_delegation_on_real_excerpts(corpus: Corpus) -> None:
    record = corpus.get("S/2014/348")
    assert record.press_excerpt is not None
    by_member = dict(delegation_summaries(record.press_excerpt.text))
    assert by_member["USA"].startswith("The representative of the United States said")
    assert by_member["FRA"].startswith("France’s representative, speaking after the vote, said")


def test_tally_sentences_are_not_taken_for_statements(corpus: Corpus) -> None:
    for record in corpus.drafts:
        if record.press_excerpt:
            for _, text in delegation_summaries(record.press_excerpt.text):
                assert "votes in favour" not in text.split(" said")[0]


def test_statements_for_tags_each_source(corpus: Corpus) -> None:
    record = corpus.get("S/2014/348")
    french = statements_for(record, "FRA")
    assert {s.source for s in french} == {"statements", "press_excerpt"}
    assert all(s.member == "FRA" and s.text for s in french)
    assert len({s.text for s in french}) == len(french)
    assert [s.kind for s in french if s.source == "press_excerpt"] == ["summary"]


def test_follow_on_sentences_stay_with_their_speaker(corpus: Corpus) -> None:
    record = corpus.get("S/2016/493") if any(r.id == "S/2016/493" for r in corpus.records) else None
    assert record is not None and record.press_excerpt is not None
    [russia] = [s for s in statements_for(record, "RUS") if s.source == "press_excerpt"]
    # the whole sentence, not cut after the initial in "Petr V. Iliichev"
    assert russia.text.startswith(
        "Speaking after the resolution’s adoption, Petr V. Iliichev (Russian Federation) said"
    )
    assert "He recalled" in russia.text


def test_coverage_over_the_drafts(corpus: Corpus) -> None:
    members = ("USA", "GBR", "FRA", "RUS", "CHN")
    with_any = [r for r in corpus.drafts if any(statements_for(r, m) for m in members)]
    assert len(with_any) >= 61
    press = sum(
        1 for r in corpus.drafts for m in members for s in statements_for(r, m) if s.source == "press_excerpt"
    )
    assert press >= 20


def test_a_statement_that_speaks_of_the_target_is_dropped(corpus: Corpus) -> None:
    """The pages on S/2020/654 (voted 2020-07-07) are of 2020-07-08 and describe S/2020/658, the
    Russian draft voted that day: with S/2020/658 as the target, none may reach a reflection."""
    precedent, target = corpus.get("S/2020/654"), corpus.get("S/2020/658")
    later = [r.id for r in corpus.records if r.date >= target.date]
    pages = [s for s in all_statements_for(precedent, "RUS") if s.source == "statements"]
    assert pages
    assert all(statement_problem(s, target=target, later_ids=later) is not None for s in pages)
    assert not [
        s
        for s in statements_for(precedent, "RUS", target=target, later_ids=later)
        if s.source == "statements"
    ]
    assert statements_for(precedent, "CHN")  # without a target, the persona's own pages stay


def test_every_filtered_statement_has_its_reason(corpus: Corpus) -> None:
    pool = [r for r in corpus.records if r.adopted or r.is_non_adopted_draft]
    table = filtered_statements(pool, corpus.drafts, ["USA", "GBR", "FRA", "RUS", "CHN"])
    reasons = set(table["reason"])
    assert {"kept", "not in English", "spoken by another delegation"} <= reasons
    assert "published on or after the target's vote" in reasons
    kept = table[table["reason"] == "kept"]
    assert len(kept) > len(table) / 2
    for row in table[table["reason"] == "spoken by another delegation"].itertuples():
        texts = [s.text for s in all_statements_for(corpus.get(row.record), row.member)]
        assert texts  # the filtered statement is on record, attributed to that member


def test_french_pages_are_filtered(corpus: Corpus) -> None:
    french = [(r, s) for r in corpus.drafts for s in r.statements if s.note and "french" in s.note.lower()]
    assert french
    for record, statement in french:
        code = to_iso3(statement.member)
        assert code is not None
        assert statement.text not in {s.text for s in statements_for(record, code)}
