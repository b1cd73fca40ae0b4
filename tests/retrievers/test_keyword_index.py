"""The indexed keyword retriever returns exactly what scoring every earlier item returns
(tests/support/keyword_reference.py)."""

from __future__ import annotations

import itertools

import pytest

from nationbias.retrievers.keyword import KeywordRetriever
from nationbias.stores.records import Record
from tests.support.keyword_reference import retrieve_naive

THRESHOLDS = [-1.0, 0.0, 1.0, 2.0, 3.0]
KS = [1, 3]
CASES = list(itertools.product(KS, THRESHOLDS))
EVERY = 3  # the targets compared: every third record of the real corpus


def case_targets(records: list[Record], case: int) -> list[Record]:
    """The ``case``-th of ``len(CASES)`` interleaved shares of every third record.

    The naive scorer scores every earlier item of the pool (~0.1 s per target per case), so each
    (k, threshold) case compares its own share instead of all of them: the shares are disjoint and
    together are every third record, as each case compared before, and each share is spread over the
    whole corpus (every date, both pool parts), so every case still meets early and late targets.
    """
    return records[::EVERY][case :: len(CASES)]


def test_the_cases_together_compare_every_third_record(corpus) -> None:
    shares = [[r.id for r in case_targets(corpus.records, case)] for case in range(len(CASES))]
    together = [record_id for share in shares for record_id in share]
    assert sorted(together) == sorted(r.id for r in corpus.records[::EVERY])
    assert len(set(together)) == len(together) > 200
    assert all(len(share) > 20 for share in shares)


@pytest.mark.parametrize(("case", "k", "threshold"), [(i, k, t) for i, (k, t) in enumerate(CASES)])
def test_indexed_equals_naive_on_the_real_corpus(corpus, case: int, k: int, threshold: float) -> None:
    retriever = KeywordRetriever(threshold=threshold)
    pool = corpus.records
    compared = found = 0
    for target in case_targets(pool, case):
        fast = retriever.retrieve(target, pool, k)
        slow = retrieve_naive(target, pool, k, threshold=threshold)
        assert fast == slow, f"{target.id}: indexed {fast} != naive {slow}"
        compared += 1
        found += bool(fast)
    assert compared > 20 and found > 0
    assert retriever.builds <= 1  # the index is built once for the pool and reused


def test_a_target_outside_the_pool_and_duplicate_ids(corpus) -> None:
    pool = [*corpus.records[:300], corpus.records[0]]  # a repeated id is kept once
    retriever = KeywordRetriever(threshold=1.0)
    for target in corpus.drafts[-10:]:  # not in the pool
        assert retriever.retrieve(target, pool, 2) == retrieve_naive(target, pool, 2, threshold=1.0)
