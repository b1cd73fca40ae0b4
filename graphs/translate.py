"""Translate mode (``--translate-with SPEC``): the record's own text shown in the prompts' language.

The drafts exist in English only. By default a run in another language quotes them in English; with a
translator named, the text a model reads (the leak-guarded text of
:func:`nationbias.stores.text.budget.prompt_text`, so the translator never sees an outcome sentence
either, and a precedent's summary and action items) is translated once per (text, language, translator,
template) before the run starts, by the named model at
temperature 0 with the versioned ``translate`` template, and kept in ``translations.sqlite``
(stores/state/translations.py). Each translation then goes through the language's leak guard
(stores/guard/leak_languages.py): a sentence with an outcome marker is removed whole and counted.

A text whose translation failed (an error, an empty answer, nothing left after the guard) stops the run
before it starts, naming how many and why; nothing failed is stored, so the next attempt asks only for those.
Never does a prompt fall back to the English text without saying so: :meth:`TranslatedTexts.shown` raises
for a text it was not given.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from rich.console import Console
from rich.progress import Progress

from nationbias.graphs.model.client import ModelClient
from nationbias.prompts.registry import Prompt, translation_prompt
from nationbias.stores.domain import LANGUAGES
from nationbias.stores.errors import InputError
from nationbias.stores.guard.leak_languages import strip_translated_outcomes
from nationbias.stores.records import Record
from nationbias.stores.state.translations import Translation, TranslationStore
from nationbias.stores.text.budget import prompt_text
from nationbias.stores.text.un_prompt import Shown, TextsMode

TRANSLATION_MAX_TOKENS = 4096  # the most a translation may take (a 3,000-character text in Arabic)


def translation_budget(text: str) -> int:
    """Tokens a translation of ``text`` may take: about one per source character, which a faithful
    translation into any of the six languages stays under, and which cuts a model that loops early."""
    return min(TRANSLATION_MAX_TOKENS, len(text) + 64)


TRANSLATE_CONCURRENCY = 4


class TranslationError(InputError):
    """Texts the translator could not translate: the run does not start (nothing is cached for them)."""


class MissingTranslation(KeyError):
    """A prompt asked for a text the prep step did not translate: a bug, never an English fallback."""


@dataclass(frozen=True)
class TranslatedTexts:
    """English text → the text a prompt shows in ``language``, as the prep step made it."""

    language: str
    translator: str
    template_ref: str
    texts: Mapping[str, str]
    asked: int = 0  # translator calls made now (the rest came from the store)
    cached: int = 0
    markers_found: int = 0  # translated sentences with an outcome marker…
    removed: tuple[dict[str, str], ...] = field(default=(), repr=False)  # …each removed, and why

    def shown(self, english: str) -> str:
        """The translation of ``english``; one the prep step did not make is an error."""
        if not english.strip():
            return english
        try:
            return self.texts[english]
        except KeyError:
            raise MissingTranslation(
                f"no {self.language} translation prepared for {english[:60]!r}"
            ) from None

    def config(self) -> dict[str, Any]:
        """What the run config records of the translation (and its leak audit)."""
        return {
            "translator": self.translator,
            "language": self.language,
            "template": self.template_ref,
            "texts": len(self.texts),
            "asked": self.asked,
            "from_store": self.cached,
            "markers_found": self.markers_found,
            "sentences_removed": len(self.removed),
            "removed": list(self.removed),
        }


def translation_messages(text: str, *, language: str, prompt: Prompt | None = None) -> list[dict[str, str]]:
    """The translator's prompt for one English text."""
    return (prompt or translation_prompt()).render(language_name=LANGUAGES[language], text=text)


