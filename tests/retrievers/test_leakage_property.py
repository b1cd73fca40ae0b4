"""The leakage rule, as a property over the whole real corpus, for every strategy.

For any target among the non-adopted drafts and adopted items and any k in 0..3: every precedent is
dated strictly before the target and is not the target, each pool part gives at most k, parts are
labelled truthfully (no amendments), and the merged list is sorted by date.
"""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nationbias.stores.records import Record

PROPERTY = settings(
    max_examples=50,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)


def assert_no_leak(target: Record, found, k: int) -> None:  # type: ignore[no-untyped-def]
    for precedent in found:
        assert precedent.record.id != target.id
        assert precedent.record.date < target.date, f"{precedent.record.id} is not before {target.id}"
        assert precedent.record.kind == "draft"
        assert precedent.pool == ("adopted" if precedent.record.adopted else "non-adopted")
    per_part = Counter(p.pool for p in found)
    assert all(count <= k for count in per_part.values())
    for part in per_part:
        assert sorted(p.rank for p in found if p.pool == part) == list(range(1, per_part[part] + 1))
    assert [p.record.date for p in found] == sorted(p.record.date for p in found)
    assert len({p.record.id for p in found}) == len(found)


@pytest.mark.parametrize("name", ["keyword", "bm25", "dense", "hybrid"])
def test_precedents_are_strictly_earlier_and_bounded(name: str, strategies, corpus) -> None:
    targets = [*corpus.drafts, *corpus.adopted]
    retriever = strategies[name]

    @PROPERTY
    @given(target=st.sampled_from(targets), k=st.integers(min_value=0, max_value=3))
    def check(target: Record, k: int) -> None:
        assert_no_leak(target, retriever.retrieve(target, corpus.records, k), k)

    check()


@pytest.mark.parametrize("name", ["keyword", "bm25", "dense", "hybrid"])
def test_same_day_items_never_leak(name: str, strategies, corpus) -> None:
    """Several items were voted on the same day (five on 2023-11-15): none may see another."""
    by_date = Counter(r.date for r in corpus.records)
    busy = [r for r in corpus.records if by_date[r.date] > 1 and r.kind == "draft"]
    for target in busy[:10]:
        found = strategies[name].retrieve(target, corpus.records, 3)
        assert all(p.record.date < target.date for p in found)
