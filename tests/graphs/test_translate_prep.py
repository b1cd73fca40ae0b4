"""Translate mode's prep pass closes the translator it used: its connections belong to the run's loop, and a
client left open at the loop's end is an "Unclosed client session" on the user's screen."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

import nationbias.graphs.study.simulate as simulate
from nationbias.graphs.model.client import ModelClient
from nationbias.graphs.translate import TranslationError
from nationbias.prompts import prompt_set
from nationbias.stores.corpora.corpus import Corpus


def _prep(corpus: Corpus, closed: list[bool], monkeypatch: pytest.MonkeyPatch) -> Any:
    translator = ModelClient.from_spec("fake:hash")
    monkeypatch.setattr(translator, "aclose", lambda: asyncio.sleep(0, closed.append(True)))
    return simulate.prepare_translations(
        translator=translator,
        prompts=prompt_set("structured", language="fr").with_translated_text(),
        targets=corpus.drafts[:1],
        budget=2000,
        show_progress=False,
    )


def test_the_translator_is_closed_after_the_prep_pass(
    corpus: Corpus, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    closed: list[bool] = []
    texts = asyncio.run(_prep(corpus, closed, monkeypatch))
    assert texts is not None and texts.asked == 1 and closed == [True]


def test_the_translator_is_closed_when_the_prep_pass_fails(
    corpus: Corpus, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def failing(*_: Any, **__: Any) -> None:
        raise TranslationError("no translation")

    monkeypatch.setattr(simulate, "translate_texts", failing)
    closed: list[bool] = []
    with pytest.raises(TranslationError):
        asyncio.run(_prep(corpus, closed, monkeypatch))
    assert closed == [True]