def run_texts(
    targets: Sequence[Record],
    *,
    budget: int,
    precedents: Iterable[Record] = (),
    summaries: Iterable[str] = (),
    text_mode: TextsMode = "press",
    language: str = "en",
) -> dict[str, Record | None]:
    """Every English text a run's prompts show, each once, with the record it describes (for the guard's
    resolution-number rule): the targets' and precedents' leak-guarded texts, the precedents' summaries.
    Under ``--texts auto`` an item may be shown in either source, so both are translated; the UN's own
    translation into ``language`` is shown as the UN wrote it, never machine-translated."""
    found: dict[str, Record | None] = {}
    both: tuple[Shown, ...] = ("press", "un")
    sources = both if text_mode == "auto" else both[:1] if text_mode == "press" else both[1:]
    for record in [*targets, *precedents]:
        for source in sources:
            shown = prompt_text(record, budget=budget, shown=source, language=language)
            if shown.text.strip() and shown.language != language:
                found.setdefault(shown.text, record)
    for summary in summaries:
        if summary and summary.strip():
            found.setdefault(summary, None)
    return found


async def translate_texts(
    texts: Mapping[str, Record | None],
    *,
    translator: ModelClient,
    language: str,
    store: TranslationStore | None = None,
    show_progress: bool = True,
    concurrency: int = TRANSLATE_CONCURRENCY,
) -> TranslatedTexts:
    """Translate each text once (the store first), guard each translation, and return them all; any text
    that failed raises :class:`TranslationError` after the others are stored."""
    if language not in LANGUAGES or language == "en":
        raise InputError(f"--translate-with translates into another language than English, not {language!r}")
    prompt = translation_prompt()
    store = store or TranslationStore()
    spec = translator.label
    shown: dict[str, str] = {}
    failed: dict[str, str] = {}
    removed: list[dict[str, str]] = []
    counts = {"asked": 0, "cached": 0}
    todo: list[str] = []
    for text in texts:
        kept = store.get(text, language=language, translator=spec, template_sha256=prompt.sha256)
        if kept is None:
            todo.append(text)
        else:
            counts["cached"] += 1
            _guarded(kept, texts[text], shown, failed, removed)
    gate = asyncio.Semaphore(concurrency)

    async def one(text: str, progress: Progress | None, task: Any) -> None:
        async with gate:
            result = await translator.call(
                translation_messages(text, language=language, prompt=prompt),
                repeat=0,
                max_tokens=translation_budget(text),
            )
        counts["asked"] += 1
        answer = (result.answer or "").strip()
        if result.error is not None:
            failed[text] = f"the translator failed: {result.error}"
        elif result.truncated:
            failed[text] = "the translation was cut off (the token budget ran out)"
        elif not answer:
            failed[text] = "the translator answered nothing"
        else:
            found = Translation(text, language, spec, prompt.ref, prompt.sha256, answer, "")
            if _guarded(found, texts[text], shown, failed, removed):
                store.put(replace(found, translation=shown[text]))
        if progress is not None:
            progress.advance(task)

    if todo:
        if show_progress:
            with Progress(console=Console(stderr=True), transient=True) as progress:
                task = progress.add_task(f"translate into {language} · {spec}", total=len(todo))
                await asyncio.gather(*(one(t, progress, task) for t in todo))
        else:
            await asyncio.gather(*(one(t, None, None) for t in todo))
    if failed:
        first = next(iter(failed.items()))
        raise TranslationError(
            f"--translate-with {spec}: {len(failed)} of {len(texts)} texts not translated into {language} "
            f"(first: {first[1]}; text {first[0][:60]!r}); nothing failed was stored: run again to retry them"
        )
    return TranslatedTexts(
        language=language,
        translator=spec,
        template_ref=prompt.ref,
        texts=shown,
        asked=counts["asked"],
        cached=counts["cached"],
        markers_found=len(removed),
        removed=tuple(removed),
    )


def _guarded(
    found: Translation,
    record: Record | None,
    shown: dict[str, str],
    failed: dict[str, str],
    removed: list[dict[str, str]],
) -> bool:
    """The translation with its outcome sentences removed (each kept in ``removed``); False when nothing
    is left to show."""
    clean = strip_translated_outcomes(found.raw, language=found.language, record=record)
    for hit in clean.removed:
        removed.append({"kind": hit.label, "marker": hit.match, "sentence": hit.sentence})
    if not clean.text.strip():
        failed[found.original] = "nothing was left of the translation after removing its outcome sentences"
        return False
    shown[found.original] = clean.text
    return True
