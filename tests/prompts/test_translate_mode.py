"""`--translate-with`: the record's own text translated into the prompts' language, read on the wire.

A real local OpenAI-compatible server (tests/support/fault_server.py) answers both the translator and the
model under test; its translator deliberately adds an outcome sentence to every translation. The prompts
the model under test really received are read with the English markers and each language's own outcome
words, both written in the tests independently of the library's guard (tests/graphs/test_prompts_leak_free.py,
tests/graphs/test_prompts_languages.py). One run on the embedded model translates with local:smollm2.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from nationbias.evals.api import report, run
from nationbias.evals.cli.main import app
from nationbias.graphs.model.retry import RetryPolicy
from nationbias.graphs.study.sampling import SampleOptions, select_drafts
from nationbias.graphs.vote import MAX_CONTEXT_CHARS
from nationbias.prompts.registry import TRANSLATED_CLAUSES, PromptError, prompt_set, translation_prompt
from nationbias.stores.corpora.corpus import Corpus
from nationbias.stores.guard.leak_languages import strip_translated_outcomes
from nationbias.stores.state.runstore import RunNotFoundError, RunStore
from nationbias.stores.state.translations import Translation, TranslationStore
from nationbias.stores.text.budget import prompt_text
from tests.graphs.test_prompts_languages import words_in
from tests.graphs.test_prompts_leak_free import markers_in
from tests.support.fixtures import FaultServerFactory

# A neutral sentence in each language (what a faithful translation says) and the outcome sentence a
# careless translator adds (each caught by the tests' own OUTCOME_WORDS).
FAITHFUL = {
    "fr": "Le texte exigerait un cessez-le-feu immédiat et l'accès de l'aide humanitaire.",
    "es": "El texto exigiría un alto el fuego inmediato y el acceso de la ayuda humanitaria.",
    "ru": "Текст потребовал бы немедленного прекращения огня и доступа гуманитарной помощи.",
    "zh": "该文本要求立即停火并允许人道主义援助进入。",
    "ar": "يطالب النص بوقف فوري لإطلاق النار وبإيصال المساعدات الإنسانية.",
}
INJECTED = {
    "fr": "Le projet a été rejeté après le veto de deux membres.",
    "es": "El proyecto fue rechazado tras el veto de dos miembros.",
    "ru": "Проект был отклонён после вето двух членов.",
    "zh": "该草案因两个成员的否决而未能通过。",
    "ar": "رُفض المشروع بعد استخدام عضوين حق النقض.",
}
LANGS = sorted(FAITHFUL)
SMALL = ["--limit", "2", "--repeats", "1", "--personas", "USA"]


def test_the_tests_outcome_words_catch_each_injected_sentence_and_not_the_faithful_one() -> None:
    """The fixture's own check: otherwise a clean wire prompt below would prove nothing."""
    for language in LANGS:
        assert words_in(INJECTED[language], language), language
        assert not words_in(FAITHFUL[language], language) and not markers_in(FAITHFUL[language]), language


class Translator:
    """The server's script: a translation (faithful sentence + injected outcome) for the translator, a
    structured vote for the model under test; every request body kept."""

    def __init__(self, language: str, *, empty: bool = False) -> None:
        self.language = language
        self.empty = empty
        self.bodies: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> str:
        with self._lock:
            self.bodies.append(body)
        if body["model"] == "translator":
            return "" if self.empty else f"{FAITHFUL[self.language]}\n{INJECTED[self.language]}"
        return '{"vote": "favour", "rationale": "x"}'

    def sent(self, model: str) -> list[str]:
        return ["\n".join(m["content"] for m in b["messages"]) for b in self.bodies if b["model"] == model]


def _args(base_url: str, language: str, run_id: str, *extra: str) -> list[str]:
    return [
        "run", "vote", "--model", "openai-compatible:voter", "--base-url", base_url, *SMALL,
        "--language", language, "--translate-with", "openai-compatible:translator",
        "--texts", "press",  # the corpus's English texts, each machine-translated (the UN's own: below)
        "--run-id", run_id, *extra,
    ]  # fmt: skip


