"""Fixtures for the retriever tests: hand-built records and indexes built once per session."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from nationbias.retrievers.base import Retriever
from nationbias.retrievers.bm25 import BM25Retriever
from nationbias.retrievers.dense import DenseRetriever
from nationbias.retrievers.embeddings import OnnxMiniLM
from nationbias.retrievers.hybrid import HybridRetriever
from nationbias.retrievers.keyword import KeywordRetriever
from nationbias.stores.records import Record

MakeRecord = Callable[..., Record]


def build_record(
    record_id: str,
    date: str,
    *,
    adopted: bool = False,
    kind: str = "draft",
    text: str | None = None,
    **fields: Any,
) -> Record:
    """A minimal valid record; ``text`` becomes its prompt-safe context."""
    return Record.model_validate(
        {
            "id": record_id,
            "kind": kind,
            "adopted": adopted,
            "date": dt.date.fromisoformat(date),
            "tally": {"yes": 13 if adopted else 9, "no": 0 if adopted else 1, "abstain": 2},
            "votes": {},
            "context": {"text": text} if text else None,
            **fields,
        }
    )


@pytest.fixture
def make_record() -> MakeRecord:
    return build_record


@pytest.fixture(scope="session")
def session_chroma(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("chroma")


@pytest.fixture(scope="session")
def strategies(corpus: Any, session_chroma: Path) -> dict[str, Retriever]:
    """All four strategies over the whole corpus, each index built once per session.

    The tests using it check leakage and fusion, not embedding quality: a 32-token MiniLM is enough.
    """
    pool = corpus.records
    bm25 = BM25Retriever()
    dense = DenseRetriever(path=session_chroma, embedder=OnnxMiniLM(max_tokens=32))
    keyword = KeywordRetriever(threshold=0)  # threshold 0 returns more, so the property is tested harder
    bm25.index(pool)
    dense.index(pool)
    keyword.retrieve(corpus.drafts[-1], pool, 1)
    return {
        "keyword": keyword,
        "bm25": bm25,
        "dense": dense,
        "hybrid": HybridRetriever(bm25=bm25, dense=dense),
    }
