"""Dense retrieval really goes through a persistent chromadb collection, embedded offline once."""

from __future__ import annotations

import chromadb
import numpy as np
import pytest
from chromadb.config import Settings

from nationbias.retrievers.dense import SUBJECT_SUFFIX, DenseRetriever
from nationbias.retrievers.embeddings import DIMENSIONS, OnnxMiniLM


@pytest.fixture(scope="module")
def embedder() -> OnnxMiniLM:
    return OnnxMiniLM()


@pytest.fixture(scope="module")
def small_pool(corpus):
    """Both pool parts, a few items each: the tests below are about the collection's life (written,
    reopened, renamed, a query from outside), which any size shows; each item is embedded at up to
    256 tokens, ~0.1 s apiece."""
    return [*corpus.drafts[:4], *corpus.adopted[:4]]


def test_sentence_embedding_is_384_dims_and_unit_norm(embedder: OnnxMiniLM) -> None:
    (vector,) = embedder(["The Security Council condemns the use of chemical weapons."])
    assert np.asarray(vector).shape == (DIMENSIONS,)
    assert np.linalg.norm(vector) == pytest.approx(1.0, abs=1e-5)


def test_close_sentences_score_higher_than_unrelated_ones(embedder: OnnxMiniLM) -> None:
    a, b, c = np.asarray(
        embedder(
            [
                "The Council demands a humanitarian ceasefire in Gaza.",
                "The Security Council calls for an immediate truce in the Gaza Strip.",
                "The recipe needs two cups of flour and an egg.",
            ]
        )
    )
    assert a @ b > a @ c + 0.3


def test_batch_order_and_padding_do_not_change_embeddings(embedder: OnnxMiniLM) -> None:
    texts = ["short", "a much longer sentence about peacekeeping operations in Mali and the Sahel", ""]
    together = np.asarray(embedder(texts))
    alone = np.asarray([embedder([text])[0] for text in texts])
    assert np.allclose(together, alone, atol=1e-4)


def test_collection_persists_on_disk_and_is_reused_without_embedding(tmp_path, small_pool) -> None:
    first = DenseRetriever(path=tmp_path)
    collection = first.collection(small_pool)
    assert first.embedder.documents_embedded == 2 * len(small_pool)  # a text and a subject vector each
    assert any(tmp_path.iterdir()), "chromadb wrote nothing to disk"

    client = chromadb.PersistentClient(path=str(tmp_path), settings=Settings(anonymized_telemetry=False))
    assert client.get_collection(collection.name).count() == 2 * len(small_pool)

    second = DenseRetriever(path=tmp_path)
    target = small_pool[-1]
    found = second.retrieve(target, small_pool, 2)
    assert second.embedder.documents_embedded == 0  # reused the index and the target's stored vector
    assert found and all(p.record.date < target.date for p in found)
    assert all(-1.0 <= p.score <= 1.0 and "cosine" in p.reason for p in found)


def test_a_changed_pool_or_model_gets_its_own_collection(tmp_path, small_pool) -> None:
    retriever = DenseRetriever(path=tmp_path)
    names = {retriever.collection_name(small_pool), retriever.collection_name(small_pool[:-1])}
    names.add(DenseRetriever(path=tmp_path, embedder=OnnxMiniLM(max_tokens=64)).collection_name(small_pool))
    assert len(names) == 3


def test_a_target_outside_the_pool_is_embedded_for_the_query(tmp_path, small_pool) -> None:
    retriever = DenseRetriever(path=tmp_path)
    retriever.collection(small_pool[:-1])
    before = retriever.embedder.documents_embedded
    retriever.retrieve(small_pool[-1], small_pool[:-1], 1)
    assert retriever.embedder.documents_embedded == before + 2  # its text and its subject line


def test_exact_search_finds_what_chromadb_finds_with_its_date_filter(strategies, corpus) -> None:
    """The reference is chromadb's own query with the leakage rule as its metadata pre-filter, run once
    with the target's text vector over the text vectors and once with its subject vector over the
    subject vectors; an item's score is the better of its two (the top 5 of that are in the union)."""
    dense = strategies["dense"]
    collection = dense.collection(corpus.records)
    for target in corpus.drafts[-40::8]:
        ours = dense.best(target, corpus.records, 5)
        for part in ("adopted", "non-adopted"):
            best: dict[str, float] = {}
            for kind, own in (("text", target.id), ("subject", target.id + SUBJECT_SUFFIX)):
                where = {
                    "$and": [{"date_ord": {"$lt": target.date.toordinal()}}, {"pool": part}, {"vector": kind}]
                }
                (vector,) = collection.get(ids=[own], include=["embeddings"])["embeddings"]
                theirs = collection.query(
                    query_embeddings=[vector], n_results=5, where=where, include=["distances"]
                )
                for rid, distance in zip(theirs["ids"][0], theirs["distances"][0], strict=True):
                    rid = rid.removesuffix(SUBJECT_SUFFIX)
                    best[rid] = max(best.get(rid, -2.0), 1 - distance)
            expected = sorted((round(score, 4) for score in best.values()), reverse=True)[:5]
            got = [round(item.score, 4) for item in ours.get(part, [])]
            assert got == pytest.approx(expected, abs=2e-4), (target.id, part)
            assert all(item.record.date < target.date for item in ours.get(part, []))
