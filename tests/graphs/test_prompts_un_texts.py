"""The UN's own texts in the prompts the vote and debias graphs really send (``--texts``).

Built by the graphs with the real corpus, the real UN texts, the real leak guard and retriever, and read
with the independent outcome markers of tests/graphs/test_prompts_leak_free.py.
"""

from __future__ import annotations

import asyncio
import re
import threading
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from nationbias.evals.cli.main import app
from nationbias.graphs.debias import DebiasContext, DebiasOptions, build_debias_graph
from nationbias.graphs.model.client import ModelClient
from nationbias.graphs.study.audit import text_kind_audit
from nationbias.graphs.study.runner import Task
from nationbias.graphs.study.sampling import SampleOptions, council_targets, select_drafts
from nationbias.graphs.study.simulate import debias_row
from nationbias.graphs.vote import VoteDeps, build_vote_graph, vote_messages, vote_row
from nationbias.prompts import prompt_set
from nationbias.retrievers import get_retriever
from nationbias.stores.corpora.augment import augmented_for
from nationbias.stores.corpora.corpus import Corpus
from nationbias.stores.corpora.un_texts import un_texts
from nationbias.stores.errors import InputError
from nationbias.stores.guard.leak import find_outcome_language
from nationbias.stores.state.runstore import RunStore, resume_conflict
from nationbias.stores.text.budget import prompt_text
from nationbias.stores.text.cut import BUDGETS
from nationbias.stores.text.un_prompt import check_texts, un_context, with_un_text
from tests.graphs.test_prompts_leak_free import markers_in
from tests.support.fixtures import FaultServerFactory

UN_KIND = "the text of the draft, from the UN's official document"
FAILED_WITH_UN_TEXT = 18  # of the 20 failed drafts of 2023–2024 (two amendments have none)


def _content(messages: list[dict[str, str]]) -> str:
    return "\n".join(m["content"] for m in messages)


def _vote_prompts(corpus: Corpus, mode: Any, drafts: list[Any]) -> dict[str, str]:
    client = ModelClient.from_spec("fake:hash")
    records = {r.id: r for r in corpus.records}
    graph = build_vote_graph(VoteDeps(client=client, records=records, text_mode=mode))

    async def all_drafts() -> dict[str, str]:
        found = {}
        for draft in drafts:
            state = await graph.ainvoke({"record_id": draft.id, "persona": "CHN", "repeat": 0})
            found[draft.id] = _content(state["messages"])
        return found

    return asyncio.run(all_drafts())


@pytest.fixture(scope="module")
def auto_prompts(corpus: Corpus) -> dict[str, str]:
    return _vote_prompts(corpus, "auto", list(corpus.drafts))


def test_auto_shows_the_uns_text_of_the_drafts_that_have_one(
    corpus: Corpus, auto_prompts: dict[str, str]
) -> None:
    with_un = {d.id for d in with_un_text(corpus.drafts)}
    assert len(with_un) == FAILED_WITH_UN_TEXT
    assert {d for d, p in auto_prompts.items() if f"({UN_KIND}):\n" in p} == with_un
    leaks = {d: markers_in(p) for d, p in auto_prompts.items() if markers_in(p)}
    assert leaks == {}
    assert "1. Firmly condemns all violence" in auto_prompts["S/2023/773"]


def test_texts_un_sends_each_drafts_own_operative_paragraphs(corpus: Corpus) -> None:
    """``run vote --texts un``: the 18 drafts, each with all its operative paragraphs where they fit in
    3,000 characters, and the leading ones whole (or their leading sentences) where they do not."""
    drafts = select_drafts(corpus, SampleOptions(texts="un"))
    assert len(drafts) == FAILED_WITH_UN_TEXT
    prompts = _vote_prompts(corpus, "un", drafts)
    for draft in drafts:
        operative = un_texts("en")[draft.id].operative
        prompt = prompts[draft.id]
        assert not markers_in(prompt), draft.id
        if sum(len(p) + 1 for p in operative) + len("The Security Council,") < 3000:
            assert all(p in prompt for p in operative), draft.id
        else:
            assert operative[0][:200] in prompt, draft.id
        body = prompt.split("official document):\n", 1)[1]
        assert body.startswith("The Security Council,\n" + operative[0][:60]) or body.startswith(
            "The Security Council,\n" + un_texts("en")[draft.id].preamble[1][:60]
        ), draft.id  # operative first when cut; in its own order when whole


