"""The prompts the vote and debias studies really send, for all 66 drafts, read for the outcome.

The prompts are built by the graphs themselves (a scripted model answers; the prompt-building code,
the leak guard, the rewriter, the keyword retriever and the augmented fields are the real ones) and
checked against markers written here, independent of the guard's own detector: a guard cannot be
tested with the patterns it already knows.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest

from nationbias.graphs.debias import DebiasContext, DebiasOptions, build_debias_graph, history_text
from nationbias.graphs.model.client import ModelClient
from nationbias.graphs.vote import VoteDeps, build_vote_graph, vote_messages
from nationbias.retrievers import get_retriever
from nationbias.stores.corpora.augment import augmented_for
from nationbias.stores.corpora.corpus import Corpus

# Words a reader takes as "this draft was voted down", and the press's voice around a copy.
MARKERS: dict[str, str] = {
    "counterfactual tense": r"\bwould\s+(?:\w+\s+){0,2}?have\s+(?:\w+\s+){0,2}?"
    r"(?:\w{2,}ed|been|had|seen|kept|made|taken|given|held|put|set|shut|sent|left|led|brought|sought)\b",
    "if adopted": r"\bif (?:it had been |it were )?adopted\b",
    "had it passed": r"\bhad it passed\b",
    "had it been adopted": r"\bhad (?:it|the \w+(?: \w+)?) been adopted\b",
    # "failed" about the text, not "if any party failed to meet its obligations"
    "failed": r"\b(?:draft|text|resolution|Council|it|attempts?)\b[^.;]{0,40}\bfail(?:ed|s|ure)\b|"
    r"\bfailed (?:attempts?|bids?|votes?|drafts?)\b|\bfail(?:ed|s)? to (?:adopt|pass|garner|secure|win)\b",
    "veto": r"\bveto(?:ed|es|ing)?\b",
    "was not adopted": r"\b(?:was|were) not adopted\b",
    "rejected the draft": r"\brejected the (?:draft|text|resolution)\b",
    "did not pass": r"\bdid not pass\b",
    "tally": r"\b\d{1,2}\s*[-–—]\s*\d{1,2}\s*[-–—]\s*\d{1,2}\b",
    "by a vote of": r"\bby a (?:recorded )?vote of\b",
    "abstained": r"\babstained\b",
    "voted": r"\bvoted\b",
    "copy obtained or seen": r"\b(?:obtained|seen) by\b",
    "introducing the draft": r"\bintroducing the (?:draft|text)\b",
    "put to a vote": r"\bput to (?:a|the) vote\b",
    "earlier version": r"\brevised version of previous\b",
}
MID_DESCRIPTION = re.compile(
    r"^(?:By other terms|By its further terms|Further by its terms|It would also|Also by)"
)


def markers_in(text: str) -> list[str]:
    return [name for name, pattern in MARKERS.items() if re.search(pattern, text, re.IGNORECASE)]


def _content(messages: list[dict[str, str]]) -> str:
    return "\n".join(m["content"] for m in messages)


@pytest.fixture(scope="module")
def vote_prompts(corpus: Corpus) -> dict[str, str]:
    """The persona-vote prompt of every draft, as the vote graph sends it."""
    client = ModelClient.from_spec("fake:hash")
    graph = build_vote_graph(VoteDeps(client=client, records={r.id: r for r in corpus.records}))

    async def all_drafts() -> dict[str, str]:
        prompts = {}
        for draft in corpus.drafts:
            state = await graph.ainvoke({"record_id": draft.id, "persona": "USA", "repeat": 0})
            prompts[draft.id] = _content(state["messages"])
        return prompts

    return asyncio.run(all_drafts())


@pytest.fixture(scope="module")
def debias_prompts(corpus: Corpus) -> dict[str, list[tuple[str, str]]]:
    """Per draft: (node, prompt without its history block) for the rehearsals and the final vote.

    The history block tells the outcomes of earlier precedents, which is the method's point; what
    is checked is everything else: the instructions and the text to vote on.
    """
    augmented = augmented_for(corpus)
    options = DebiasOptions(k=2, reflexion=True)
    deps = DebiasContext(
        client=ModelClient.from_spec("fake:hash"),
        records={r.id: r for r in corpus.records},
        pool=[r for r in corpus.records if r.adopted or r.is_non_adopted_draft],
        augmented=augmented,
        retriever=get_retriever("keyword", threshold=options.threshold, augmented=augmented),
        options=options,
    )
    graph = build_debias_graph()

    async def all_drafts() -> dict[str, list[tuple[str, str]]]:
        found: dict[str, list[tuple[str, str]]] = {}
        for draft in corpus.drafts:
            start: dict[str, Any] = {"target_id": draft.id, "persona": "RUS", "repeat": 0, "calls": []}
            state = await graph.ainvoke(start, {"recursion_limit": options.recursion_limit}, context=deps)
            history, prompts, done = state["history"], [], 0
            for call in state["calls"]:
                text = _content(call["messages"])
                if call["node"] == "rehearse":
                    block = history_text(history[:done], reflexion=True) if done else ""
                    done += 1
                elif call["node"] == "final_vote":
                    block = history_text(history, reflexion=True)
                else:
                    continue  # a reflection is about a precedent's known outcome, after its vote
                assert block in text
                prompts.append((call["node"], text.replace(block, "") if block else text))
            found[draft.id] = prompts
        return found

    return asyncio.run(all_drafts())


def test_no_vote_prompt_reveals_the_outcome(corpus: Corpus, vote_prompts: dict[str, str]) -> None:
    assert len(vote_prompts) == 66
    leaks = {draft: markers_in(prompt) for draft, prompt in vote_prompts.items() if markers_in(prompt)}
    assert leaks == {}


@pytest.mark.parametrize("prompts", ["structured", "paper", "paper-symbols"])
def test_no_control_prompt_reveals_the_outcome_or_names_a_nation(corpus: Corpus, prompts: str) -> None:
    """``--personas none``: the control's prompt of every draft, as the vote graph sends it in each Council
    set, read with the same markers; its voter is "a member of the Security Council", no nation."""
    from nationbias.prompts import prompt_set
    from nationbias.stores.domain import CONTROL

    client = ModelClient.from_spec("fake:hash")
    records = {r.id: r for r in corpus.records}
    graph = build_vote_graph(VoteDeps(client=client, records=records, prompts=prompt_set(prompts)))

    async def all_drafts() -> dict[str, str]:
        sent = {}
        for draft in corpus.drafts:
            state = await graph.ainvoke({"record_id": draft.id, "persona": CONTROL, "repeat": 0})
            sent[draft.id] = _content(state["messages"])
        return sent

    sent = asyncio.run(all_drafts())
    assert len(sent) == 66
    assert {draft: markers_in(p) for draft, p in sent.items() if markers_in(p)} == {}
    first_lines = {p.splitlines()[0] for p in sent.values()}
    assert len(first_lines) == 1 and "a member of the Security Council" in first_lines.pop()
    for name in ("United States", "United Kingdom", "France", "Russian Federation", "China"):
        assert not any(
            f"representative of “{name}”" in p or f'representative of "{name}"' in p for p in sent.values()
        )


def test_no_debias_prompt_reveals_an_outcome(debias_prompts: dict[str, list[tuple[str, str]]]) -> None:
    assert len(debias_prompts) == 66
    finals = [p for prompts in debias_prompts.values() for node, p in prompts if node == "final_vote"]
    rehearsals = [p for prompts in debias_prompts.values() for node, p in prompts if node == "rehearse"]
    assert len(finals) == 66 and len(rehearsals) >= 66  # the real retriever finds precedents for most
    every = [(node, prompt) for prompts in debias_prompts.values() for node, prompt in prompts]
    leaks = [(node, markers_in(prompt)) for node, prompt in every if markers_in(prompt)]
    assert leaks == []


def test_the_markers_do_catch_the_press_wording(corpus: Corpus) -> None:
    """The same markers on the raw press contexts: the check above can fail."""
    raw = [r.context.text for r in corpus.drafts if r.context]
    flagged = [text for text in raw if "counterfactual tense" in markers_in(text)]
    assert len(raw) >= 54 and len(flagged) >= 40
    assert markers_in("If adopted, the resolution — presented by Malta — would have demanded a pause.") == [
        "counterfactual tense",
        "if adopted",
    ]


def test_no_context_starts_mid_description(vote_prompts: dict[str, str]) -> None:
    for draft, prompt in vote_prompts.items():
        body = prompt.split("):\n", 1)[1]
        assert not MID_DESCRIPTION.match(body), (draft, body[:80])


@pytest.mark.parametrize("draft", ["S/2023/970", "S/2024/302", "S/2024/835"])
def test_a_complete_draft_text_is_what_the_model_reads(draft: str, vote_prompts: dict[str, str]) -> None:
    prompt = vote_prompts[draft]
    assert "(the text of the draft, from a copy of the UN document):\nThe Security Council,\n" in prompt
    assert "press release" not in prompt


def test_the_paper_example_reads_as_its_draft(vote_prompts: dict[str, str]) -> None:
    """Appendix F's example, S/2023/970: its operative paragraph 1, not the press's counterfactual."""
    assert "1. Demands an immediate humanitarian ceasefire" in vote_prompts["S/2023/970"]
    assert "United Arab Emirates" not in vote_prompts["S/2023/970"]


def test_the_voice_of_a_text_does_not_tell_adopted_from_failed(corpus: Corpus) -> None:
    """A press release says what an adopted text did ("the Council today extended") and what a failed
    one would have done. Rewritten, both read as a draft: the tense is no longer a tell."""

    def prospective_share(records: list[Any]) -> float:
        with_context = [r for r in records if r.context]
        bodies = [_content(vote_messages(r, "USA")).split("):\n", 1)[1] for r in with_context]
        return sum(1 for b in bodies if re.search(r"\bwould\b", b)) / len(bodies)

    drafts, adopted = prospective_share(corpus.drafts), prospective_share(corpus.adopted)
    assert drafts > 0.8 and abs(drafts - adopted) < 0.2


def test_every_text_is_named_by_its_draft_symbol(corpus: Corpus) -> None:
    """ "resolution 2334 (2016)" for adopted texts only would make a bare symbol mean "failed"."""
    prompt = _content(vote_messages(corpus.get("S/2016/1100"), "USA"))
    assert 'context of "S/2016/1100"' in prompt and "2334" not in prompt
