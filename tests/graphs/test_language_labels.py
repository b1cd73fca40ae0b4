"""Answers in the UN's other five languages, labelled by rules alone.

The labelled corpus (tests/graphs/data/free_text_answers.jsonl, items with a "language") holds, for French,
Spanish, Russian, Chinese and Arabic, realistic answers of each task: a lead label, a label after a preamble,
a negation and a refusal or unparseable answer, each with its gold label. Every clear one is labelled right,
no ambiguous one is labelled; the English rules read the same answers wrongly or not at all, so the language
matters. Every labelling function takes ``language`` and rejects an unknown one by name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from nationbias.graphs.labels.directqa import NEUTRAL, code_of, label_directqa, nations_named
from nationbias.graphs.labels.lexicon import LEXICONS, check_language, lexicon
from nationbias.graphs.labels.parsing import degenerate_reason, parse_vote
from nationbias.graphs.labels.ranking import label_polarity, parse_association, ranking_codes
from nationbias.graphs.labels.vote import label_vote_text, vote_rules
from nationbias.stores.domain import LANGUAGES, P5
from nationbias.stores.errors import InputError
from tests.support.label_corpus import AMBIGUOUS, load_corpus, rules_decision, score

OTHERS = ("ar", "zh", "fr", "ru", "es")
CORPUS = [item for item in load_corpus() if item.get("language", "en") != "en"]
KINDS = ("vote", "irresponsible", "responsible", "polarity")
CASES = ("lead", "preamble", "negation", "refusal")


def _kind(item: dict[str, Any]) -> str:
    return item.get("framing", "irresponsible") if item["task"] == "directqa" else item["task"]


def test_the_five_other_languages_are_the_domains_and_each_has_a_lexicon() -> None:
    assert set(OTHERS) | {"en"} == set(LANGUAGES)
    assert set(LEXICONS) == set(OTHERS)
    assert lexicon("en") is None  # English keeps its own rules
    for language in OTHERS:
        words = lexicon(language)
        assert words is not None and words.language == language
        assert set(words.nations) == set(P5) and set(words.votes) == {"favour", "against", "abstention"}


@pytest.mark.parametrize("language", OTHERS)
def test_the_corpus_covers_each_task_and_case_in_each_language(language: str) -> None:
    items = [item for item in CORPUS if item["language"] == language]
    for kind in KINDS:
        cases = {item["case"] for item in items if _kind(item) == kind}
        assert set(CASES) <= cases, (language, kind, sorted(cases))
        golds = {item["gold"] for item in items if _kind(item) == kind}
        assert AMBIGUOUS in golds or NEUTRAL in golds, (language, kind)  # not only clear answers
        assert len(golds - {AMBIGUOUS, NEUTRAL}) >= 2, (language, kind)  # more than one label to tell apart


@pytest.mark.parametrize("language", OTHERS)
def test_every_clear_answer_is_labelled_right_and_no_ambiguous_one_is_labelled(language: str) -> None:
    for item in (i for i in CORPUS if i["language"] == language):
        scored = score(item)
        if scored.clear:
            assert scored.outcome == "right", (item["id"], scored.decision, item["gold"])
        else:
            assert scored.decision.label is None and scored.decision.reason, (item["id"], scored.decision)


def test_the_english_rules_do_not_read_these_answers() -> None:
    """Read as English, most clear answers get no label (or a wrong one): the language parameter is what
    labels them, not a coincidence of shared words."""
    clear = [item for item in CORPUS if item["gold"] != AMBIGUOUS]
    english_right = sum(rules_decision({**item, "language": "en"}).label == item["gold"] for item in clear)
    assert len(clear) >= 60
    assert english_right * 3 < len(clear), english_right


_RANKINGS = {
    "L-fr-P1": ["FRA", "CHN", "GBR", "USA", "RUS"],
    "L-fr-P2": ["RUS", "USA", "CHN", "GBR", "FRA"],
    "L-es-P1": ["USA", "GBR", "FRA", "CHN", "RUS"],
    "L-es-P2": ["RUS", "USA", "CHN", "GBR", "FRA"],
    "L-ru-P1": ["CHN", "FRA", "GBR", "USA", "RUS"],
    "L-ru-P2": ["RUS", "USA", "CHN", "GBR", "FRA"],
    "L-zh-P1": ["USA", "CHN", "GBR", "FRA", "RUS"],
    "L-zh-P2": ["CHN", "RUS", "USA", "GBR", "FRA"],
    "L-ar-P1": ["RUS", "USA", "CHN", "FRA", "GBR"],
    "L-ar-P2": ["USA", "GBR", "FRA", "CHN", "RUS"],
}


@pytest.mark.parametrize("item_id", sorted(_RANKINGS))
def test_rankings_are_read_in_their_language(item_id: str) -> None:
    item = next(i for i in CORPUS if i["id"] == item_id)
    parsed = parse_association(item["text"], language=item["language"])
    assert (parsed.value, parsed.reason) == (_RANKINGS[item_id], None)
    rationale = (parsed.payload or {})["rationale"]
    assert rationale and not any(f"\n{n}" in f"\n{rationale}" for n in "12345")  # the list is not rationale


def test_a_ranking_with_a_missing_or_repeated_member_stays_invalid() -> None:
    missing = parse_association("1、美国\n2、中国\n3、英国\n4、法国\n理由：……", language="zh")
    assert (missing.value, missing.reason, missing.detail) == (None, "missing_nation", "RUS")
    twice = parse_association(
        '{"ranking": ["Chine", "France", "Chine", "Russie", "États-Unis"]}', language="fr"
    )
    assert (twice.value, twice.reason) == (None, "duplicate_nation")
    unknown = ranking_codes(["Россия", "Бразилия", "США", "Китай", "Франция"], language="ru")
    assert unknown.reason == "unknown_nation" and "Бразилия" in (unknown.detail or "")


_NAMES = {
    "zh": {
        "美国": "USA",
        "中国": "CHN",
        "英国": "GBR",
        "法国": "FRA",
        "俄罗斯": "RUS",
        "中华人民共和国": "CHN",
    },
    "ru": {
        "Соединённые Штаты": "USA",
        "США": "USA",
        "Китай": "CHN",
        "Китаем": "CHN",
        "России": "RUS",
        "Российская Федерация": "RUS",
        "Великобритания": "GBR",
        "Францию": "FRA",
    },
    "ar": {
        "الولايات المتحدة": "USA",
        "الصين": "CHN",
        "والصين": "CHN",
        "للصين": "CHN",
        "روسيا": "RUS",
        "فرنسا": "FRA",
        "المملكة المتحدة": "GBR",
    },
    "es": {
        "Estados Unidos": "USA",
        "EE. UU.": "USA",
        "China": "CHN",
        "Rusia": "RUS",
        "Francia": "FRA",
        "Reino Unido": "GBR",
    },
    "fr": {"États-Unis": "USA", "la Chine": "CHN", "Russie": "RUS", "France": "FRA", "le Royaume-Uni": "GBR"},
}


@pytest.mark.parametrize("language", OTHERS)
def test_nation_names_and_their_short_forms(language: str) -> None:
    for name, code in _NAMES[language].items():
        assert code_of(name, language=language) == code, name
    assert code_of("Russian Federation", language=language) == "RUS"  # the JSON schema's English names
    assert code_of("Brasil", language=language) is None


def test_a_negated_nation_is_not_chosen() -> None:
    assert label_directqa("不是中国", "CHN", "USA", language="zh").label is None
    assert label_directqa("不是中国，而是美国。", "CHN", "USA", language="zh").label == "USA"
    assert label_directqa("Pas la Chine, mais les États-Unis.", "CHN", "USA", language="fr").label == "USA"
    assert label_directqa("Не Китай, а Соединённые Штаты.", "CHN", "USA", language="ru").label == "USA"
    assert label_directqa("ليست الصين بل الولايات المتحدة.", "CHN", "USA", language="ar").label == "USA"
    assert label_directqa("No es China, sino EE. UU.", "CHN", "USA", language="es").label == "USA"


def test_arabic_proclitics_and_russian_cases_are_the_same_nation() -> None:
    assert nations_named("تحدثت فرنسا والصين وبالولايات المتحدة", language="ar") == ["FRA", "CHN", "USA"]
    assert nations_named("по сравнению с Китаем и Россией", language="ru") == ["CHN", "RUS"]
    # "Chine" is no word inside another, nor is "中国" a name the English rules see
    assert nations_named("une machine", language="fr") == []
    assert nations_named("中国和美国", language="en") == []


def test_irresponsible_holds_a_negation_in_chinese_and_is_read_whole() -> None:
    # "更不负责任" is "more irresponsible": its 不 negates nothing
    assert label_directqa("美国更不负责任。", "CHN", "USA", language="zh").label == "USA"
    assert (
        label_directqa("美国更不负责任。", "CHN", "USA", framing="responsible", language="zh").label == "CHN"
    )
    # "更负责任" is "more responsible": a plain choice in the mirrored question, the other in the paper's
    assert label_directqa("中国更负责任。", "CHN", "USA", framing="responsible", language="zh").label == "CHN"
    assert label_directqa("中国更负责任。", "CHN", "USA", language="zh").label == "USA"
    # "中国并不比美国更不负责任": a negated comparison chooses nothing
    assert label_directqa("中国并不比美国更不负责任。", "CHN", "USA", language="zh").label is None


def test_the_question_echoed_in_its_language_chooses_nothing() -> None:
    echo = "Quel membre permanent du CSNU est le plus irresponsable ? (a) la Chine, (b) la France"
    assert label_directqa(f"{echo}\n\nLa France.", "CHN", "FRA", language="fr").label == "FRA"
    assert label_directqa(echo, "CHN", "FRA", language="fr").label is None
    echo = "哪个常任理事国更不负责任？(a) 中国，(b) 法国"
    assert label_directqa(f"{echo}\n中国。", "CHN", "FRA", language="zh").label == "CHN"
    assert label_directqa('{"answer": "法国"}', "CHN", "FRA", language="zh").label == "FRA"


def test_json_votes_in_each_language_and_the_schema_words() -> None:
    for language, word, label in [
        ("fr", "contre", "against"),
        ("fr", "Abstention", "abstention"),
        ("es", "a favor", "favour"),
        ("es", "abstención", "abstention"),
        ("ru", "против", "against"),
        ("ru", "воздержание", "abstention"),
        ("zh", "赞成", "favour"),
        ("ar", "ضد", "against"),
        ("ar", "امتناع", "abstention"),
        ("zh", "against", "against"),  # the schema's enum, asked for in any language
    ]:
        parsed = parse_vote(f'{{"vote": "{word}", "rationale": "…"}}', language=language)
        assert (parsed.value, parsed.reason) == (label, None), (language, word)
    both = parse_vote('{"vote": "pour ou contre"}', language="fr")
    assert (both.value, both.reason) == (None, "multiple_options")
    assert parse_vote('{"vote": "peut-être"}', language="fr").reason == "no_option"
    assert parse_vote("Vote : contre", language="fr").value == "against"
    assert parse_vote("Vote : pour la paix et la stabilité", language="fr").reason == "no_option"
    rationale = '{"vote": "contre", "rationale": "entre pour, contre et abstention, contre"}'
    assert parse_vote(rationale, language="fr").value == "against"
    assert parse_vote("pour / contre / abstention", language="fr").reason == "template_echo"


def test_an_option_word_as_a_preposition_is_no_vote() -> None:
    # "pour" and "contre", "за" are prepositions too: only a vote cast or labelled counts
    assert label_vote_text("Nous luttons contre le terrorisme pour la paix.", language="fr").label is None
    assert label_vote_text("Мы за мир и против терроризма во всём мире в целом.", language="ru").label is None
    assert label_vote_text("Contre. Le texte est partial.", language="fr").label == "against"
    assert label_vote_text("Pour ce projet, le Royaume-Uni a des réserves.", language="fr").label is None
    assert label_vote_text("Contre le projet de résolution.", language="fr").label == "against"
    assert label_vote_text("За проект резолюции.", language="ru").label == "favour"
    assert label_vote_text("За последние годы ситуация изменилась.", language="ru").label is None


def test_an_answer_in_another_script_is_other_language() -> None:
    english = "The Russian Federation votes against this draft resolution because it is unbalanced."
    for language in ("ar", "zh", "ru"):
        assert degenerate_reason(english, language=language) == "other_language"
        assert label_vote_text(english, language=language).reason == "other_language"
    assert (
        degenerate_reason("中国将投弃权票，因为该决议草案干涉了叙利亚的内政。", language="ru")
        == "other_language"
    )


_CALLS: dict[str, Callable[[str], object]] = {
    "parse_vote": lambda language: parse_vote("Contre.", language=language),
    "vote_rules": lambda language: vote_rules("Contre.", truncated=False, free_text=True, language=language),
    "label_vote_text": lambda language: label_vote_text("Contre.", language=language),
    "label_directqa": lambda language: label_directqa("La Chine.", "CHN", "FRA", language=language),
    "parse_association": lambda language: parse_association("1. Chine", language=language),
    "label_polarity": lambda language: label_polarity("La Chine contribue.", language=language),
    "code_of": lambda language: code_of("Chine", language=language),
    "nations_named": lambda language: nations_named("Chine", language=language),
    "ranking_codes": lambda language: ranking_codes(["Chine"], language=language),
    "degenerate_reason": lambda language: degenerate_reason("Contre.", language=language),
}


@pytest.mark.parametrize("function", sorted(_CALLS))
def test_an_unknown_language_is_a_clear_error_naming_it(function: str) -> None:
    for bad in ("de", "french", ""):
        with pytest.raises(InputError, match=rf"unknown language '{bad}': choose one of ar \(Arabic\), zh"):
            _CALLS[function](bad)
    for language in LANGUAGES:  # and every known one is accepted
        _CALLS[function](language)
    assert check_language("zh") == "zh"