@pytest.mark.parametrize("language", LANGS)
def test_the_wire_prompt_shows_the_translation_without_the_outcome_the_translator_added(
    language: str, fault_server: FaultServerFactory, corpus: Corpus, isolated_home: Path
) -> None:
    script = Translator(language)
    server = fault_server(responder=script)
    out = CliRunner().invoke(app, _args(server.base_url, language, "tr"))
    assert out.exit_code == 0, out.output
    drafts = select_drafts(corpus, SampleOptions(limit=2, personas="USA", texts="press"))
    english = {prompt_text(d, budget=MAX_CONTEXT_CHARS).text for d in drafts}
    # the translator was asked once per text, with the leak-guarded English text and nothing else
    asked = script.sent("translator")
    assert len(asked) == len(english)
    for text in english:
        assert sum(text in a for a in asked) == 1
    assert all(not markers_in(a.split("\n\n", 1)[1]) for a in asked)
    votes = script.sent("voter")
    assert len(votes) == 2
    clauses = [translated for _, translated in TRANSLATED_CLAUSES[language]]
    for prompt in votes:
        assert FAITHFUL[language] in prompt  # the translation is shown…
        assert not any(text in prompt for text in english)  # …never the English text as well
        assert INJECTED[language] not in prompt
        assert words_in(prompt, language) == [] and markers_in(prompt) == [], prompt
        assert any(clause in prompt for clause in clauses)  # the prompt says the text was translated
    config = RunStore().get_run("tr")
    assert config["text_language"] == f"{language} (translated by openai-compatible:translator)"
    assert config["prompt_versions"]["translate"] == translation_prompt().ref
    done = config["translation"]
    assert done["texts"] == len(english) and done["asked"] == len(english)
    assert done["markers_found"] == done["sentences_removed"] == len(english)
    assert {r["sentence"] for r in done["removed"]} == {INJECTED[language]}
    audit = config["leak_audit"]
    assert audit["markers"] == 0 and audit["translation"]["sentences_removed"] == len(english)
    # the store keeps the original beside the raw translation and the one shown
    store = TranslationStore()
    for text in english:
        kept = store.get(
            text,
            language=language,
            translator="openai-compatible:translator",
            template_sha256=translation_prompt().sha256,
        )
        assert kept is not None and kept.original == text and INJECTED[language] in kept.raw
        assert kept.translation == FAITHFUL[language]


def test_a_second_run_reuses_the_stored_translations_and_a_resume_keeps_the_translator(
    fault_server: FaultServerFactory, isolated_home: Path
) -> None:
    script = Translator("fr")
    server = fault_server(responder=script)
    assert CliRunner().invoke(app, _args(server.base_url, "fr", "one")).exit_code == 0
    first = len(script.sent("translator"))
    again = run(  # the library, against the same server: the store answers
        "vote",
        model="openai-compatible:voter",
        base_url=server.base_url,
        translate_with="openai-compatible:translator",
        language="fr",
        limit=2,
        repeats=1,
        personas="USA",
        texts="press",
        run_id="two",
        show_progress=False,
    )
    assert again.ok == 2
    assert len(script.sent("translator")) == first  # nothing asked again
    assert all(FAITHFUL["fr"] in p and INJECTED["fr"] not in p for p in script.sent("voter"))
    config = RunStore().get_run("two")
    assert config["translation"]["asked"] == 0 and config["translation"]["from_store"] == first
    quoted = [a for a in _args(server.base_url, "fr", "two") if a not in ("--translate-with",)]
    quoted.remove("openai-compatible:translator")
    refused = CliRunner().invoke(app, quoted)  # the same run, its text now quoted: another experiment
    assert refused.exit_code == 2 and "text_language=" in refused.output


