"""Named, versioned prompt templates kept in files, grouped in named prompt sets.

A template file ``<name>.v<N>.txt`` has ``[system]`` and ``[user]`` sections and
``{placeholders}``; its SHA-256 goes into every run's config so a result names the exact words
that produced it. ``get_prompt(name)`` returns the highest version unless one is asked for.

A prompt set is a folder of templates plus one line in :data:`PROMPT_SETS`: ``structured`` (the
default: JSON answers, schema-constrained where the provider allows), ``paper`` (Appendix F's
prompts word for word, answered in free text: an adopted precedent named by its resolution number,
a failed one by its symbol) and ``paper-symbols`` (Appendix F's words, every text named by its draft
symbol, so no label tells the outcome). A set takes the templates it lacks (the judges) from its
``base`` set; a run records the set and every template's hash.

Every template exists in the UN's six official languages (``stores.domain.LANGUAGES``): English in the
set's folder, each other language in ``<set folder>/<lang>/`` under the same name, with a line-by-line
English back-translation beside it (``<name>.v<N>.back-en.txt``) for a reader to check. A set is asked
for in a language (``prompt_set(name, language="fr")``); its judges come from the base set in the same
language. The translations are not yet reviewed by a native speaker (:data:`REVIEWED_LANGUAGES`).
"""

from __future__ import annotations

import hashlib
import re
import string
from dataclasses import dataclass, replace
from functools import cache, cached_property
from pathlib import Path
from typing import Literal

from nationbias.stores.domain import DEFAULT_LANGUAGE, LANGUAGES
from nationbias.stores.errors import InputError

TEMPLATE_DIR = Path(__file__).parent / "templates"
_FILE = re.compile(r"^(?P<name>[a-z0-9_]+)\.v(?P<version>\d+)\.txt$")
_SECTION = re.compile(r"^\[(system|user)\]\s*$", re.MULTILINE)
BACK_TRANSLATION = ".back-en.txt"  # beside a translated template: its English back-translation, line by line
# Languages whose templates a native speaker has reviewed; every other one is marked so in the report.
REVIEWED_LANGUAGES = frozenset({DEFAULT_LANGUAGE})
UNREVIEWED_NOTE = "not yet reviewed by a native speaker"
# How a run in another language shows the record's own text (the drafts exist in English only).
QUOTED_TEXT = "en (quoted)"
# the one template a translator is asked with (--translate-with)
TRANSLATE_FOLDER = TEMPLATE_DIR / "translate"
TextMode = Literal["quoted", "translated"]
# --translate-with: the words a template in each language says the record's text is in. A set's vote templates
# say it is "quoted in English, its original language"; with the text translated they say instead that a
# model translated it from English. Each pair (quoted, translated) is the same clause in two states; the
# English back-translation of each translated clause is "translated from English by a model".
TRANSLATED_CLAUSES: dict[str, tuple[tuple[str, str], ...]] = {
    "fr": (
        ("cité en anglais, sa langue d'origine", "traduit de l'anglais par un modèle"),
        ("citée en anglais, sa langue d'origine", "traduite de l'anglais par un modèle"),
    ),
    "es": (
        ("citado en inglés, su idioma original", "traducido del inglés por un modelo"),
        ("citada en inglés, su idioma original", "traducida del inglés por un modelo"),
    ),
    "ru": (
        ("приведён на английском, языке оригинала", "переведён с английского моделью"),
        ("приведено на английском, языке оригинала", "переведено с английского моделью"),
    ),
    "zh": (("以其原文英文引用", "由模型从英文译出"),),
    "ar": (("مقتبسًا بالإنجليزية، لغته الأصلية", "مترجمًا من الإنجليزية بواسطة نموذج"),),
}

# --texts (stores/text/un_prompt.py): a text in the UN's own words. Its kind, as a prompt names it in each
# language, and, where the UN translated it into the prompt's language, the clause that says the text is
# the UN's own version in that language instead of "quoted in English" (each pair as above; the English
# back-translation of each is "in the UN's official <language> version").
UN_TEXT_KINDS: dict[str, str] = {
    "en": "the text of the draft, from the UN's official document",
    "fr": "le texte du projet, tiré du document officiel de l'ONU",
    "es": "el texto del proyecto, tomado del documento oficial de las Naciones Unidas",
    "ru": "текст проекта из официального документа ООН",
    "zh": "决议草案案文，取自联合国正式文件",
    "ar": "نص المشروع، من الوثيقة الرسمية للأمم المتحدة",
}
UN_TEXT_CLAUSES: dict[str, tuple[tuple[str, str], ...]] = {
    "fr": (
        ("cité en anglais, sa langue d'origine", "dans la version française officielle de l'ONU"),
        ("citée en anglais, sa langue d'origine", "dans la version française officielle de l'ONU"),
    ),
    "es": (
        ("citado en inglés, su idioma original", "en la versión oficial en español de las Naciones Unidas"),
        ("citada en inglés, su idioma original", "en la versión oficial en español de las Naciones Unidas"),
    ),
    "ru": (
        ("приведён на английском, языке оригинала", "в официальной русской версии ООН"),
        ("приведено на английском, языке оригинала", "в официальной русской версии ООН"),
    ),
    "zh": (("以其原文英文引用", "引自联合国正式中文本"),),
    "ar": (("مقتبسًا بالإنجليزية، لغته الأصلية", "بالنسخة العربية الرسمية للأمم المتحدة"),),
}


