"""The vote and debias prompts each language really sends, for all 66 drafts, read for the outcome.

The prompts are built by the graphs themselves (a scripted model answers; the prompt building, the leak
guard and the retriever are the real ones) from each set's templates in each of the UN's languages. The
instructions are in the language, the draft's own text is the English one, quoted. Each prompt is read
with the English markers (tests/graphs/test_prompts_leak_free.py: the quoted text is English) and with
the language's own outcome words, written here independently of the translations and of the guard.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest

from nationbias.graphs.debias import DebiasContext, DebiasOptions, build_debias_graph
from nationbias.graphs.history import WORDS, history_text, paper_history_text
from nationbias.graphs.model.client import ModelClient
from nationbias.graphs.vote import VoteDeps, build_vote_graph
from nationbias.prompts import prompt_set
from nationbias.retrievers import get_retriever
from nationbias.stores.corpora.augment import augmented_for
from nationbias.stores.corpora.corpus import Corpus
from nationbias.stores.domain import DEFAULT_LANGUAGE, LANGUAGES
from nationbias.stores.text.budget import prompt_text
from tests.graphs.test_prompts_leak_free import markers_in

OTHER = [code for code in LANGUAGES if code != DEFAULT_LANGUAGE]
SETS = ("structured", "paper", "paper-symbols")

# Words a reader of each language takes as "this text was adopted / voted down / vetoed", the votes
# cast in the past tense and the counterfactual ("would have"). Not the guard's, not the templates'.
OUTCOME_WORDS: dict[str, dict[str, str]] = {
    "fr": {
        "adopté": r"\badopté(?:e|s|es)?\b",
        "rejeté": r"\brejeté(?:e|s|es)?\b",
        "veto": r"\bveto\b",
        "voté": r"\bvoté(?:e|s|es)?\b",
        "abstenu": r"\babstenu(?:e|s|es)?\b",
        "mis aux voix": r"\bmis(?:e)? aux voix\b",
        "aurait été": r"\baurai(?:t|ent) (?:été|eu|pu)\b",
        "échoué": r"\béchou(?:é|ée)\b|\béchec\b",
        "par N voix": r"\bpar \d{1,2} voix\b",
    },
    "es": {
        "aprobado": r"\baprobad[oa]s?\b",
        "adoptado": r"\badoptad[oa]s?\b",
        "rechazado": r"\brechazad[oa]s?\b",
        "veto": r"\bvet(?:o|ó|ad[oa])\b",
        "votó": r"\bvot(?:ó|aron|ad[oa])\b",
        "se abstuvo": r"\bse abstuv(?:o|ieron)\b",
        "sometido a votación": r"\bsometid[oa] a votación\b",
        "habría sido": r"\bhabría(?:n)? (?:sido|tenido)\b",
        "fracasó": r"\bfracas(?:ó|ad[oa])\b|\bno prosperó\b",
    },
    "ru": {
        "принят": r"\bпринят(?:а|о|ы)?\b",
        "отклонён": r"\bотклон(?:ён|ен|ена|ено|ены|ил|ила|или)\b",
        "вето": r"\bвето\b",
        "проголосовал": r"\bпроголосова",
        "воздержался": r"\bвоздержал",
        "был бы": r"\bбыл[аои]? бы\b",
        "не прошёл": r"\bне прош[её]л\b|\bпровал",
    },
    "zh": {
        "通过": r"通过",  # adopted ("获得通过"); the templates do not use it for "through"
        "否决": r"否决",
        "投了": r"投了",
        "弃权票": r"弃权票",
        "未能": r"未能",
        "本应": r"本应|本来会",
    },
    "ar": {
        "اعتُمد": r"اعتُ?مد|اعتماد",
        "رُفض": r"رُ?فض",
        "فيتو": r"فيتو|النقض",
        "صوّت": r"\bصوّ?ت(?:ت|وا)\b",
        "امتنع": r"\bامتنع(?:ت|وا)?\b",
        "لم يُعتمد": r"لم يُ?عتمد|فشل",
        "كان سي": r"كان سي",
    },
}


def words_in(text: str, language: str) -> list[str]:
    return [
        name for name, pattern in OUTCOME_WORDS[language].items() if re.search(pattern, text, re.IGNORECASE)
    ]


def _content(messages: list[dict[str, str]]) -> str:
    return "\n".join(m["content"] for m in messages)


def _first_line(template: str) -> str:
    """The template's first instruction line up to its first placeholder: what the prompt must start with."""
    return template.strip().splitlines()[0].split("{")[0]


@pytest.fixture(scope="module")
def vote_prompts(corpus: Corpus) -> dict[tuple[str, str], dict[str, str]]:
    """(language, set) -> the persona-vote prompt of every draft, as the vote graph sends it."""
    client = ModelClient.from_spec("fake:hash")
    records = {r.id: r for r in corpus.records}

    async def every() -> dict[tuple[str, str], dict[str, str]]:
        found: dict[tuple[str, str], dict[str, str]] = {}
        for language in OTHER:
            for name in SETS:
                graph = build_vote_graph(
                    VoteDeps(client=client, records=records, prompts=prompt_set(name, language=language))
                )
                prompts = {}
                for draft in corpus.drafts:
                    state = await graph.ainvoke({"record_id": draft.id, "persona": "USA", "repeat": 0})
                    prompts[draft.id] = _content(state["messages"])
                found[(language, name)] = prompts
        return found

    return asyncio.run(every())


