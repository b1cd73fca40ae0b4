"""The paper's keyword scorer (Appendix A.4), on hand-built cases with exact expected scores."""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace

import pytest

from nationbias.retrievers.keyword import KeywordRetriever, keyword_match, keyword_score
from nationbias.stores.corpora.augment import Augmented
from nationbias.stores.records import Record

MakeRecord = Callable[..., Record]  # the make_record fixture (conftest.py)


def fields(region: str | None = None, nations: list[str] | None = None, keywords: list[str] | None = None):
    return {"region": region, "target_nations": nations or [], "keywords": keywords or []}


def test_region_alone_scores_two_and_is_not_above_the_paper_threshold() -> None:
    score = keyword_score(fields("Middle East"), fields("Middle East"))
    assert score == 2
    assert not score > 3


def test_region_one_nation_one_keyword_is_3_point_1_and_kept() -> None:
    target = fields("Middle East", ["Syria", "Israel"], ["chemical weapons", "human rights"])
    candidate = fields("Middle East", ["Syria", "Turkey"], ["chemical weapons", "arms embargo"])
    assert keyword_score(target, candidate) == 3.1
    assert keyword_score(target, candidate) > 3  # robust to float error: 2 + 1 + 0.1


def test_reason_names_every_contribution() -> None:
    target = fields("Middle East", ["Syria"], ["chemical weapons"])
    _, reason = keyword_match(target, target)
    assert reason == "region Middle East +2; target nations Syria +1; keywords chemical weapons +0.1"


def test_member_states_and_united_nations_are_not_target_nations() -> None:
    target = fields(None, ["Member States", "United Nations", "Mali"], [])
    candidate = fields(None, ["member states", "United Nations", "Mali"], [])
    assert keyword_score(target, candidate) == 1


@pytest.mark.parametrize(
    ("region_a", "region_b", "expected"),
    [(None, None, 0), ("", "", 0), ("Africa", None, 0), ("Africa", "Asia", 0), ("Africa", "africa", 2)],
)
def test_region_counts_only_when_both_present_and_equal(region_a, region_b, expected) -> None:
    assert keyword_score(fields(region_a), fields(region_b)) == expected


def test_many_keywords_add_in_tenths_without_float_drift() -> None:
    keywords = [f"kw{i}" for i in range(7)]
    assert keyword_score(fields("Asia", ["Myanmar"], keywords), fields("Asia", ["Myanmar"], keywords)) == 3.7


def test_mappings_objects_and_augmented_are_all_accepted() -> None:
    as_dict = fields("Europe", ["Ukraine"], ["war crimes"])
    as_namespace = SimpleNamespace(**as_dict)
    as_augmented = Augmented(id="x", **as_dict)
    for a in (as_dict, as_namespace, as_augmented):
        for b in (as_dict, as_namespace, as_augmented):
            assert keyword_score(a, b) == 3.1


def test_retriever_applies_threshold_dates_and_pool_parts(make_record: MakeRecord) -> None:
    target = make_record("T", "2020-06-01")
    pool = [
        target,
        make_record("kept-draft", "2019-01-01"),
        make_record("region-only", "2019-02-01"),
        make_record("kept-adopted", "2018-01-01", adopted=True),
        make_record("same-day", "2020-06-01"),
        make_record("later", "2021-01-01"),
        make_record("amendment", "2019-03-01", kind="amendment"),
    ]
    strong = fields("Middle East", ["Syria"], ["chemical weapons"])
    augmented = {
        record.id: Augmented(
            id=record.id, **(fields("Middle East") if record.id == "region-only" else strong)
        )
        for record in pool
    }
    found = KeywordRetriever(augmented=augmented).retrieve(target, pool, 3)
    assert [(p.record.id, p.pool, p.rank, p.score) for p in found] == [
        ("kept-adopted", "adopted", 1, 3.1),
        ("kept-draft", "non-adopted", 1, 3.1),
    ]
    lowered = KeywordRetriever(augmented=augmented, threshold=1).retrieve(target, pool, 3)
    assert [p.record.id for p in lowered] == ["kept-adopted", "kept-draft", "region-only"]


def test_ties_break_by_recency_then_id(make_record: MakeRecord) -> None:
    target = make_record("T", "2022-01-01")
    pool = [make_record(i, d) for i, d in [("b", "2019-01-01"), ("a", "2019-01-01"), ("c", "2021-01-01")]]
    same = {r.id: Augmented(id=r.id, **fields("Africa", ["Mali"], ["arms embargo"])) for r in [*pool, target]}
    found = KeywordRetriever(augmented=same).retrieve(target, list(reversed(pool)), 2)
    assert [(p.record.id, p.rank) for p in found] == [("a", 2), ("c", 1)]


def test_k_zero_is_empty_and_negative_k_is_an_error(make_record: MakeRecord) -> None:
    target = make_record("T", "2022-01-01")
    retriever = KeywordRetriever(augmented={"T": Augmented(id="T")})
    assert retriever.retrieve(target, [target], 0) == []
    with pytest.raises(ValueError, match="k must be >= 0"):
        retriever.retrieve(target, [target], -1)


def test_real_corpus_default_augmentation_finds_earlier_precedents(corpus) -> None:
    target = corpus.drafts[-1]
    found = KeywordRetriever(threshold=0).retrieve(target, corpus.records, 1)
    assert found, "threshold 0 should find some earlier item sharing a region or keyword"
    assert all(p.record.date < target.date and p.score > 0 and p.reason for p in found)
