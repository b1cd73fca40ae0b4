"""BM25+ over the prompt-safe text: lexical matches rank first; the index is built once per pool."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from nationbias.retrievers.base import retrieve_per_part
from nationbias.retrievers.bm25 import BM25Retriever
from nationbias.retrievers.text import record_text, tokenize
from nationbias.stores.records import Record

MakeRecord = Callable[..., Record]  # the make_record fixture (conftest.py)


@pytest.fixture
def small_pool(make_record: MakeRecord):
    return [
        make_record("chem", "2017-04-12", text="The draft condemns the use of chemical weapons in Syria."),
        make_record(
            "yemen", "2018-02-26", text="The draft renews the arms embargo on Yemen and Houthi leaders."
        ),
        make_record(
            "mali", "2016-06-29", adopted=True, text="The draft extends the stabilization mission in Mali."
        ),
        make_record(
            "chem-ad", "2013-09-27", adopted=True, text="The draft says chemical weapons in Syria must go."
        ),
        make_record("target", "2019-01-01", text="The draft is on chemical weapons attacks in Syria."),
    ]


def test_tokenize_lowercases_and_drops_stopwords() -> None:
    assert tokenize("The Council DEMANDS that all parties cease-fire in the North") == [
        "council",
        "demands",
        "parties",
        "cease-fire",
        "north",
    ]


def test_lexical_match_ranks_first_and_unrelated_items_are_dropped(small_pool) -> None:
    target = small_pool[-1]
    found = BM25Retriever().retrieve(target, small_pool, 2)
    assert [(p.record.id, p.pool, p.rank) for p in found] == [
        ("chem-ad", "adopted", 1),
        ("chem", "non-adopted", 1),
    ]
    assert all(p.score > 0 and "shared terms" in p.reason for p in found)


def test_index_is_built_once_per_pool(small_pool) -> None:
    retriever = BM25Retriever()
    for record in small_pool:
        retriever.retrieve(record, small_pool, 1)
    assert retriever.builds == 1
    retriever.retrieve(small_pool[0], small_pool[:3], 1)
    assert retriever.builds == 2


def test_scores_stay_positive_on_the_66_drafts(corpus) -> None:
    """BM25Okapi would give negative IDF to words in over half of a small pool; BM25+ does not."""
    target = corpus.drafts[-1]
    found = BM25Retriever().retrieve(target, corpus.drafts, 3)
    assert found and all(p.score > 0 and p.pool == "non-adopted" for p in found)


def test_text_is_prompt_safe(corpus) -> None:
    for record in corpus.drafts:
        if record.press_excerpt and record.press_excerpt.text.strip():
            assert record.press_excerpt.text.strip()[:200] not in record_text(record)


def test_sparse_scores_are_rank_bm25s_on_the_corpus(corpus) -> None:
    """The sparse layout is rank_bm25's BM25+ formula: the same score for every document and query,
    repeated and unknown query words included."""
    pool = [r for r in corpus.records if r.adopted or r.is_non_adopted_draft]
    index = BM25Retriever().index(pool)
    queries = [tokenize(record_text(target)) for target in corpus.drafts[::4]]
    queries.append(["sanctions", "sanctions", "zzz-not-a-word"])
    for query in queries:
        scores, shares = index.scores(query)
        np.testing.assert_allclose(scores, index.bm25.get_scores(query), rtol=1e-12, atol=1e-9)
        assert shares.tolist() == [bool(set(query) & set(freqs)) for freqs in index.bm25.doc_freqs]
    scores, shares = index.scores(["zzz-not-a-word"])
    assert not shares.any() and not scores.any()


def test_retrieve_equals_the_generic_per_part_selection_over_rank(corpus) -> None:
    """``retrieve`` applies the leakage rule and the cut to k on arrays; it must pick exactly what
    :func:`retrieve_per_part` picks from :meth:`BM25Retriever.rank`."""
    retriever = BM25Retriever()
    pool = [r for r in corpus.records if r.adopted or r.is_non_adopted_draft]
    for k in (1, 2, 5):
        for target in corpus.drafts[::3]:
            reference = retrieve_per_part(
                target, pool, k, lambda part, candidates, t=target: retriever.rank(t, pool, candidates)
            )
            assert retriever.retrieve(target, pool, k) == reference, (target.id, k)