def test_every_language_asks_in_its_own_words_and_quotes_the_english_text(
    corpus: Corpus, vote_prompts: dict[tuple[str, str], dict[str, str]]
) -> None:
    client = ModelClient.from_spec("fake:hash")
    for (language, name), prompts in vote_prompts.items():
        template = prompt_set(name, language=language).get("persona_vote").user
        english = prompt_set(name).get("persona_vote").user
        assert len(prompts) == 66
        for draft in corpus.drafts:
            prompt = prompts[draft.id]
            assert prompt.startswith(_first_line(template)), (language, name, prompt[:120])
            assert _first_line(english) not in prompt
            quoted = prompt_text(draft, budget=client.spec.context_chars).text
            assert quoted in prompt  # the record's own text: the English, quoted as it is


@pytest.mark.parametrize("language", OTHER)
def test_no_vote_prompt_in_any_language_reveals_the_outcome(
    language: str, vote_prompts: dict[tuple[str, str], dict[str, str]]
) -> None:
    for name in SETS:
        prompts = vote_prompts[(language, name)]
        leaks = {d: (markers_in(p), words_in(p, language)) for d, p in prompts.items()}
        assert {d: found for d, found in leaks.items() if found[0] or found[1]} == {}, name


@pytest.mark.parametrize("language", OTHER)
@pytest.mark.parametrize("name", ["structured", "paper-symbols"])
def test_no_debias_prompt_in_any_language_reveals_an_outcome(
    corpus: Corpus, language: str, name: str
) -> None:
    """Rehearsals and final votes of every draft, without the history block (which tells earlier
    precedents' outcomes: the method's point); reflections come after a precedent's vote and are not
    read."""
    augmented = augmented_for(corpus)
    options = DebiasOptions(k=1, reflexion=True)
    prompts = prompt_set(name, language=language)
    deps = DebiasContext(
        client=ModelClient.from_spec("fake:hash"),
        records={r.id: r for r in corpus.records},
        pool=[r for r in corpus.records if r.adopted or r.is_non_adopted_draft],
        augmented=augmented,
        retriever=get_retriever("keyword", threshold=options.threshold, augmented=augmented),
        options=options,
        prompts=prompts,
    )
    graph = build_debias_graph()
    shown = paper_history_text if prompts.free_text else history_text
    final_start = _first_line(prompts.get("final_vote").user)

    async def every() -> list[tuple[str, str]]:
        found = []
        for draft in corpus.drafts:
            start: dict[str, Any] = {"target_id": draft.id, "persona": "RUS", "repeat": 0, "calls": []}
            state = await graph.ainvoke(start, {"recursion_limit": options.recursion_limit}, context=deps)
            history, done = state["history"], 0
            for call in state["calls"]:
                text = _content(call["messages"])
                if call["node"] == "rehearse":
                    block = shown(history[:done], reflexion=True, language=language) if done else ""
                    done += 1
                elif call["node"] == "final_vote":
                    block = shown(history, reflexion=True, language=language)
                    assert text.startswith(final_start), text[:120]
                else:
                    continue
                assert block in text
                # the history's own words are the language's too; only its entries stay as recorded
                assert "My vote / Ground Truth" not in text and "previous vote prediction" not in text
                if block and block != WORDS[language]["none"]:
                    assert WORDS[language]["my_vote"] in block
                found.append((call["node"], text.replace(block, "") if block else text))
        return found

    every_prompt = asyncio.run(every())
    assert sum(node == "final_vote" for node, _ in every_prompt) == 66
    assert sum(node == "rehearse" for node, _ in every_prompt) >= 66
    leaks = [(n, markers_in(p), words_in(p, language)) for n, p in every_prompt]
    assert [leak for leak in leaks if leak[1] or leak[2]] == []


def test_the_outcome_words_do_catch_each_languages_wording() -> None:
    """The same words on sentences that tell the outcome: the checks above can fail."""
    told = {
        "fr": "Le projet aurait exigé un cessez-le-feu ; il a été rejeté, la Russie ayant opposé son veto.",
        "es": "El proyecto fue rechazado por el veto de Rusia; China se abstuvo.",
        "ru": "Проект не был принят: Россия наложила вето, Китай воздержался.",
        "zh": "该草案未获通过：俄罗斯投了否决票，中国投了弃权票。",
        "ar": "لم يُعتمد المشروع بسبب استخدام روسيا حق النقض، وامتنعت الصين عن التصويت.",
    }
    for language, sentence in told.items():
        assert len(words_in(sentence, language)) >= 2, (language, words_in(sentence, language))
    assert words_in("Le Conseil a adopté la résolution par 13 voix.", "fr") == ["adopté", "par N voix"]
    assert words_in("请在三个选项中选择：赞成、反对或弃权。", "zh") == []  # the options are no outcome


def test_the_history_has_its_words_in_every_language_and_english_is_unchanged() -> None:
    assert set(WORDS) == set(LANGUAGES) and all(
        WORDS[code].keys() == WORDS["en"].keys() for code in LANGUAGES
    )
    entry = {"label": '"S/2016/1161"', "date": "2016-12-23", "outcome": "adopted",
             "summary": "Calls for a pause.", "action_items": "pause", "predicted": "favour",
             "truth": "against", "reflection": "I erred.", "symbol": "2334"}  # fmt: skip
    assert history_text([entry], reflexion=True) == (
        'Rehearsal "S/2016/1161" (2016-12-23, adopted)\nSummary : Calls for a pause.\n'
        "Action items : pause\nMy vote / Ground Truth: favour / against\nReflection: I erred."
    )
    assert paper_history_text([entry], reflexion=False).startswith("Rehearsal Resolution : 2334\n")
    for code in OTHER:
        shown = history_text([entry], reflexion=True, language=code)
        assert WORDS[code]["rehearsal"] in shown and "Calls for a pause." in shown and "Summary" not in shown
        assert not words_in(WORDS[code]["none"], code) and not markers_in(WORDS[code]["none"])
