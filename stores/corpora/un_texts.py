"""The UN's own texts of the corpus's items, in the six UN languages (``unsc/un_texts/<lang>.jsonl``).

Each text is the draft as put to the vote (a failed draft) or the resolution as adopted, split into
preambular and operative paragraphs, with no cover page, vote or outcome (DATA.md). They are the best
text of an item wherever they exist; the corpus's press descriptions stay the text of the rest. UN
material is © United Nations: a report that shows these texts credits the United Nations
(:data:`UN_CREDIT`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Literal

from nationbias.stores.corpora.bundled import DataFile, data_file
from nationbias.stores.corpora.surrogates import surrogate_problem
from nationbias.stores.errors import InputError

UN_LANGUAGES = ("en", "fr", "es", "ru", "zh", "ar")
UN_CREDIT = (
    "Texts of Security Council drafts and resolutions: United Nations (UNxml/SCresolutions, the UN's "
    "machine-readable Security Council documents), used with acknowledgement of the United Nations as the "
    "source."
)
Form = Literal["draft resolution", "resolution as adopted"]


@dataclass(frozen=True)
class UnText:
    """One item's text in one language: preambular and operative paragraphs in order."""

    id: str
    language: str
    form: Form
    date: str
    resolution: str | None
    preamble: tuple[str, ...]
    operative: tuple[str, ...]
    footnotes: tuple[str, ...] = ()
    source: str = ""

    @property
    def paragraphs(self) -> tuple[str, ...]:
        """Preamble then operative paragraphs, as the text reads."""
        return self.preamble + self.operative


def un_texts_file(language: str) -> DataFile:
    """The file of one language's texts (packaged, or under ``NATIONBIAS_DATA``)."""
    if language not in UN_LANGUAGES:
        raise InputError(f"no UN texts for language {language!r}: one of {', '.join(UN_LANGUAGES)}")
    return data_file(f"unsc/un_texts/{language}.jsonl")


def _strings(obj: Mapping[str, object], key: str, *, where: str) -> tuple[str, ...]:
    value = obj.get(key) or []
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise InputError(f"{where}: {key!r} must be a list of strings")
    return tuple(value)


def parse_un_text(obj: Mapping[str, object], *, where: str) -> UnText:
    """One line of a ``un_texts`` file, checked; an error names ``where`` (file:line) and the field."""
    for key in ("id", "language", "form", "date"):
        if not isinstance(obj.get(key), str) or not obj[key]:
            raise InputError(f"{where}: {key!r} must be a non-empty string")
    form = obj["form"]
    if form not in ("draft resolution", "resolution as adopted"):
        raise InputError(f"{where}: 'form' is {form!r}, not 'draft resolution' or 'resolution as adopted'")
    resolution = obj.get("resolution")
    if resolution is not None and not isinstance(resolution, str):
        raise InputError(f"{where}: 'resolution' must be a string or null")
    operative = _strings(obj, "operative", where=where)
    if not operative:
        raise InputError(f"{where}: 'operative' is empty")
    return UnText(
        id=str(obj["id"]),
        language=str(obj["language"]),
        form=form,
        date=str(obj["date"]),
        resolution=resolution,
        preamble=_strings(obj, "preamble", where=where),
        operative=operative,
        footnotes=_strings(obj, "footnotes", where=where),
        source=str(obj.get("source") or ""),
    )


def read_un_texts(file: DataFile) -> dict[str, UnText]:
    """Every text of one file by item id; a bad line is an :class:`InputError` naming file and line."""
    texts: dict[str, UnText] = {}
    with file.open_text() as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            where = f"{file}:{number}"
            try:
                obj = json.loads(line)
            except (json.JSONDecodeError, UnicodeError) as exc:
                raise InputError(f"{where}: not a JSON object ({exc})") from None
            if not isinstance(obj, dict):
                raise InputError(f"{where}: not a JSON object")
            if (problem := surrogate_problem(line, obj)) is not None:
                raise InputError(f"{where}: field {problem[0]}: {problem[1]}")
            text = parse_un_text(obj, where=where)
            if text.id in texts:
                raise InputError(f"{where}: {text.id} appears twice")
            texts[text.id] = text
    return texts


@cache
def _cached(stored: str, language: str) -> Mapping[str, UnText]:
    del stored  # the cache key: a different data folder reads again
    return read_un_texts(un_texts_file(language))


def un_texts(language: str = "en") -> Mapping[str, UnText]:
    """The UN's texts in ``language`` by item id, read once per data folder."""
    return _cached(un_texts_file(language).stored, language)
