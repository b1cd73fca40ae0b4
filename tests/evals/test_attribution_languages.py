"""`run attribution --language xx --translate-with SPEC`, read on the wire of a real local OpenAI-compatible
server that answers both the translator and the model under test.

Each draft's proposer-free English text is translated once, however many arms it has; the arms then show the
same translation and differ, byte for byte, only in the proposer line, written in the language with the UN's
official name. The server's translator adds an outcome sentence to every translation (the language's leak
guard takes it out) and, to one draft's, a sentence naming a proposer (that draft is left out, with why).
"""

from __future__ import annotations

import hashlib
import re
import threading
from pathlib import Path
from typing import Any

import pytest

import nationbias
from nationbias.graphs.study.sampling import SampleOptions, select_drafts
from nationbias.prompts.registry import TRANSLATED_CLAUSES
from nationbias.stores.corpora.corpus import Corpus
from nationbias.stores.domain import UN_NAMES
from nationbias.stores.state.runstore import RunStore
from nationbias.stores.state.translations import TranslationStore
from tests.graphs.test_attribution_prompts import proposer_patterns
from tests.graphs.test_prompts_languages import words_in
from tests.graphs.test_prompts_leak_free import markers_in
from tests.prompts.test_translate_mode import FAITHFUL, INJECTED
from tests.support.fixtures import FaultServerFactory

# The proposer line as each language's template says it, and the sentence a translator adds to one draft.
LINES = {"fr": "Présenté par : ", "zh": "提交方："}
GROUP = {"fr": "un groupe d’États Membres", "zh": "一组会员国"}
ADDED_PROPOSER = {"fr": "Projet présenté par la Chine.", "zh": "该草案由中国提交。"}
WITH_ADDED = "15-member Council recommend"  # in the English text of S/2024/312 alone, which names no member
RUN = {"years": "2023-2024", "texts": "press", "repeats": 1, "show_progress": False}


def tag(english: str) -> str:
    return hashlib.sha256(english.encode("utf-8")).hexdigest()[:10]


class Script:
    """The server's script: a translation (a faithful sentence tagged with its English text's hash, and an
    outcome sentence) for the translator, a vote for the model under test; every request body kept."""

    def __init__(self, language: str) -> None:
        self.language = language
        self.bodies: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> str:
        with self._lock:
            self.bodies.append(body)
        if body["model"] != "translator":
            return '{"vote": "favour", "rationale": "x"}'
        english = body["messages"][-1]["content"].split("add nothing.\n\n", 1)[1]
        added = f" {ADDED_PROPOSER[self.language]}" if WITH_ADDED in english else ""
        return f"{FAITHFUL[self.language]} [{tag(english)}]{added}\n{INJECTED[self.language]}"

    def sent(self, model: str) -> list[str]:
        return ["\n".join(m["content"] for m in b["messages"]) for b in self.bodies if b["model"] == model]


def _line(arm: str, language: str) -> str:
    if arm == "none":
        return ""
    return LINES[language] + (GROUP[language] if arm == "group" else UN_NAMES[language][arm]) + "\n"


@pytest.mark.parametrize("language", ["fr", "zh"])
def test_each_text_is_translated_once_and_the_arms_differ_only_in_the_uns_name(
    language: str, fault_server: FaultServerFactory, corpus: Corpus, isolated_home: Path
) -> None:
    script = Script(language)
    server = fault_server(responder=script)
    nationbias.run(
        "attribution", model="openai-compatible:voter", base_url=server.base_url, language=language,
        translate_with="openai-compatible:translator", run_id="tr", **RUN,
    )  # fmt: skip
    drafts = select_drafts(corpus, SampleOptions(years=(2023, 2024), texts="press"))
    assert len(drafts) == 20
    by_id = {d.id: d for d in drafts}
    # the translator: once per distinct proposer-free English text (two pairs of drafts share theirs)
    asked = [a.split("add nothing.\n\n", 1)[1] for a in script.sent("translator")]
    assert len(asked) == len(set(asked)) == 18
    for english in asked:
        assert "Submitted by" not in english and not markers_in(english)
        for draft in drafts:
            for pattern in proposer_patterns(draft):
                assert not re.search(pattern, english, re.IGNORECASE | re.MULTILINE), (draft.id, pattern)
    # the model under test: seven arms of each draft kept, read as they arrived
    arms: dict[str, dict[str, str]] = {}
    for prompt in script.sent("voter"):
        rid = re.search(r'"(S/\d{4}/\d+)"', prompt)[1]  # type: ignore[index]
        lines = [line for line in prompt.splitlines() if line.startswith(LINES[language])]
        arm = "none" if not lines else next(a for a in ("USA", "GBR", "FRA", "RUS", "CHN", "group")
                                            if lines == [_line(a, language).rstrip("\n")])  # fmt: skip
        arms.setdefault(rid, {})[arm] = prompt
    assert set(arms) == set(by_id) - {"S/2024/312"}  # left out: its translation names a proposer
    clauses = [translated for _, translated in TRANSLATED_CLAUSES[language]]
    for rid, prompts in arms.items():
        assert len(prompts) == 7, rid
        bare = prompts["none"]
        tags = set(re.findall(r"\[([0-9a-f]{10})\]", bare))
        assert len(tags) == 1, rid  # one translation, the same in every arm
        for arm, prompt in prompts.items():
            assert prompt.replace(_line(arm, language), "", 1) == bare, (rid, arm)  # byte for byte
            assert "Submitted by" not in prompt and INJECTED[language] not in prompt, (rid, arm)
            assert words_in(prompt, language) == [] and markers_in(prompt) == [], (rid, arm)
            assert any(clause in prompt for clause in clauses)  # the prompt says a model translated it
    if language == "fr":
        assert "Présenté par : Fédération de Russie\n" in arms["S/2024/173"]["RUS"]
    else:
        assert "提交方：大不列颠及北爱尔兰联合王国\n" in arms["S/2024/173"]["GBR"]
    config = RunStore().get_run("tr")
    audit = config["attribution_audit"]
    assert list(audit["excluded"]) == ["S/2024/312"] and "names China" in audit["excluded"]["S/2024/312"]
    assert config["skipped"]["drafts_left_out"] == 1 and audit["markers"] == {}
    assert audit["text_languages"] == {language: 20} and audit["drafts_rewritten"] >= 6
    assert config["text_language"] == f"{language} (translated by openai-compatible:translator)"
    assert config["translation"]["asked"] == 18 and config["translation"]["sentences_removed"] == 18
    assert config["prompt_versions"]["attribution_proposer"].startswith(
        f"{language}/attribution_proposer@v1:"
    )
    assert len(RunStore().samples_frame("tr")) == 19 * 7
    # cached like every translation: a second run asks the translator nothing
    nationbias.run(
        "attribution", model="openai-compatible:voter", base_url=server.base_url, language=language,
        translate_with="openai-compatible:translator", run_id="again", **RUN,
    )  # fmt: skip
    assert len(script.sent("translator")) == 18 and TranslationStore().count() == 18
    assert RunStore().get_run("again")["translation"]["from_store"] == 18
