"""Strategies by name, and the public API of the package."""

from __future__ import annotations

import pytest

from nationbias import retrievers
from nationbias.retrievers import RETRIEVERS, Precedent, Retriever, get_retriever


def test_every_listed_name_builds_a_retriever(tmp_path) -> None:
    for name in RETRIEVERS:
        options = {"path": tmp_path} if name in {"dense", "hybrid"} else {}
        assert isinstance(get_retriever(name, **options), Retriever)


def test_unknown_name_lists_the_valid_ones() -> None:
    with pytest.raises(ValueError, match=r"unknown retriever 'tfidf'.*keyword, bm25, dense, hybrid"):
        get_retriever("tfidf")


def test_unknown_option_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="bad options for retriever 'keyword'"):
        get_retriever("keyword", treshold=2)


def test_keyword_options_are_passed_through() -> None:
    assert get_retriever("keyword", threshold=0.5).threshold == 0.5  # type: ignore[attr-defined]


def test_public_names() -> None:
    assert {"get_retriever", "register_retriever", "Retriever", "Precedent", "RETRIEVERS"} <= set(
        retrievers.__all__
    )
    assert Precedent.__dataclass_params__.frozen  # type: ignore[attr-defined]
