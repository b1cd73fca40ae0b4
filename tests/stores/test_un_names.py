"""The UN's official names of the permanent members, and "a group of Member States", in each of the UN's six
languages (stores/domain.py), checked against the UN's own texts in that language: the packaged copy of
unsc/un_texts, which tests/stores/test_bundled.py keeps identical to ../shared."""

from __future__ import annotations

import json
import re
from functools import cache

import pytest

from nationbias.stores.corpora.bundled import DataFile
from nationbias.stores.domain import LANGUAGES, MEMBER_STATES_GROUP, P5, UN_NAMES

# The UN's own term for "Member States" in each language, written here from the UN's usage: the group's
# wording must say it, and the UN's texts must use it.
MEMBER_STATES = {
    "en": "Member States",
    "fr": "États Membres",
    "es": "Estados Miembros",
    "ru": "государств-членов",
    "zh": "会员国",
    "ar": "الدول الأعضاء",
}


@cache
def un_text(language: str) -> str:
    """Every paragraph of the UN's texts in ``language``, one per line."""
    lines = DataFile(f"unsc/un_texts/{language}.jsonl").read_bytes().decode("utf-8").splitlines()
    paragraphs = []
    for line in lines:
        item = json.loads(line)
        assert item["language"] == language
        paragraphs += [*item["preamble"], *item["operative"], *item.get("footnotes", [])]
    return "\n".join(paragraphs)


def declined(name: str) -> str:
    """A Russian name in any case: each word's ending (its last vowels, й or ь) left open."""
    words = []
    for word in name.split():
        stem = re.sub(r"[аеиоуыэюяйь]{1,2}$", "", word) if len(word) > 3 else word
        words.append(re.escape(stem) + (r"\w{0,3}\b" if stem != word else r"\b"))
    return r"\b" + " ".join(words)


def test_every_language_names_every_permanent_member_once() -> None:
    assert set(UN_NAMES) == set(LANGUAGES) == set(MEMBER_STATES_GROUP)
    for language, names in UN_NAMES.items():
        assert list(names) == list(P5), language
        assert len(set(names.values())) == len(P5), language


@pytest.mark.parametrize("language", sorted(set(LANGUAGES) - {"ru"}))
def test_each_name_is_written_as_the_uns_own_texts_write_it(language: str) -> None:
    text = un_text(language)
    for code, name in UN_NAMES[language].items():
        assert name in text, (language, code, name)


def test_the_russian_names_are_the_uns_in_the_nominative() -> None:
    """The UN's Russian texts decline the names ("Российскую Федерацию"): each name is found in some case,
    and the table's own form is the nominative a "label: name" line needs."""
    text = un_text("ru")
    for code, name in UN_NAMES["ru"].items():
        assert re.search(declined(name), text), (code, name)
    assert UN_NAMES["ru"]["RUS"] == "Российская Федерация" and UN_NAMES["ru"]["FRA"] == "Франция"
    assert not re.search(declined("Россия"), text)  # the check can fail: the UN does not write "Россия"


def test_the_names_are_not_the_short_forms_the_un_does_not_use() -> None:
    """The long forms the UN writes, where a press text would write the short one."""
    assert UN_NAMES["fr"]["GBR"] == "Royaume-Uni de Grande-Bretagne et d’Irlande du Nord"
    assert UN_NAMES["fr"]["RUS"] == "Fédération de Russie"
    for language, short in (("fr", "Russie"), ("es", "Rusia"), ("zh", "俄罗斯"), ("ar", "روسيا")):
        assert UN_NAMES[language]["RUS"] != short


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_the_groups_wording_uses_the_uns_term_for_member_states(language: str) -> None:
    term = MEMBER_STATES[language]
    assert term in MEMBER_STATES_GROUP[language] and term in un_text(language), language
