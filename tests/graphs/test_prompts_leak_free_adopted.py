"""The vote prompts of the adopted resolutions (``--targets adopted|all``), read for their outcome.

Built by the vote graph itself for every one of the 679 (a scripted model answers; the prompt code, the
leak guard and the rewriter are the real ones) and read with markers written here: the failed drafts'
(tests/graphs/test_prompts_leak_free.py) and the words that say a text was adopted, or name the
resolution it became.
"""

from __future__ import annotations

import asyncio
import re

import pytest

from nationbias.graphs.model.client import ModelClient
from nationbias.graphs.vote import VoteDeps, build_vote_graph
from nationbias.stores.corpora.corpus import Corpus
from tests.graphs.test_prompts_leak_free import markers_in

ADOPTION: dict[str, str] = {
    "was adopted": r"\b(?:was|were|been|is|are) (?:\w+ )?adopted (?:by|unanimously|today|with|as)\b",
    "unanimously": r"\bunanimous(?:ly)?\b",
    "the Council adopted": r"\b(?:Council|members|it) (?:\w+ )?adopted "
    r"(?:resolution|the|a|text|unanimously)\b",
    "passed": r"\b(?:was|were) passed\b|\bpassed (?:unanimously|by)\b",
    "S/RES": r"\bS/RES/\d+",
}


def adoption_in(text: str) -> list[str]:
    return [name for name, pattern in ADOPTION.items() if re.search(pattern, text, re.IGNORECASE)]


@pytest.fixture(scope="module")
def adopted_prompts(corpus: Corpus) -> dict[str, str]:
    """The persona-vote prompt of every adopted resolution, as the vote graph sends it."""
    graph = build_vote_graph(
        VoteDeps(client=ModelClient.from_spec("fake:hash"), records={r.id: r for r in corpus.records})
    )

    async def every() -> dict[str, str]:
        prompts = {}
        for record in corpus.adopted:
            state = await graph.ainvoke({"record_id": record.id, "persona": "RUS", "repeat": 0})
            prompts[record.id] = "\n".join(m["content"] for m in state["messages"])
        return prompts

    return asyncio.run(every())


def test_no_adopted_targets_prompt_tells_its_outcome(corpus: Corpus, adopted_prompts: dict[str, str]) -> None:
    assert len(adopted_prompts) == 679
    leaks = {
        rid: found
        for rid, prompt in adopted_prompts.items()
        if (found := markers_in(prompt) + adoption_in(prompt))
    }
    shown = dict(list(leaks.items())[:8])
    assert not leaks, f"{len(leaks)} adopted targets' prompts tell the outcome: {shown}"


def test_no_adopted_targets_prompt_names_its_resolution(
    corpus: Corpus, adopted_prompts: dict[str, str]
) -> None:
    named = {}
    for record in corpus.adopted:
        number = str(record.resolution or "").split(" ")[0]
        own = re.compile(rf"\b(?:resolution|S/RES/)\s*{number}\b", re.IGNORECASE)
        if number and own.search(adopted_prompts[record.id]):
            named[record.id] = number
    shown = dict(list(named.items())[:8])
    assert not named, f"{len(named)} prompts name their own resolution number: {shown}"
