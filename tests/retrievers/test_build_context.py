"""A run offers every retriever the same build context; each strategy takes what its constructor
declares. The built-ins take exactly what the run used to hand them, so their precedents are unchanged."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from nationbias.graphs.study.audit import precedent_coverage
from nationbias.graphs.study.simulate import precedent_pool
from nationbias.retrievers import RETRIEVERS, get_retriever, register_retriever
from nationbias.retrievers.context import BuildContext, build_retriever, declared
from nationbias.retrievers.keyword import KeywordRetriever
from nationbias.retrievers.recency import RecencyRetriever
from nationbias.stores.corpora.augment import augmented_for
from nationbias.stores.corpora.corpus import Corpus

PLUGINS = Path(__file__).resolve().parents[1] / "support" / "plugins"


@pytest.fixture
def context(corpus: Corpus) -> BuildContext:
    return BuildContext(corpus=corpus, augmented=augmented_for(corpus), options={"threshold": 2.5})


@pytest.fixture
def newest(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.syspath_prepend(str(PLUGINS))
    register_retriever("newest", "toy_retriever:NewestFirst")
    yield "newest"
    RETRIEVERS.pop("newest")


def test_each_built_in_takes_what_it_declares_and_no_more(context: BuildContext) -> None:
    offered = set(context.offered())
    assert offered == {"corpus", "augmented", "threshold"}
    assert declared("keyword") & offered == {"augmented", "threshold"}
    for name in ("bm25", "dense", "hybrid"):  # their signatures, read without building an index
        assert declared(name) & offered == set(), name
    built = build_retriever("bm25", context)
    assert built.given == {} and built.retriever is built.strategy


def test_the_keyword_retriever_finds_what_it_found_when_handed_its_inputs(
    context: BuildContext, corpus: Corpus
) -> None:
    built = build_retriever("keyword", context)
    assert isinstance(built.strategy, KeywordRetriever) and built.strategy.threshold == 2.5
    assert set(built.given) == {"augmented", "threshold"} and built.took("threshold")
    by_hand = get_retriever("keyword", threshold=2.5, augmented=augmented_for(corpus))
    pool = precedent_pool(corpus)
    for draft in corpus.drafts:
        assert built.retriever.retrieve(draft, pool, 2) == by_hand.retrieve(draft, pool, 2)


def test_the_recency_discount_wraps_the_strategy_built_from_the_context(context: BuildContext) -> None:
    built = build_retriever("keyword", context, recency_halflife=10)
    assert isinstance(built.retriever, RecencyRetriever) and built.retriever.inner is built.strategy
    assert isinstance(built.strategy, KeywordRetriever) and built.strategy.threshold == 2.5


def test_a_plugin_that_declares_a_threshold_receives_it(newest: str, context: BuildContext) -> None:
    built = build_retriever(newest, context)
    assert built.given == {"threshold": 2.5} and built.strategy.threshold == 2.5  # type: ignore[attr-defined]
    plain = build_retriever(newest, BuildContext())  # nothing offered: its own default
    assert plain.given == {} and plain.strategy.threshold is None  # type: ignore[attr-defined]


def test_only_a_retriever_that_can_explain_a_miss_is_asked_why(newest: str, context: BuildContext) -> None:
    corpus = context.corpus
    assert corpus is not None
    pool = precedent_pool(corpus)
    target = next(d for d in corpus.drafts if d.id == "S/2019/186")
    for name, why in (
        ("keyword", "best of "),  # its best score among the earlier items, and its parts
        (newest, "the retriever kept none of "),
    ):
        built = build_retriever(name, context)
        coverage = precedent_coverage([target], {}, pool=pool, retriever=built.strategy, threshold=2.5)
        adopted = next(m for m in coverage["missing"] if m["pool"] == "adopted")
        assert adopted["why"].startswith(why), (name, adopted["why"])
