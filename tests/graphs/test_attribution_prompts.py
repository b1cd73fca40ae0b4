"""The attribution test's prompts, read as the real code path builds them for every one of the 66 drafts:
a draft's arms differ only in the proposer line, no arm names the real sponsor as proposer (unless that
sponsor is the arm's proposer), and no prompt carries the outcome (the guard and the independent markers).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from nationbias.graphs.attribution import (
    ARMS,
    GROUP_NAME,
    NO_PROPOSER,
    NeutralText,
    added_members,
    attribution_messages,
    neutral_text,
    proposer_audit,
    proposer_name,
    remove_proposers,
    shown_for,
    un_translation_problem,
)
from nationbias.prompts import prompt_set
from nationbias.stores.corpora.bundled import corpus_file, using_data
from nationbias.stores.corpora.corpus import Corpus
from nationbias.stores.corpora.un_texts import un_texts, un_texts_file
from nationbias.stores.domain import CONTROL
from nationbias.stores.records import Record
from nationbias.stores.text.budget import prompt_text
from nationbias.stores.text.cut import BUDGETS, SERVER_CHARS
from nationbias.stores.text.un_prompt import target_shown
from tests.graphs.test_prompt_texts import markers
from tests.graphs.test_prompts_languages import words_in
from tests.graphs.test_prompts_leak_free import markers_in

# Phrases in the corpus's texts that name a draft's own proposer, found by reading them (not by the
# rewrite's patterns): each must be in the text before the rewrite and in no arm after it.
PROPOSER_PHRASES = {
    "S/2014/916": "Presented by Jordan",
    "S/2015/508": "Sponsors: Jordan",
    "S/2017/884": "United States-proposed",
    "S/2020/683": "Sponsors: Russian Federation",
    "S/2020/797": "Tabled by the United States",
    "S/2021/990": "sponsored by Niger",
    "S/2023/638": "submitted by France and the United Arab Emirates",
    "S/2023/639": "proposed by Russia",
    "S/2023/792": "United States’ draft",
    "S/2024/173": "drafted by Algeria",
    "S/2024/239": "presented by the United States",
    "S/2024/255": "presented by the United States",
}
# …and by a demonym ("the Russian text"). No text of the corpus names another draft so, so none may stay.
DEMONYM_PHRASES = {
    "S/2020/683": "By the Russian text",
    "S/2023/795": "The Russian resolution",
    "S/2024/383": "The Russian text",
}
P5_DEMONYM = (
    r"\b(?:Russian|American|US|U\.S\.|Chinese|French|British|UK) (?:draft|text|resolution|proposal)\b"
)
# A nation in another role stays: the author of the draft S/2018/520 amends, a party named in a text.
OTHER_ROLES = {"S/2018/520": "Kuwait’s draft"}


def _content(messages: list[dict[str, str]]) -> str:
    return "\n".join(m["content"] for m in messages)


def _line(arm: str) -> str:
    name = proposer_name(arm)
    return "" if name is None else f"Submitted by: {name}\n"


@pytest.fixture(scope="module")
def arms(corpus: Corpus) -> dict[tuple[str, int, str, str], dict[str, str]]:
    """(draft, budget, --texts, voter) → arm → the prompt as sent."""
    built = {}
    for record in corpus.drafts:
        for budget in BUDGETS:
            for mode in ("press", "auto"):
                shown = target_shown(record, mode)
                text = neutral_text(record, context_chars=budget, shown=shown)
                for voter in (CONTROL, "RUS"):
                    built[(record.id, budget, mode, voter)] = {
                        arm: _content(attribution_messages(record, arm, voter, text=text, shown=shown))
                        for arm in ARMS
                    }
    return built


def test_every_draft_is_kept_and_shown_in_seven_arms(arms: dict, corpus: Corpus) -> None:
    assert len(corpus.drafts) == 66 and len(arms) == 66 * 2 * 2 * 2
    assert all(len(prompts) == 7 for prompts in arms.values())
    assert proposer_audit(corpus.drafts)["excluded"] == {}


def test_a_drafts_arms_differ_only_in_the_proposer_line(arms: dict) -> None:
    for key, prompts in arms.items():
        bare = prompts[NO_PROPOSER]
        assert "Submitted by:" not in bare, key
        for arm, prompt in prompts.items():
            line = _line(arm)
            assert prompt.count("Submitted by:") == (arm != NO_PROPOSER), (key, arm)
            assert prompt.replace(line, "", 1) == bare, (key, arm)  # byte for byte, the line aside
        assert f"Submitted by: {GROUP_NAME}\n" in prompts["group"]
        assert "Submitted by: China\n" in prompts["CHN"]


def test_no_arm_names_the_real_proposer(arms: dict, corpus: Corpus) -> None:
    by_id = {r.id: r for r in corpus.drafts}
    for rid, phrase in [*PROPOSER_PHRASES.items(), *DEMONYM_PHRASES.items()]:
        assert phrase in prompt_text(by_id[rid], budget=3000).text, rid  # the check can fail
        for (draft, *_), prompts in arms.items():
            if draft == rid:
                assert all(phrase not in p for p in prompts.values()), (rid, phrase)
    for rid, phrase in OTHER_ROLES.items():
        assert phrase in arms[(rid, 3000, "press", CONTROL)]["USA"], rid


def proposer_patterns(record: Record) -> list[str]:
    """Independent of the rewrite: the record's sponsors in a proposer's role."""
    names = {n for s in record.sponsors for n in re.split(r",? and |, ", s) if n.strip()}
    names |= {"Russia"} if "Russian Federation" in names else set()
    names |= {"United States"} if any("United States" in n for n in names) else set()
    out = [r"^Sponsors:", P5_DEMONYM]
    for name in names:
        who = re.escape(name.strip())
        out += [
            rf"(?:tabled|presented|submitted|drafted|sponsored|proposed|introduced)\s+(?:jointly\s+)?by\s+(?:the\s+)?{who}",
            rf"{who}[-‑](?:proposed|drafted|sponsored|led)",
            rf"{who}(?:’s|'s|’|') (?:draft|text|proposal)",
        ]
    return out


def test_no_arm_names_a_recorded_sponsor_as_proposer(arms: dict, corpus: Corpus) -> None:
    by_id = {r.id: r for r in corpus.drafts}
    checked = 0
    for (rid, *_), prompts in arms.items():
        record = by_id[rid]
        for arm, prompt in prompts.items():
            context = prompt.replace(_line(arm), "", 1)
            for pattern in proposer_patterns(record):
                assert not re.search(pattern, context, re.IGNORECASE | re.MULTILINE), (rid, arm, pattern)
                checked += 1
    assert checked > 1000


def test_no_prompt_carries_the_outcome(arms: dict, corpus: Corpus) -> None:
    leaks = {
        (key, arm): markers(p) for key, prompts in arms.items() for arm, p in prompts.items() if markers(p)
    }
    assert leaks == {}
    for budget in BUDGETS:
        assert proposer_audit(corpus.drafts, context_chars=budget, text_mode="auto")["markers"] == {}


def test_the_rewrites_are_counted_per_draft(corpus: Corpus) -> None:
    audit = proposer_audit(corpus.drafts, text_mode="press")
    assert {*PROPOSER_PHRASES, *DEMONYM_PHRASES} <= {rid for rid, found in audit["rewrites"].items() if found}
    assert audit["drafts_rewritten"] == sum(1 for found in audit["rewrites"].values() if found)
    assert audit["phrases_rewritten"] >= len(PROPOSER_PHRASES) + len(DEMONYM_PHRASES)


def test_a_proposer_phrase_the_rewrite_cannot_cover_leaves_the_draft_out() -> None:
    text, rewrites, reason = remove_proposers("Circulated by France on Monday, it would demand a ceasefire.")
    assert reason is not None and "Circulated by France" in reason and rewrites == ()
    text, rewrites, reason = remove_proposers("Tabled by the United States, the draft would demand a truce.")
    assert (text, reason) == ("The draft would demand a truce.", None) and len(rewrites) == 1
    text, _, reason = remove_proposers("Russia’s draft would x. Amendments to Kuwait’s draft would y.")
    assert (text, reason) == ("The draft would x. Amendments to Kuwait’s draft would y.", None)
    text, _, reason = remove_proposers("The report presented by the Secretary-General would be welcomed.")
    assert reason is None and "presented by the Secretary-General" in text  # no nation: not a proposer
    text, rewrites, _ = remove_proposers("By the Russian text, it would x. Amendments to the French draft y.")
    assert text == "By the text, it would x. Amendments to the French draft y." and len(rewrites) == 1
    assert remove_proposers("The Syria text would x.")[0] == "The Syria text would x."  # a topic, no demonym


# --- in another language (--language): its line with the UN's names; the text quoted, or the UN's own

# the proposer line's label, as each language's template says it
LANGUAGE_LINES = {"fr": "Présenté par : ", "zh": "提交方："}
UN_TEXT_CLAUSE = {"fr": "version française officielle de l'ONU", "zh": "引自联合国正式中文本"}
QUOTED_CLAUSE = {"fr": "cité en anglais", "zh": "以其原文英文引用"}


def _language_line(arm: str, language: str) -> str:
    name = proposer_name(arm, language)
    return "" if name is None else f"{LANGUAGE_LINES[language]}{name}\n"


@pytest.fixture(scope="module")
def language_arms(corpus: Corpus) -> dict[tuple[str, str, str], tuple[NeutralText, dict[str, str]]]:
    """(language, --texts, draft) → the draft's text and, per arm, the control's prompt as sent."""
    built = {}
    for language in LANGUAGE_LINES:
        kit = prompt_set(language=language)
        for mode in ("press", "auto"):
            for record in corpus.drafts:
                shown = shown_for(record, mode, language=language)
                text = neutral_text(record, context_chars=SERVER_CHARS, shown=shown, prompts=kit)
                built[(language, mode, record.id)] = (
                    text,
                    {
                        arm: _content(
                            attribution_messages(record, arm, CONTROL, text=text, prompts=kit, shown=shown)
                        )
                        for arm in ARMS
                    },
                )
    return built


def test_in_another_language_the_line_is_in_it_with_the_uns_names(language_arms: dict) -> None:
    assert len(language_arms) == 2 * 2 * 66
    for (language, mode, rid), (text, prompts) in language_arms.items():
        assert text.excluded is None, (language, mode, rid)
        bare = prompts[NO_PROPOSER]
        for arm, prompt in prompts.items():
            assert "Submitted by" not in prompt, (language, rid, arm)  # no English proposer line
            line = _language_line(arm, language)
            assert prompt.count(LANGUAGE_LINES[language]) == (arm != NO_PROPOSER), (language, rid, arm)
            assert prompt.replace(line, "", 1) == bare, (language, mode, rid, arm)  # byte for byte
        if language == "fr":
            assert "Présenté par : Chine\n" in prompts["CHN"]
            assert "Présenté par : Royaume-Uni de Grande-Bretagne et d’Irlande du Nord\n" in prompts["GBR"]
            assert "Présenté par : un groupe d’États Membres\n" in prompts["group"]
        else:
            assert "提交方：俄罗斯联邦\n" in prompts["RUS"] and "提交方：美利坚合众国\n" in prompts["USA"]


def test_in_another_language_the_uns_own_translation_is_shown_where_it_has_one(
    language_arms: dict, corpus: Corpus
) -> None:
    """Under auto the drafts with a UN text show the UN's own translation (none needs a proposer rewrite in
    its English text); every other draft, and every draft under press, quotes its proposer-free English."""
    for (language, mode, rid), (text, prompts) in language_arms.items():
        record = corpus.get(rid)
        own = mode == "auto" and target_shown(record, "auto") == "un"
        assert text.language == (language if own else "en"), (language, mode, rid)
        for prompt in prompts.values():
            assert (UN_TEXT_CLAUSE[language] in prompt) == own, (language, mode, rid)
            assert (QUOTED_CLAUSE[language] in prompt) == (not own), (language, mode, rid)
        assert text.text.strip() and text.text in prompts[NO_PROPOSER], (language, mode, rid)
        if own:  # the UN's own words in the language, never the English
            assert un_texts(language)[rid].operative[0][:60] in prompts[NO_PROPOSER], (language, rid)
            assert un_texts("en")[rid].operative[0][:60] not in prompts[NO_PROPOSER], (language, rid)
    shown = sum(1 for (lang, mode, _), (t, _) in language_arms.items() if lang == "fr" and t.language == "fr")
    assert shown == 18


def test_in_another_language_no_arm_names_the_real_proposer_or_the_outcome(
    language_arms: dict, corpus: Corpus
) -> None:
    by_id = {r.id: r for r in corpus.drafts}
    for (language, _mode, rid), (text, prompts) in language_arms.items():
        for arm, prompt in prompts.items():
            context = prompt.replace(_language_line(arm, language), "", 1)
            if text.language == "en":
                for pattern in proposer_patterns(by_id[rid]):
                    assert not re.search(pattern, context, re.IGNORECASE | re.MULTILINE), (rid, arm, pattern)
            assert markers_in(prompt) == [] and markers(_language_line(arm, language) + text.text) == [], (
                language,
                rid,
                arm,
            )
            # the language's own outcome words, over all but the UN's own translation (whose drafting words,
            # "les mesures adoptées", its guard reads: tests/graphs/test_prompts_un_texts.py)
            assert words_in(prompt.replace(text.text, ""), language) == [], (language, rid, arm)
    for rid, phrase in PROPOSER_PHRASES.items():
        for language in LANGUAGE_LINES:
            text, prompts = language_arms[(language, "press", rid)]
            assert all(phrase not in p for p in prompts.values()), (language, rid, phrase)


def test_in_another_language_the_audit_finds_no_marker_and_leaves_no_draft_out(corpus: Corpus) -> None:
    for language in ("fr", "zh", "ar", "ru", "es"):
        audit = proposer_audit(corpus.drafts, text_mode="auto", language=language)
        assert audit["excluded"] == {} and audit["markers"] == {} and audit["un_text_not_used"] == {}
        assert audit["text_languages"] == {"en": 48, language: 18}


def test_a_un_translation_whose_english_text_names_a_proposer_is_not_shown(
    tmp_path: Path, corpus: Corpus
) -> None:
    """None of the UN's texts names its proposer (they keep no cover page); were one to, its translation could
    not be rewritten as the English is: auto shows the corpus's text instead, un leaves the draft out."""
    record = corpus.get("S/2024/255")
    assert un_translation_problem(record, "fr") is None  # the shipped data: the UN's French text is shown
    root = tmp_path / "data"
    (root / "unsc" / "un_texts").mkdir(parents=True)
    (root / "unsc" / "corpus.jsonl").write_bytes(corpus_file().content())
    for language in ("en", "fr"):
        lines = un_texts_file(language).content().decode("utf-8").splitlines()
        if language == "en":
            at = next(i for i, line in enumerate(lines) if json.loads(line)["id"] == record.id)
            item = json.loads(lines[at])
            item["preamble"].insert(
                1, "Noting that the draft — submitted by the United States — would extend it,"
            )
            lines[at] = json.dumps(item, ensure_ascii=False)
        (root / "unsc" / "un_texts" / f"{language}.jsonl").write_text(
            "\n".join(lines) + "\n", encoding="utf-8"
        )
    french = prompt_set(language="fr")
    with using_data(root):
        problem = un_translation_problem(record, "fr")
        assert problem is not None and "submitted by the United States" in problem
        assert shown_for(record, "auto", language="fr") == "press"
        assert shown_for(record, "un", language="fr") == "un" and shown_for(record, "auto") == "un"
        left = neutral_text(record, context_chars=SERVER_CHARS, shown="un", prompts=french)
        assert left.excluded == problem and left.language == "fr"
        auto = proposer_audit([record], text_mode="auto", language="fr")
        assert auto["un_text_not_used"] == {record.id: problem} and auto["excluded"] == {}
        assert auto["text_languages"] == {"en": 1}
        assert proposer_audit([record], text_mode="un", language="fr")["excluded"] == {record.id: problem}


def test_a_member_a_translation_names_and_its_english_text_does_not_is_found() -> None:
    """What leaves a translated draft out: a permanent member named in the translation alone."""
    english = "The draft would demand that all parties protect civilians in Darfur."
    assert added_members(english, "Le projet, présenté par la Chine, exigerait …", "fr") == ["CHN"]
    assert added_members(english, "该草案由美利坚合众国提交。", "zh") == ["USA"]
    assert added_members(english, "Проект, внесённый Российской Федерацией, …", "ru") == ["RUS"]
    assert (
        added_members(english, "Le projet exigerait que toutes les parties protègent les civils.", "fr") == []
    )
    # Chinese words that hold a name's characters and are no name: 其中国际 (among them, international),
    # 合法国家 (a lawful state)
    assert added_members(english, "其中国际社会应支持合法国家机构。", "zh") == []
    named = "The Russian Federation and China would be asked to report."
    assert (
        added_members(
            named, "Il serait demandé à la Fédération de Russie et à la Chine de faire rapport.", "fr"
        )
        == []
    )
