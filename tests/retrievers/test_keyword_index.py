"""The indexed keyword retriever returns exactly what scoring every earlier item returns."""

from __future__ import annotations

import pytest

from nationbias.retrievers.keyword import KeywordRetriever


@pytest.mark.parametrize("threshold", [-1.0, 0.0, 1.0, 2.0, 3.0])
@pytest.mark.parametrize("k", [1, 3])
def test_indexed_equals_naive_on_the_real_corpus(corpus, threshold: float, k: int) -> None:
    retriever = KeywordRetriever(threshold=threshold)
    pool = corpus.records
    compared = found = 0
    for target in corpus.records[::3]:
        fast = retriever.retrieve(target, pool, k)
        slow = retriever.retrieve_naive(target, pool, k)
        assert fast == slow, f"{target.id}: indexed {fast} != naive {slow}"
        compared += 1
        found += bool(fast)
    assert compared > 200 and found > 0
    assert retriever.builds <= 1  # the index is built once for the pool and reused


def test_a_target_outside_the_pool_and_duplicate_ids(corpus) -> None:
    pool = [*corpus.records[:300], corpus.records[0]]  # a repeated id is kept once
    retriever = KeywordRetriever(threshold=1.0)
    for target in corpus.drafts[-10:]:  # not in the pool
        assert retriever.retrieve(target, pool, 2) == retriever.retrieve_naive(target, pool, 2)