def un_text_kind(language: str) -> str:
    """What a prompt in ``language`` calls a text in the UN's own words (:data:`UN_TEXT_KINDS`)."""
    return UN_TEXT_KINDS.get(language, UN_TEXT_KINDS[DEFAULT_LANGUAGE])


def text_language(language: str, translator: str | None = None) -> str:
    """How a run config and the report name the language of the record's own text: ``en``, ``en (quoted)``
    or ``fr (translated by local:smollm2)``."""
    if language == DEFAULT_LANGUAGE:
        return DEFAULT_LANGUAGE
    return QUOTED_TEXT if translator is None else f"{language} (translated by {translator})"


def check_language(language: str | None) -> str:
    """``language`` as an ISO 639-1 code of a UN official language; anything else is one clear line."""
    key = DEFAULT_LANGUAGE if language is None else str(language).strip().lower()
    if key not in LANGUAGES:
        known = ", ".join(f"{code} ({name})" for code, name in LANGUAGES.items())
        raise PromptError(f"unknown language {language!r}: choose one of {known}")
    return key


def language_note(language: str) -> str:
    """How a report names a run's language: ``fr (French, not yet reviewed by a native speaker)``."""
    name = LANGUAGES[check_language(language)]
    if language in REVIEWED_LANGUAGES:
        return f"{language} ({name})"
    return f"{language} ({name}, {UNREVIEWED_NOTE})"


class PromptError(InputError, KeyError):
    def __str__(self) -> str:
        return str(self.args[0])


@dataclass(frozen=True)
class Prompt:
    name: str
    version: int
    system: str
    user: str
    sha256: str
    prompt_set: str = "structured"
    language: str = DEFAULT_LANGUAGE

    @property
    def ref(self) -> str:
        """``name@vN:hash8`` (``set/name@vN:hash8`` outside the default set; ``[set/]lang/name@vN:hash8``
        in a language other than English, as its file lies): what a run config records."""
        where = "" if self.prompt_set == DEFAULT_SET else f"{self.prompt_set}/"
        lang = "" if self.language == DEFAULT_LANGUAGE else f"{self.language}/"
        return f"{where}{lang}{self.name}@v{self.version}:{self.sha256[:8]}"

    @cached_property
    def fields(self) -> frozenset[str]:
        """The placeholders, parsed once: every prompt a study renders asks for them."""
        found: set[str] = set()
        for text in (self.system, self.user):
            found |= {f for _, f, _, _ in string.Formatter().parse(text) if f}
        return frozenset(found)

    def render(self, **values: object) -> list[dict[str, str]]:
        """Fill the placeholders; a missing or unexpected value is an error, not a silent blank."""
        missing = self.fields - values.keys()
        extra = values.keys() - self.fields
        if missing or extra:
            raise PromptError(
                f"prompt {self.ref}: missing values {sorted(missing)}; unexpected {sorted(extra)}"
            )
        messages = []
        if self.system.strip():
            messages.append({"role": "system", "content": self.system.format(**values).strip()})
        messages.append({"role": "user", "content": self.user.format(**values).strip()})
        return messages


def _parse(path: Path, prompt_set: str, language: str = DEFAULT_LANGUAGE) -> Prompt:
    match = _FILE.match(path.name)
    if not match:
        raise PromptError(f"{path}: template files are named <name>.v<N>.txt")
    text = path.read_text(encoding="utf-8")
    parts = _SECTION.split(text)
    sections = {parts[i]: parts[i + 1] for i in range(1, len(parts) - 1, 2)}
    if "user" not in sections:
        raise PromptError(f"{path}: a template needs a [user] section")
    return Prompt(
        name=match["name"],
        version=int(match["version"]),
        system=sections.get("system", ""),
        user=sections["user"],
        sha256=hashlib.sha256(text.encode("utf-8")).hexdigest(),
        prompt_set=prompt_set,
        language=language,
    )