def test_every_un_text_passes_the_guard_and_the_independent_markers(corpus: Corpus) -> None:
    records = {r.id: r for r in corpus.records}
    shown = [records[i] for i in un_texts("en") if i in records]
    assert len(shown) >= 690
    for record in shown:
        for budget in BUDGETS:
            text = prompt_text(record, budget=budget, shown="un")
            assert text.text_kind == "un_text" and len(text.text) <= budget, record.id
            assert not find_outcome_language(text.text, record=record), record.id
            assert not markers_in(text.text), (record.id, markers_in(text.text))


def test_a_future_event_a_draft_states_is_no_outcome() -> None:
    line = "2. Requests the Secretary-General to report within 30 days of the adoption of this resolution;"
    assert find_outcome_language(line) == []
    assert find_outcome_language("The resolution was adopted by 13 votes.") != []


def test_a_un_text_is_never_rewritten(corpus: Corpus) -> None:
    record = corpus.get("S/2024/826")
    context = un_context(record)
    assert context is not None and context.changes == ()
    assert context.text.splitlines() == list(un_texts("en")["S/2024/826"].paragraphs)


def test_french_sends_the_uns_french_text(corpus: Corpus) -> None:
    record = corpus.get("S/2024/826")
    french = un_texts("fr")["S/2024/826"]
    prompt = _content(vote_messages(record, "FRA", prompts=prompt_set(language="fr"), shown="un"))
    assert french.operative[0][:120] in prompt
    assert "version française officielle de l'ONU" in prompt and "cité en anglais" not in prompt
    assert "document officiel de l'ONU" in prompt
    english = un_texts("en")["S/2024/826"].operative[0][:120]
    assert english not in prompt


def test_without_a_un_translation_the_english_un_text_is_quoted(corpus: Corpus) -> None:
    record = next(r for r in with_un_text(corpus.adopted) if r.id not in un_texts("fr"))
    prompt = _content(vote_messages(record, "FRA", prompts=prompt_set(language="fr"), shown="un"))
    assert "cité en anglais" in prompt and "document officiel de l'ONU" in prompt
    assert un_texts("en")[record.id].operative[0][:80] in prompt


@pytest.fixture(scope="module")
def debias_calls(corpus: Corpus) -> dict[str, list[tuple[str, str]]]:
    """Per target of 2023–2024, (node, prompt) for each rehearsal and the final vote under ``auto``."""
    augmented = augmented_for(corpus)
    options = DebiasOptions(k=1, reflexion=False)
    deps = DebiasContext(
        client=ModelClient.from_spec("fake:hash"),
        records={r.id: r for r in corpus.records},
        pool=[r for r in corpus.records if r.adopted or r.is_non_adopted_draft],
        augmented=augmented,
        retriever=get_retriever("keyword", threshold=options.threshold, augmented=augmented),
        options=options,
        text_mode="auto",
    )
    graph = build_debias_graph()
    targets = [d for d in corpus.drafts if d.date.year >= 2022]

    async def run() -> dict[str, list[tuple[str, str]]]:
        found = {}
        for draft in targets:
            start: dict[str, Any] = {"target_id": draft.id, "persona": "RUS", "repeat": 0, "calls": []}
            state = await graph.ainvoke(start, {"recursion_limit": options.recursion_limit}, context=deps)
            found[draft.id] = [(c["node"], _content(c["messages"])) for c in state["calls"]]
        return found

    return asyncio.run(run())


def test_one_prompts_precedents_are_shown_in_one_kind_of_text(
    corpus: Corpus, debias_calls: dict[str, list[tuple[str, str]]]
) -> None:
    un_targets = {d.id for d in with_un_text(corpus.drafts)}
    un_rehearsals = 0
    for target, calls in debias_calls.items():
        rehearsals = [p for node, p in calls if node == "rehearse"]
        kinds = {f"({UN_KIND})" in _context_line(p) for p in rehearsals}
        assert len(kinds) <= 1, target  # adopted and failed precedents in the same kind
        if target not in un_targets:
            assert kinds <= {False}, target
        un_rehearsals += sum(f"({UN_KIND})" in _context_line(p) for p in rehearsals)
        for _, prompt in calls:  # the text voted on (the history before it tells outcomes: the method)
            assert not markers_in(prompt[prompt.rfind("- context of") :]), target
    assert un_rehearsals > 0


