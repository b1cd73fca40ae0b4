"""What a debiased run really sends (the debias graph, the deterministic fake model): every text in
the draft's prospective voice, named by its draft symbol, reflection statements only the persona's
own, in English, and silent on the target. The markers are written here, independently of the code
that rewrites and filters."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from typing import Any

import pytest

from nationbias.graphs.debias import DebiasContext, DebiasOptions, build_debias_graph
from nationbias.graphs.model.client import ModelClient
from nationbias.prompts import prompt_set
from nationbias.retrievers import Precedent
from nationbias.stores.corpora.augment import augmented_for
from nationbias.stores.corpora.corpus import Corpus
from nationbias.stores.records import Record

# The press's wording for what the Council did, which only an adopted text gets. A weekday ("on Friday")
# is not among them: a rewrite keeps every date and name of a sentence it keeps
# (stores/guard/content_kept.py); what the style of the texts as sent tells is measured against the UN's own
# texts (evals/style_audit.py).
PRESS_VOICE = (
    r"\btoday\b",
    r"\byesterday\b",
    r"\bCouncil (?:today |on \w+day )?(?:extended|renewed)\b",
    r"[’']s adoption of this resolution\b",
    r"\bThe resolution\b",
)
# A label that only an adopted text can have.
ADOPTED_LABEL = (
    r"\bresolution \d{4} \(\d{4}\)",
    r"Rehearsal Resolution : \d+\s*$",
    r'resolution "\d+"',
    r"S/RES/",
)
FRENCH = (r"\bMonsieur\b", r"\ble Conseil\b", r"\bnous\b", r"\bprojet de résolution\b")


class ChosenRetriever:
    """Returns the given precedents for every target: the texts whose wording the test checks."""

    def __init__(self, ids: Sequence[str]) -> None:
        self.ids = list(ids)

    def retrieve(self, target: Record, pool: Sequence[Record], k: int) -> list[Precedent]:
        chosen = [r for r in pool if r.id in self.ids and r.date < target.date]
        return [
            Precedent(r, 1.0, "test", "adopted" if r.adopted else "non-adopted", rank)
            for rank, r in enumerate(sorted(chosen, key=lambda r: r.date), start=1)
        ]


def _calls(
    corpus: Corpus, target_id: str, precedents: Sequence[str], *, prompts: str, persona: str
) -> list[Any]:
    deps = DebiasContext(
        client=ModelClient.from_spec("fake:hash"),
        records={r.id: r for r in corpus.records},
        pool=[r for r in corpus.records if r.adopted or r.is_non_adopted_draft],
        augmented=augmented_for(corpus),
        retriever=ChosenRetriever(precedents),
        options=DebiasOptions(k=len(precedents), reflexion=True),
        prompts=prompt_set(prompts),
    )
    start = {
        "target_id": target_id,
        "persona": persona,
        "repeat": 0,
        "calls": [],
        "visited": [],
        "error": None,
    }
    state = asyncio.run(build_debias_graph().ainvoke(start, {"recursion_limit": 60}, context=deps))
    assert state.get("error") is None
    return list(state["calls"])


def _text(call: dict[str, Any]) -> str:
    return "\n".join(m["content"] for m in call["messages"])


# adopted precedents whose press context had the issue's own examples of press wording
PRESS_WORDED = ["S/2013/136", "S/2015/847", "S/2016/493", "S/2021/287", "S/2021/1077", "S/2022/263"]


@pytest.mark.parametrize("prompts", ["structured", "paper-symbols", "paper"])
def test_adopted_precedents_reach_the_model_in_the_drafts_voice(corpus: Corpus, prompts: str) -> None:
    raw = " ".join(corpus.get(i).context.text for i in PRESS_WORDED if corpus.get(i).context)  # type: ignore[union-attr]
    assert all(re.search(p, raw) for p in PRESS_VOICE[:1] + PRESS_VOICE[2:4])  # the markers can fire
    calls = _calls(corpus, "S/2024/835", PRESS_WORDED, prompts=prompts, persona="USA")
    rehearsals = [c for c in calls if c["node"] == "rehearse"]
    assert len(rehearsals) == len(PRESS_WORDED)
    for call in rehearsals:
        context = _text(call).split("- context of", 1)[1]
        found = [p for p in PRESS_VOICE if re.search(p, context)]
        assert found == [], (call["precedent"], found)
        assert " would " in context, call["precedent"]


def test_labels_tell_no_outcome_in_the_symbol_sets_and_do_in_the_papers(corpus: Corpus) -> None:
    precedents = ["S/2016/1047", "S/2016/1026", "S/RES/2330 (2016)"]  # adopted, failed, adopted w/o symbol
    for prompts, leaks in (("structured", False), ("paper-symbols", False), ("paper", True)):
        calls = _calls(corpus, "S/2017/172", precedents, prompts=prompts, persona="RUS")
        sent = "\n".join(_text(c) for c in calls)
        found = [p for p in ADOPTED_LABEL if re.search(p, sent, re.MULTILINE)]
        assert bool(found) is leaks, (prompts, found)
        if prompts == "paper-symbols":
            final = _text(calls[-1])
            assert "Rehearsal Resolution : S/2016/1047" in final
            assert "Rehearsal Resolution : draft of 2016-12-19" in final  # the neutral identifier


def test_reflection_statements_are_the_personas_own_english_and_silent_on_the_target(corpus: Corpus) -> None:
    target = corpus.get("S/2020/658")
    before = [r for r in corpus.drafts if r.date < target.date][-6:]  # the nearest precedents
    for persona in ("RUS", "CHN", "FRA", "USA", "GBR"):
        calls = _calls(corpus, target.id, [r.id for r in before], prompts="structured", persona=persona)
        shown = [c for c in calls if c["node"] == "reflect" and c["statement"]]
        for call in shown:
            text = call["statement"]["text"]
            assert target.id not in text, (persona, call["precedent"])
            assert not any(re.search(p, text) for p in FRENCH), (persona, call["precedent"])
        # the pages on S/2020/654 are of 2020-07-08 and describe the target, voted that day; the press
        # release of the meeting itself (2020-07-07) may stay
        sources = {c["statement"]["source"] for c in shown if c["precedent"] == "S/2020/654"}
        assert "statements" not in sources, persona


def test_reflection_prompt_quotes_like_the_vote_prompts(corpus: Corpus) -> None:
    for prompts, quote in (("paper", "“Russian Federation”"), ("structured", '"Russian Federation"')):
        calls = _calls(corpus, "S/2017/172", ["S/2016/1026"], prompts=prompts, persona="RUS")
        rehearsal, reflection = (_text(c) for c in calls[:2])
        assert quote in rehearsal and quote in reflection, prompts


def test_no_rehearsal_prompt_in_the_record_reads_like_an_adopted_texts_press(corpus: Corpus) -> None:
    """Every text a debias run may rehearse (the whole pool), as ask_vote builds its prompt: press
    datelines such as "UNITED NATIONS, Aug. 29 (Xinhua) --" or "New York [US], November 4
    (ANI/Xinhua):" once hid "The Council renewed …" from the rewrite into the draft's voice."""
    from nationbias.graphs.vote import vote_messages

    pool = [r for r in corpus.records if r.adopted or r.is_non_adopted_draft]
    assert len(pool) > 600
    found = []
    for record in pool:
        messages = vote_messages(
            record, "USA", template="rehearsal_vote", date=str(record.date), history="", previous_votes=""
        )
        context = "\n".join(m["content"] for m in messages).split("- context of", 1)[1]
        found += [(record.id, p) for p in PRESS_VOICE if re.search(p, context)]
    assert found == []