@dataclass(frozen=True)
class PromptSet:
    """A folder of templates; ``answers`` says how the model is asked to answer."""

    name: str
    folder: Path
    answers: Literal["json", "free_text"]
    about: str
    base: str | None = None  # where the templates this set lacks come from
    body: str = "unsc"  # the body its vote prompts address (the Council, or the Assembly: "unga")
    language: str = DEFAULT_LANGUAGE  # the language its templates are asked in (stores/domain.py)
    # the record's own text: the English one quoted, or a model's translation (--translate-with)
    text_mode: TextMode = "quoted"

    @property
    def free_text(self) -> bool:
        """Free-text answers: no JSON schema is sent, the rules (and the optional judge) label them."""
        return self.answers == "free_text"

    def in_language(self, language: str | None) -> PromptSet:
        """This set asked in ``language`` (an ISO 639-1 code of :data:`LANGUAGES`)."""
        return replace(self, language=check_language(language))

    def with_translated_text(self) -> PromptSet:
        """This set with the record's text translated into its language (``--translate-with``): its vote
        templates say so instead of "quoted in English". English has nothing to translate into."""
        if self.language == DEFAULT_LANGUAGE:
            raise PromptError(
                "the record's text is English: a translated text needs a language other than en"
            )
        return replace(self, text_mode="translated")

    @property
    def language_folder(self) -> Path:
        """Where this set's templates in its language lie: the set's folder for English."""
        return self.folder if self.language == DEFAULT_LANGUAGE else self.folder / self.language

    @property
    def reviewed(self) -> bool:
        """Whether a native speaker has reviewed this set's language (English: the originals)."""
        return self.language in REVIEWED_LANGUAGES

    def get(self, name: str, version: int | None = None) -> Prompt:
        """The named template of this set (latest version by default), else of its base set, in the
        set's language. The English templates say which names and versions a set has; a translation
        missing for one of them is an error, never the English text or the base set's."""
        own = _load(self.folder, self.name)
        if self.base is not None and not any(n == name for n, _ in own):
            return prompt_set(self.base, language=self.language).get(name, version)
        versions = sorted(v for (n, v) in own if n == name)
        if not versions:
            raise PromptError(f"no prompt named {name!r}; known: {', '.join(sorted({n for n, _ in own}))}")
        chosen = versions[-1] if version is None else version
        if (name, chosen) not in own:
            raise PromptError(f"prompt {name!r} has no version {chosen}; versions: {versions}")
        if self.language == DEFAULT_LANGUAGE:
            return own[(name, chosen)]
        translated = _load(self.language_folder, self.name, self.language)
        if (name, chosen) not in translated:
            raise PromptError(
                f"prompt {self.name}/{name}@v{chosen} has no {LANGUAGES[self.language]} translation: "
                f"expected {self.language_folder / f'{name}.v{chosen}.txt'}"
            )
        found = translated[(name, chosen)]
        return translated_wording(found) if self.text_mode == "translated" else found

    def versions(self, *names: str) -> dict[str, str]:
        """``{name: ref}`` for the run config."""
        return {name: self.get(name).ref for name in names}


DEFAULT_SET = "structured"
PROMPT_SETS: dict[str, PromptSet] = {
    "structured": PromptSet("structured", TEMPLATE_DIR, "json", "JSON answers, schema-constrained (default)"),
    "paper": PromptSet(
        "paper", TEMPLATE_DIR / "paper", "free_text", "Appendix F word for word, free text", base="structured"
    ),
    "paper-symbols": PromptSet(
        "paper-symbols",
        TEMPLATE_DIR / "paper_symbols",
        "free_text",
        "Appendix F's words, every text named by its draft symbol, free text",
        base="paper",
    ),
    "assembly": PromptSet(
        "assembly",
        TEMPLATE_DIR / "assembly",
        "json",
        "the structured vote prompts for the General Assembly (chosen by --body unga)",
        base="structured",
        body="unga",
    ),
}
ASSEMBLY_SETS = {"structured": "assembly"}  # a Council set -> its Assembly counterpart


def for_body(chosen: PromptSet, body: str) -> PromptSet:
    """The set a vote on ``body`` uses: the Assembly has its own wording of the structured set; the
    paper's prompts are the Council's and have no Assembly version."""
    if chosen.body == body:
        return chosen
    counterpart = ASSEMBLY_SETS.get(chosen.name) if body == "unga" else None
    if counterpart is None:
        names = [n for n, s in PROMPT_SETS.items() if s.body == body or ASSEMBLY_SETS.get(n)]
        addressed = "Assembly" if chosen.body == "unga" else "Council"
        raise PromptError(
            f"the {chosen.name!r} prompt set addresses the {addressed}, not --body {body}: "
            f"use --prompts {' or '.join(names)}"
        )
    return PROMPT_SETS[counterpart].in_language(chosen.language)