def _context_line(prompt: str) -> str:
    found = re.search(r"^- context of .*$", prompt, re.MULTILINE)
    return found.group(0) if found else ""


def test_the_audit_counts_text_kind_by_outcome_under_every_mode(corpus: Corpus) -> None:
    augmented = augmented_for(corpus)
    retriever = get_retriever("keyword", augmented=augmented)
    pool = [r for r in corpus.records if r.adopted or r.is_non_adopted_draft]
    frame = text_kind_audit(list(corpus.drafts), pool=pool, retrieve=lambda t, p: retriever.retrieve(t, p, 1))
    targets = frame[frame["role"] == "target"].groupby(["texts", "kind"])["n"].sum()
    assert targets[("un", "un_text")] == FAILED_WITH_UN_TEXT
    assert targets[("auto", "un_text")] == FAILED_WITH_UN_TEXT
    assert ("press", "un_text") not in targets
    assert targets.xs("press", level="texts").sum() == 66
    un = frame[(frame["texts"] == "un") & (frame["role"] == "precedent")]
    assert set(un["kind"]) == {"un_text"} and set(un["outcome"]) == {"adopted", "failed"}


def test_the_audit_counts_adopted_targets_by_the_kind_of_text_they_are_shown_in(corpus: Corpus) -> None:
    """--targets adopted: the adopted resolutions of late 2024 that have a UN text are shown in it under
    auto and un, and in the corpus's texts under press."""
    adopted = [r for r in council_targets(corpus, "adopted") if r.date.year == 2024 and r.date.month >= 6]
    with_text = len(with_un_text(adopted))
    assert 0 < with_text <= len(adopted)
    frame = text_kind_audit(adopted, pool=[], retrieve=lambda t, p: [])
    targets = frame[frame["role"] == "target"]
    assert set(targets["outcome"]) == {"adopted"}
    kinds = targets.groupby(["texts", "kind"])["n"].sum()
    assert kinds[("un", "un_text")] == kinds[("auto", "un_text")] == with_text
    assert ("press", "un_text") not in kinds and kinds.xs("press", level="texts").sum() == len(adopted)


def test_texts_is_checked_and_compared_on_resume() -> None:
    assert check_texts(" UN ") == "un"
    with pytest.raises(InputError, match="--texts 'web'"):
        check_texts("web")
    with pytest.raises(InputError, match="--body unsc"):
        SampleOptions(texts="un", body="unga")
    stored = {"test": "vote", "options": {"texts": "auto"}}
    assert (
        resume_conflict(stored, {"test": "vote", "options": {"texts": "press"}})
        == "texts='auto', not 'press'"
    )
    assert (
        resume_conflict({"test": "vote", "options": {}}, {"test": "vote", "options": {"texts": "press"}})
        is None
    )


class _Voter:
    """The server's script: a structured vote for every prompt, each request body kept."""

    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> str:
        with self._lock:
            self.bodies.append(body)
        return '{"vote": "abstention", "rationale": "x"}'

    def prompts(self) -> list[str]:
        return [_content(b["messages"]) for b in self.bodies]


