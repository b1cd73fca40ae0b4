"""Which language a text is in: ``py3langid`` (its model ships in the wheel, no download),
restricted to the languages the corpus holds, so a short English text is not read as Latin."""

from __future__ import annotations

from functools import cache, lru_cache

from py3langid.langid import MODEL_FILE, LanguageIdentifier

CORPUS_LANGUAGES = ("en", "fr", "es", "ar", "ru", "zh", "tr", "de")


@cache
def _identifier() -> LanguageIdentifier:
    identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    identifier.set_languages(list(CORPUS_LANGUAGES))
    return identifier


@lru_cache(maxsize=16384)
def language_of(text: str) -> str:
    """The ISO 639-1 code of ``text``'s language, among :data:`CORPUS_LANGUAGES` (once per text: the
    same sentences recur across the records, and classifying one costs a fraction of a millisecond)."""
    code, _ = _identifier().classify(text)
    return str(code)


def is_english(text: str) -> bool:
    return language_of(text) == "en"