def test_a_failed_translation_stops_the_run_before_it_starts_and_is_not_stored(
    fault_server: FaultServerFactory, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # every retry of the empty answer is still made, 10 ms apart: the backoff's length is
    # tests/graphs/test_retry.py's; waited in full here it was ~4 s of an idle core
    monkeypatch.setattr(RetryPolicy, "delay", lambda policy, attempt, retry_after: 0.01)
    server = fault_server(responder=Translator("es", empty=True))
    out = CliRunner().invoke(app, _args(server.base_url, "es", "failed"))
    assert out.exit_code == 2
    assert "texts not translated into es" in out.output and "run again to retry" in out.output
    with pytest.raises(RunNotFoundError):
        RunStore().get_run("failed")
    assert TranslationStore().count() == 0


def test_translate_with_english_is_refused_naming_both_options(isolated_home: Path) -> None:
    out = CliRunner().invoke(
        app, ["run", "vote", "-m", "fake:hash", *SMALL, "--translate-with", "fake:hash", "--language", "en"]
    )
    assert out.exit_code == 2
    assert "--translate-with" in out.output and "--language" in out.output
    assert not (isolated_home / "runs.sqlite").exists()


def test_the_library_translates_the_debias_prompts_and_the_precedents_summaries(isolated_home: Path) -> None:
    """Graph logic on the deterministic fake model: every text the rehearsals and the final vote show,
    the precedents' summaries included, is the translator's, never the English."""
    done = run(
        "debias",
        model="fake:hash",
        limit=1,
        repeats=1,
        personas="USA",
        language="zh",
        translate_with="fake:hash",
        texts="press",  # every text machine-translated (the UN's own translations: test_prompts_un_texts.py)
        show_progress=False,
        run_id="lib-debias",
    )
    assert done.ok + done.invalid == 1
    config = RunStore().get_run("lib-debias")
    assert config["text_language"] == "zh (translated by fake:hash)"
    frame = RunStore().samples_frame("lib-debias")
    calls = [c for extra in frame["extra"] for c in extra["calls"] if c["node"] in ("rehearse", "final_vote")]
    assert calls
    for call in calls:
        text = call["messages"][-1]["content"]
        assert re.search(r"fake answer \d+", text)  # the fake translator's words
        assert "由模型从英文译出" in text and "以其原文英文引用" not in text
    page = report(["lib-debias"], out=isolated_home / "report").read_text(encoding="utf-8")
    assert "zh (translated by fake:hash)" in page  # the run table names the mode…
    assert "translated into zh by fake:hash" in page  # …and the note under it says who and how
    history = [h for extra in frame["extra"] for h in extra["history"]]
    assert history and all(re.fullmatch(r"fake answer \d+", h["summary"]) for h in history if h["summary"])


# More outcome sentences a translator could add, in each language's own phrasing.
MORE_OUTCOMES = {
    "fr": [
        "La résolution a été adoptée par 13 voix.",
        "Deux membres se sont abstenus.",
        "Le texte aurait été une avancée.",
    ],
    "es": [
        "La resolución fue aprobada por 13 votos.",
        "Dos miembros se abstuvieron.",
        "Rusia votó en contra.",
    ],
    "ru": ["Резолюция была принята.", "Два члена воздержались.", "Россия проголосовала против."],
    "zh": ["该决议获得通过。", "两个成员投了弃权票。", "俄罗斯投了反对票。"],
    "ar": ["اعتُمد القرار.", "امتنع عضوان عن التصويت.", "صوّتت روسيا ضد القرار."],
}


@pytest.mark.parametrize("language", LANGS)
def test_the_library_guard_clears_the_tests_outcome_words_from_translated_text(language: str) -> None:
    """The library's markers checked against the tests' independent words: a translated text with outcome
    sentences in its language comes out clean by the tests' reading, the faithful sentence kept."""
    for outcome in [INJECTED[language], *MORE_OUTCOMES[language]]:
        assert words_in(outcome, language) or markers_in(outcome), outcome  # the probe is an outcome
        clean = strip_translated_outcomes(f"{FAITHFUL[language]} {outcome}", language=language)
        assert words_in(clean.text, language) == [] and clean.text == FAITHFUL[language], outcome
        assert len(clean.removed) == 1


@pytest.mark.timeout(900)
def test_the_embedded_model_as_translator_is_asked_and_its_looping_answer_is_refused(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """local:smollm2 really translates the first draft's text (at temperature 0, deterministic): the small
    model repeats one French phrase until its token budget (about one token per source character) runs
    out. A cut-off translation is a failed one: the run does not start, nothing is stored, and the
    message says so; never the English text in its place."""
    monkeypatch.setenv("NATIONBIAS_LLAMA_THREADS", "2")
    args = ["run", "vote", "-m", "fake:hash", "--limit", "1", "--repeats", "1", "--personas", "USA"]
    out = CliRunner().invoke(
        app, [*args, "--language", "fr", "--translate-with", "local:smollm2", "--run-id", "emb"]
    )
    assert out.exit_code == 2, out.output
    assert "--translate-with local:smollm2: 1 of 1 texts not translated into fr" in out.output
    assert "cut off" in out.output
    assert TranslationStore().count() == 0
    with pytest.raises(RunNotFoundError):
        RunStore().get_run("emb")


def test_ablate_and_study_translate_the_runs_in_another_language(isolated_home: Path) -> None:
    """`ablate` passes the translator to its cells; `study --languages en,fr` to its French runs only (the
    English ones quote nothing), and a study with English alone refuses it."""
    base = ["--model", "fake:hash", "--limit", "1", "--repeats", "1", "--translate-with", "fake:hash"]
    out = CliRunner().invoke(
        app, ["ablate", *base, "--language", "ru", "--run-id", "ab", "--k", "1", "--reflexion", "off"]
    )
    assert out.exit_code == 0, out.output
    store = RunStore()
    config = store.get_run("ab-debias-k1-norf-keyword")
    assert config["text_language"] == "ru (translated by fake:hash)"
    refused = CliRunner().invoke(app, ["study", *base, "--run-id", "st-en"])
    assert refused.exit_code == 2 and "--translate-with" in refused.output and "--language" in refused.output
    out = CliRunner().invoke(
        app, ["study", *base, "--languages", "en,fr", "--personas", "USA", "--run-id", "st"]
    )
    assert out.exit_code == 0, out.output
    assert store.get_run("st-vote")["text_language"] == "en"
    assert store.get_run("st-fr-vote")["text_language"] == "fr (translated by fake:hash)"
    assert store.get_run("st-fr-directqa")["text_language"] == "en (quoted)"  # no record text to translate
    page = report(["st-vote", "st-fr-vote"], out=isolated_home / "report").read_text(encoding="utf-8")
    assert "own text is translated by fake:hash into fr" in page  # the language section


def test_every_vote_template_in_translate_mode_says_the_text_was_translated() -> None:
    for language, clauses in TRANSLATED_CLAUSES.items():
        for name in ("structured", "paper", "paper-symbols", "assembly"):
            quoted = prompt_set(name, language=language)
            translated = quoted.with_translated_text()
            for template in ("persona_vote", "rehearsal_vote", "final_vote"):
                before, after = quoted.get(template), translated.get(template)
                text = after.system + after.user
                assert not any(q in text for q, _ in clauses), (language, name, template)
                assert any(t in text for _, t in clauses), (language, name, template)
                assert after.sha256 != before.sha256 and after.ref != before.ref
    with pytest.raises(PromptError, match="other than en"):
        prompt_set("structured").with_translated_text()


def test_the_store_keeps_a_translation_per_translator_and_template_and_never_an_empty_one(
    isolated_home: Path,
) -> None:
    store = TranslationStore()
    kept = Translation(
        "The draft would demand.", "fr", "fake:a", "translate@v1:x", "sha-x", "Il exigerait.", "Il exigerait."
    )
    store.put(kept)
    key = {"language": "fr", "translator": "fake:a", "template_sha256": "sha-x"}
    assert store.get("The draft would demand.", **key) == kept
    assert store.get("The draft would demand.", **{**key, "translator": "fake:b"}) is None
    assert store.get("The draft would demand.", **{**key, "template_sha256": "sha-y"}) is None
    with pytest.raises(ValueError, match="never stored"):
        store.put(Translation("Other.", "fr", "fake:a", "translate@v1:x", "sha-x", "  ", ""))
    assert store.count() == 1


@pytest.mark.timeout(900)
def test_the_embedded_model_reads_the_translation_a_server_made(
    fault_server: FaultServerFactory, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The model under test is local:smollm2 (llama.cpp), the translator a local OpenAI-compatible
    server: the prompt the embedded model was given, as stored with its row, holds the translation
    without the outcome sentence the translator added, and the run names its text language."""
    monkeypatch.setenv("NATIONBIAS_LLAMA_THREADS", "2")
    script = Translator("es")
    server = fault_server(responder=script)
    args = ["run", "vote", "-m", "local:smollm2", "--limit", "1", "--repeats", "1", "--personas", "USA"]
    out = CliRunner().invoke(
        app,  # --texts press: the first target has the UN's own Spanish text, which is never translated
        [*args, "--texts", "press", "--language", "es", "--translate-with", "openai-compatible:translator",
         "--translate-base-url", server.base_url, "--run-id", "emb-es"],
    )  # fmt: skip
    assert out.exit_code == 0, out.output
    assert len(script.sent("translator")) == 1 and script.sent("voter") == []
    store = RunStore()
    [messages] = store.samples_frame("emb-es")["messages"]
    prompt = "\n".join(m["content"] for m in messages)  # decoded by samples_frame
    assert FAITHFUL["es"] in prompt and INJECTED["es"] not in prompt
    assert words_in(prompt, "es") == [] and markers_in(prompt) == []
    assert store.get_run("emb-es")["text_language"] == "es (translated by openai-compatible:translator)"