@cache  # asked for every prompt a translated run renders: the same few templates each time
def translated_wording(prompt: Prompt) -> Prompt:
    """``prompt`` saying the record's text was translated from English by a model, where it says the text is
    quoted in English (:data:`TRANSLATED_CLAUSES`); its hash is the new words'. A template that shows the
    record's text (``{context}``) and keeps no such clause to change is an error, never a prompt that says
    "quoted in English" over a translated text."""
    system, user = prompt.system, prompt.user
    for quoted, translated in TRANSLATED_CLAUSES.get(prompt.language, ()):
        system, user = system.replace(quoted, translated), user.replace(quoted, translated)
    if (system, user) == (prompt.system, prompt.user):
        if "context" in prompt.fields:
            raise PromptError(
                f"prompt {prompt.ref}: no clause saying the text is quoted in English to change"
            )
        return prompt
    text = f"[system]\n{system}[user]\n{user}" if system else f"[user]\n{user}"
    return replace(prompt, system=system, user=user, sha256=hashlib.sha256(text.encode("utf-8")).hexdigest())


@cache  # asked for every prompt that shows a UN translation: the same few templates each time
def un_text_wording(prompt: Prompt) -> Prompt:
    """``prompt`` saying the record's text is the UN's own version in its language, where it says the text
    is quoted in English (:data:`UN_TEXT_CLAUSES`); its hash is the new words'. A template that shows the
    record's text and keeps no such clause is an error, never "quoted in English" over the UN's French."""
    system, user = prompt.system, prompt.user
    for quoted, official in UN_TEXT_CLAUSES.get(prompt.language, ()):
        system, user = system.replace(quoted, official), user.replace(quoted, official)
    if (system, user) == (prompt.system, prompt.user):
        if "context" in prompt.fields:
            raise PromptError(
                f"prompt {prompt.ref}: no clause saying the text is quoted in English to change"
            )
        return prompt
    text = f"[system]\n{system}[user]\n{user}" if system else f"[user]\n{user}"
    return replace(prompt, system=system, user=user, sha256=hashlib.sha256(text.encode("utf-8")).hexdigest())


def translation_prompt(version: int | None = None) -> Prompt:
    """The template a translator is asked with (``prompts/templates/translate/``): one template, English
    instructions, the translation only."""
    found = _load(TRANSLATE_FOLDER, "translate")
    versions = sorted(v for (n, v) in found if n == "translate")
    chosen = versions[-1] if version is None else version
    if ("translate", chosen) not in found:
        raise PromptError(f"the translation template has no version {chosen}; versions: {versions}")
    return found[("translate", chosen)]


def prompt_set(name: str | None = None, *, language: str | None = None) -> PromptSet:
    """The named prompt set in ``language`` (English unless asked); an unknown name or language is
    one clear line listing the choices."""
    key = DEFAULT_SET if name is None else name.strip().lower()
    if key not in PROMPT_SETS:
        raise PromptError(f"unknown prompt set {name!r}: choose one of {', '.join(PROMPT_SETS)}")
    chosen = PROMPT_SETS[key]
    return chosen if language is None else chosen.in_language(language)


def template_files(folder: Path) -> list[Path]:
    """The template files of one folder: its back-translations are for a reader, not for a model."""
    return [f for f in sorted(folder.glob("*.txt")) if not f.name.endswith(BACK_TRANSLATION)]


def back_translation(path: Path) -> Path:
    """The English back-translation beside a translated template file."""
    return path.with_name(path.name.removesuffix(".txt") + BACK_TRANSLATION)


@cache
def _load(folder: Path, set_name: str, language: str = DEFAULT_LANGUAGE) -> dict[tuple[str, int], Prompt]:
    return {(p.name, p.version): p for p in (_parse(f, set_name, language) for f in template_files(folder))}


def get_prompt(
    name: str, version: int | None = None, *, prompts: str | None = None, language: str | None = None
) -> Prompt:
    """The named template of a prompt set (the default set, latest version, English, unless asked)."""
    return prompt_set(prompts, language=language).get(name, version)


def prompt_versions(*names: str, prompts: str | None = None, language: str | None = None) -> dict[str, str]:
    """``{name: ref}`` for the run config."""
    return prompt_set(prompts, language=language).versions(*names)
