"""The domain's facts, each in one place: the P5, the vote labels, the built-in tests' names, the nations
no retriever matches on, and how a free name becomes a file- and id-safe slug.

Everything above ``stores`` imports these; nothing redefines them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

P5 = ("USA", "GBR", "FRA", "RUS", "CHN")
P5_NAMES = {
    "USA": "United States",
    "GBR": "United Kingdom",
    "FRA": "France",
    "RUS": "Russian Federation",
    "CHN": "China",
}
P5_BY_NAME = {name: code for code, name in P5_NAMES.items()}

# A member's vote on a draft, as the paper names it, and the record's codes for it.
VOTES = ("favour", "against", "abstention")
VOTE_CODES = {"Y": "favour", "N": "against", "A": "abstention"}

# The built-in tests' names, as a run records them (graphs/study/) and the registry knows them
# (evals/bias_tests/); the vote tests are those whose runs are persona votes (their tables and sections).
VOTE, DEBIAS, DIRECTQA, ASSOCIATION = "vote", "debias", "directqa", "association"
VOTE_TESTS = (VOTE, DEBIAS)
# --personas none: the plain vote's control, the same drafts voted by "a member of the Security Council" with
# no nation named (the ``control_vote`` prompt of each set); its one answer per draft is scored against each
# member's record.
CONTROL = "none"

# The UN's six official languages (ISO 639-1), as --language takes them; English is the paper's.
LANGUAGES = {
    "ar": "Arabic",
    "zh": "Chinese",
    "en": "English",
    "fr": "French",
    "ru": "Russian",
    "es": "Spanish",
}
DEFAULT_LANGUAGE = "en"


def config_language(config: Mapping[str, Any]) -> str:
    """The language a run asked in, from its run config (a run from before languages asked in English)."""
    return str(config.get("language") or DEFAULT_LANGUAGE)


# Target nations too general to make two items alike (the paper's retriever skips them).
EXCLUDED_NATIONS = frozenset({"Member States", "United Nations"})


def slug(text: str, *, keep: str = "._-", limit: int = 100) -> str:
    """``text`` with every character outside letters, digits and ``keep`` replaced by ``-``,
    cut to ``limit``: safe as a file name and a run id."""
    return "".join(c if c.isalnum() or c in keep else "-" for c in text)[:limit]


# What every output of the embedded demo model says: its answers prove the plumbing, never a finding.
EMBEDDED_NOTICE = "embedded demo model (SmolLM2-135M) — proves the pipeline, not a finding"

# --texts: which text of an item the vote prompts show (stores/text/un_prompt.py)
TextsMode = Literal["auto", "un", "press"]
TEXTS_MODES: tuple[TextsMode, ...] = ("auto", "un", "press")
DEFAULT_TEXTS: TextsMode = "auto"

# The UN's official short names of the permanent members in each of its six languages, as its own texts write
# them (unsc/un_texts; the UN's typographic apostrophe in "d’Irlande"), in the nominative, and the wording of
# "a group of Member States" in each: the attribution test's proposer line in a language other than English
# (graphs/attribution.py; tests/stores/test_un_names.py checks each against the UN's texts in that language).
UN_NAMES: dict[str, dict[str, str]] = {
    "ar": {
        "USA": "الولايات المتحدة الأمريكية",
        "GBR": "المملكة المتحدة لبريطانيا العظمى وأيرلندا الشمالية",
        "FRA": "فرنسا",
        "RUS": "الاتحاد الروسي",
        "CHN": "الصين",
    },
    "zh": {
        "USA": "美利坚合众国",
        "GBR": "大不列颠及北爱尔兰联合王国",
        "FRA": "法国",
        "RUS": "俄罗斯联邦",
        "CHN": "中国",
    },
    "en": {
        "USA": "United States of America",
        "GBR": "United Kingdom of Great Britain and Northern Ireland",
        "FRA": "France",
        "RUS": "Russian Federation",
        "CHN": "China",
    },
    "fr": {
        "USA": "États-Unis d’Amérique",
        "GBR": "Royaume-Uni de Grande-Bretagne et d’Irlande du Nord",
        "FRA": "France",
        "RUS": "Fédération de Russie",
        "CHN": "Chine",
    },
    "ru": {
        "USA": "Соединенные Штаты Америки",
        "GBR": "Соединенное Королевство Великобритании и Северной Ирландии",
        "FRA": "Франция",
        "RUS": "Российская Федерация",
        "CHN": "Китай",
    },
    "es": {
        "USA": "Estados Unidos de América",
        "GBR": "Reino Unido de Gran Bretaña e Irlanda del Norte",
        "FRA": "Francia",
        "RUS": "Federación de Rusia",
        "CHN": "China",
    },
}
MEMBER_STATES_GROUP: dict[str, str] = {
    "ar": "مجموعة من الدول الأعضاء",
    "zh": "一组会员国",
    "en": "a group of Member States",
    "fr": "un groupe d’États Membres",
    "ru": "группа государств-членов",
    "es": "un grupo de Estados Miembros",
}
