"""Statements for reflection: the `statements` field and delegation summaries from real press excerpts."""

from __future__ import annotations

from stores.corpus import Corpus
from stores.statements import delegation_summaries, statements_for


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
    assert russia.text.startswith("Iliichev (Russian Federation) said") and "He recalled" in russia.text


def test_coverage_over_the_drafts(corpus: Corpus) -> None:
    members = ("USA", "GBR", "FRA", "RUS", "CHN")
    with_any = [r for r in corpus.drafts if any(statements_for(r, m) for m in members)]
    assert len(with_any) >= 61
    press = sum(
        1 for r in corpus.drafts for m in members for s in statements_for(r, m) if s.source == "press_excerpt"
    )
    assert press >= 20
