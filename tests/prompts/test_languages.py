"""Every template in the UN's six official languages: the same placeholders as the English, a line-by-line
English back-translation beside it, the answer keys the parsers expect; English untouched."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from nationbias.prompts import PROMPT_SETS, PromptError, PromptSet, get_prompt, prompt_set
from nationbias.prompts.registry import BACK_TRANSLATION, back_translation, template_files
from nationbias.stores.domain import DEFAULT_LANGUAGE, LANGUAGES

OTHER = [code for code in LANGUAGES if code != DEFAULT_LANGUAGE]
FOLDERS = sorted({s.folder for s in PROMPT_SETS.values()})
ENGLISH = [(folder, path) for folder in FOLDERS for path in template_files(folder)]
PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")
# The script each language is written in: a translation must be in it, not left in English.
SCRIPT = {
    "ar": r"[\u0600-\u06FF]",
    "zh": r"[\u4E00-\u9FFF]",
    "ru": r"[\u0400-\u04FF]",
    "fr": r"\b(?:vous|votre|les|des|est|par)\b",
    "es": r"\b(?:usted|su|los|las|del|es|por)\b",
}
# A free-text vote asks for the language's own vote words (the labels read them), not the schema's.
VOTE_WORDS = {
    "ar": ("تأييد", "معارضة", "امتناع"),
    "zh": ("赞成", "反对", "弃权"),
    "fr": ("pour", "contre", "abstention"),
    "ru": ("за", "против", "воздержаться"),
    "es": ("a favor", "en contra", "abstención"),
}


def test_the_english_templates_are_found_in_every_set() -> None:
    names = {(folder.name, p.name) for folder, p in ENGLISH}
    assert len(ENGLISH) == 35 and ("paper", "reflexion.v2.txt") in names
    assert {("templates", "control_vote.v1.txt"), ("paper_symbols", "control_vote.v1.txt")} <= names
    assert ("templates", "judge_vote.v1.txt") in names and ("assembly", "final_vote.v1.txt") in names


@pytest.mark.parametrize("language", OTHER)
def test_every_template_exists_with_the_same_placeholders_and_a_back_translation(language: str) -> None:
    for folder, english in ENGLISH:
        translated = folder / language / english.name
        assert translated.is_file(), translated
        text, source = translated.read_text(encoding="utf-8"), english.read_text(encoding="utf-8")
        assert sorted(PLACEHOLDER.findall(text)) == sorted(PLACEHOLDER.findall(source)), translated
        assert re.findall(r"^\[(?:system|user)\]$", text, re.M) == re.findall(
            r"^\[(?:system|user)\]$", source, re.M
        )
        assert text != source and re.search(SCRIPT[language], text), translated
        back = back_translation(translated)
        assert back.name == english.name.removesuffix(".txt") + BACK_TRANSLATION and back.is_file(), back
        back_text = back.read_text(encoding="utf-8")
        assert len(back_text.splitlines()) == len(text.splitlines()), back
        assert not re.search(SCRIPT[language], back_text) or language in ("fr", "es"), back  # in English
        for line, back_line in zip(text.splitlines(), back_text.splitlines(), strict=True):
            assert sorted(PLACEHOLDER.findall(line)) == sorted(PLACEHOLDER.findall(back_line)), (back, line)
            assert bool(line.strip()) == bool(back_line.strip()), (back, line)
    # nothing in a language folder that the English does not have
    for folder in FOLDERS:
        extra = {p.name for p in template_files(folder / language)} - {p.name for p in template_files(folder)}
        assert extra == set(), folder / language


@pytest.mark.parametrize("language", OTHER)
def test_a_set_in_a_language_loads_every_template_and_its_judges_in_it(language: str) -> None:
    for name, chosen in PROMPT_SETS.items():
        lang = chosen.in_language(language)
        for english in template_files(chosen.folder):
            prompt_name, version = english.name.split(".v")[0], int(english.name.split(".v")[1].split(".")[0])
            got = lang.get(prompt_name, version)
            assert got.language == language and f"{language}/{prompt_name}@v{version}:" in got.ref, name
            assert got.fields == chosen.get(prompt_name, version).fields
            assert got.sha256 != chosen.get(prompt_name, version).sha256
        judge = lang.get("judge_vote")  # from the base set, in the same language
        assert judge.ref.startswith(f"{language}/judge_vote@v1:") and re.search(SCRIPT[language], judge.user)


def test_the_english_refs_and_hashes_are_unchanged() -> None:
    """Runs resume on these hashes: a language never moves an English template."""
    assert get_prompt("persona_vote").ref == prompt_set(language="en").get("persona_vote").ref
    assert prompt_set("paper").get("final_vote").ref == "paper/final_vote@v1:2457f139"
    assert get_prompt("persona_vote", language="fr").ref.startswith("fr/persona_vote@v1:")
    assert (
        prompt_set("paper-symbols", language="ar")
        .get("final_vote")
        .ref.startswith("paper-symbols/ar/final_vote@v1:")
    )


@pytest.mark.parametrize("language", OTHER)
def test_json_answers_keep_the_schemas_english_keys_and_values(language: str) -> None:
    """A structured answer is parsed against the schema: its keys and enum values stay English, and the
    translated instruction names them exactly, inside double quotes as the English does."""
    for chosen in (prompt_set(), prompt_set("assembly")):
        for english in template_files(chosen.folder):
            name = english.name.split(".v")[0]
            source = chosen.get(name).user
            if "JSON" not in source:
                continue
            text = chosen.in_language(language).get(name).user + chosen.in_language(language).get(name).system
            for key in re.findall(r'"([a-z_]+)"', source):
                assert f'"{key}"' in text, (language, name, key)
            if '"vote" is exactly one of favour, against, abstention' in source:
                assert all(word in text for word in ("favour", "against", "abstention")), (language, name)
    polarity = get_prompt("judge_polarity", language=language).user
    assert all(f'"{v}"' in polarity for v in ("positive", "negative", "inconsistent"))


@pytest.mark.parametrize("language", OTHER)
def test_free_text_vote_prompts_ask_for_the_languages_vote_words(language: str) -> None:
    for name in ("paper", "paper-symbols"):
        text = prompt_set(name, language=language).get("persona_vote").user
        assert all(word in text for word in VOTE_WORDS[language]), (name, language)
        assert "favour" not in text and "against" not in text


def test_an_unknown_language_is_one_clear_line() -> None:
    with pytest.raises(
        PromptError, match=r"unknown language 'de': choose one of ar \(Arabic\), zh \(Chinese\)"
    ):
        prompt_set("paper", language="de")
    assert prompt_set(language=" FR ").language == "fr"


def test_a_missing_translation_is_an_error_never_the_english(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "persona_vote.v1.txt").write_text("[user]\nVote as {nation}:\n{context}\n")
    (tmp_path / "fr").mkdir()
    mine = PromptSet("mine", tmp_path, "free_text", "a test set", base="structured")
    monkeypatch.setitem(PROMPT_SETS, "mine", mine)
    with pytest.raises(
        PromptError, match=r"prompt mine/persona_vote@v1 has no French translation: expected .*fr"
    ):
        prompt_set("mine", language="fr").get("persona_vote")
    done = tmp_path / "done"  # a set whose French is there (a folder is read once: a fresh one)
    (done / "fr").mkdir(parents=True)
    (done / "persona_vote.v1.txt").write_text("[user]\nVote as {nation}:\n{context}\n")
    (done / "fr" / "persona_vote.v1.txt").write_text("[user]\nVotez en tant que {nation} :\n{context}\n")
    (done / "fr" / "persona_vote.v1.back-en.txt").write_text("[user]\nVote as {nation}:\n{context}\n")
    monkeypatch.setitem(
        PROMPT_SETS, "done", PromptSet("done", done, "free_text", "a test set", base="structured")
    )
    got = prompt_set("done", language="fr").get("persona_vote")
    assert got.ref.startswith("done/fr/persona_vote@v1:") and "Votez" in got.user
    assert prompt_set("done", language="fr").get("judge_vote") == get_prompt("judge_vote", language="fr")