def test_run_vote_in_french_sends_the_uns_french_text_and_keeps_its_texts_on_resume(
    fault_server: FaultServerFactory, isolated_home: Path
) -> None:
    """``run vote --language fr --texts un`` on a real local server: S/2024/826 reaches the model in the
    UN's French, said so in French; the run config records --texts and the kinds; a resume under
    another --texts is refused."""
    voter = _Voter()
    server = fault_server(responder=voter)
    args = [
        "run", "vote", "--model", "openai-compatible:voter", "--base-url", server.base_url,
        "--years", "2024", "--repeats", "1", "--personas", "FRA", "--language", "fr", "--texts", "un",
        "--run-id", "un-fr",
    ]  # fmt: skip
    out = CliRunner().invoke(app, args)
    assert out.exit_code == 0, out.output
    french = un_texts("fr")["S/2024/826"]
    sent = [p for p in voter.prompts() if '"S/2024/826"' in p]
    assert len(sent) == 1
    assert french.operative[0][:100] in sent[0] and "version française officielle de l'ONU" in sent[0]
    assert not markers_in(sent[0][sent[0].rfind("- contexte de") :])
    config = RunStore().get_run("un-fr")
    assert config["options"]["texts"] == "un"
    kinds = RunStore().samples_frame("un-fr").set_index("item")["extra"].map(lambda e: e["context_kind"])
    assert kinds["S/2024/826"] == "un_text"  # the kind the prompt named, not the corpus's
    audit = config["leak_audit"]
    assert audit["text_kinds"] == {"un_text": audit["targets"]} and audit["markers"] == 0
    assert audit["text_languages"] == {"fr (the UN's own translation)": audit["targets"]}
    other = [*args[: args.index("--texts") + 1], "press", *args[args.index("--texts") + 2 :]]
    resumed = CliRunner().invoke(app, other)
    assert resumed.exit_code != 0 and "texts='un', not 'press'" in resumed.output


def test_a_cut_un_text_keeps_its_own_header_and_words_and_leaves_section_headings_out(corpus: Corpus) -> None:
    french = prompt_text(corpus.get("S/2024/826"), budget=3000, shown="un", language="fr").text
    assert french.startswith("Le Conseil de sécurité,\n1. ") and "From its preamble" not in french
    adopted = prompt_text(corpus.get("S/2023/937"), budget=3000, shown="un").text
    assert not [line for line in adopted.splitlines() if re.fullmatch(r"\*|[A-Z]\.", line)]


def test_a_sample_records_the_kind_of_text_its_prompt_showed(corpus: Corpus) -> None:
    """Under ``auto`` a vote sample (and a debias final vote) of a draft shown in the UN's words records
    ``un_text``, the kind its prompt names; a draft without a UN text, or any under ``press``, records
    the corpus context's kind."""
    records = {r.id: r for r in corpus.records}
    with_un = next(d for d in corpus.drafts if d.id in {r.id for r in with_un_text(corpus.drafts)})
    without = next(d for d in corpus.drafts if d.date.year >= 2023 and d not in with_un_text(corpus.drafts))
    client = ModelClient.from_spec("fake:hash")

    async def kinds(mode: Any) -> dict[str, tuple[str, bool]]:
        graph = build_vote_graph(VoteDeps(client=client, records=records, text_mode=mode))
        found = {}
        for draft in (with_un, without):
            state = await graph.ainvoke({"record_id": draft.id, "persona": "CHN", "repeat": 0})
            row = vote_row(state, draft, free_text=False)
            found[draft.id] = (row.extra["context_kind"], f"({UN_KIND}):\n" in _content(row.messages))
        return found

    auto, press = asyncio.run(kinds("auto")), asyncio.run(kinds("press"))
    assert auto[with_un.id] == ("un_text", True)
    assert auto[without.id][1] is False and auto[without.id][0] != "un_text"
    assert press[with_un.id][0] in {"context", "draft_text", "fallback"} and not press[with_un.id][1]

    augmented = augmented_for(corpus)
    options = DebiasOptions(k=1, reflexion=False)
    deps = DebiasContext(
        client=client,
        records=records,
        pool=[r for r in corpus.records if r.adopted or r.is_non_adopted_draft],
        augmented=augmented,
        retriever=get_retriever("keyword", threshold=options.threshold, augmented=augmented),
        options=options,
        text_mode="auto",
    )
    start: dict[str, Any] = {"target_id": with_un.id, "persona": "RUS", "repeat": 0, "calls": []}
    graph = build_debias_graph()
    state = asyncio.run(graph.ainvoke(start, {"recursion_limit": options.recursion_limit}, context=deps))
    row = debias_row(Task(test="debias", item=with_un.id, persona="RUS", repeat=0), state, with_un)
    assert row.extra["context_kind"] == "un_text"
    assert f"({UN_KIND}):\n" in _content(row.messages)
