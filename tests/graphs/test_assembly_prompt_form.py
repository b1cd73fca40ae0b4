"""The form of the vote prompts that really go on the wire, read from runs of the library.

Each check's marker is written here, apart from the code that renders the prompts: a line that says one
date twice, a blank line other than the one before the answer instruction, a rehearsal scored against
"no recorded vote", a shouted or mis-cased word in a roll call's text, a target known by its topic only.
The recency preference is checked where it acts (the retriever, against a brute-force ranking) and
where it is recorded (the run config, the report's note).
"""

from __future__ import annotations

import json
import re
import statistics
from collections import Counter
from typing import Any

import pytest

import nationbias
from nationbias.graphs.debias import DebiasContext, DebiasOptions
from nationbias.graphs.study.simulate import precedent_pool
from nationbias.graphs.vote import member_vote
from nationbias.retrievers import get_retriever
from nationbias.retrievers.base import pool_part
from nationbias.retrievers.bm25 import BM25Retriever
from nationbias.retrievers.recency import RecencyRetriever, age_years, discounted
from nationbias.stores.corpora.corpus import context_for_prompt, load_corpus
from nationbias.stores.corpora.unga import assembly_corpus, load_assembly
from nationbias.stores.state.runstore import RunStore

DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
VOTES = {"favour", "against", "abstention"}
ALLOWED_CAPS = {"USSR", "UNRWA", "UNCTAD", "ECOSOC", "IAEA", "UNESCO", "UNICEF", "UNDP", "NATO", "UNHCR"}


def _json(value: Any) -> Any:
    return value if isinstance(value, (list, dict)) else json.loads(str(value or "null"))


def calls_of(run_id: str) -> list[tuple[str, str, dict[str, Any]]]:
    """(node, prompt text, sample extra) of every call a debias run made."""
    out = []
    for _, row in RunStore().samples_frame(run_id).iterrows():
        extra = _json(row["extra"])
        for call in extra["calls"]:
            out.append((call["node"], "\n".join(m["content"] for m in call["messages"]), extra))
    return out


def form_faults(text: str) -> list[str]:
    """What is wrong with a vote prompt's form (empty when nothing is)."""
    faults = []
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if any(n > 1 for n in Counter(DATE.findall(line)).values()):
            faults.append(f"date twice: {line!r}")
        if not line.strip() and not (i + 1 < len(lines) and lines[i + 1].startswith("Answer with")):
            faults.append(f"blank line before {lines[i + 1] if i + 1 < len(lines) else 'the end'!r}")
    if re.search(r"no recorded vote", text, re.IGNORECASE):
        faults.append("a rehearsal scored against no recorded vote")
    return faults


def test_assembly_debias_prompts_say_the_date_once_without_blank_lines_or_missing_votes() -> None:
    summary = nationbias.run(
        "debias", model="fake:hash", body="unga", years="2010-2019", limit=10, seed=0, personas="sample:3",
        repeats=1, retriever="bm25", show_progress=False,
    )  # fmt: skip
    calls = calls_of(summary.run_id)
    votes = [(node, text) for node, text, _ in calls if node in ("rehearse", "final_vote")]
    assert len(votes) >= 40
    assert {text for node, text in votes if node == "rehearse" and "previous vote prediction" not in text}
    faults = {text[:120]: f for _, text in votes if (f := form_faults(text))}
    assert not faults, faults
    reflections = [text for node, text, _ in calls if node == "reflect"]
    assert reflections and not any("no recorded vote" in text for text in reflections)
    for _, _, extra in calls:  # every rehearsed precedent has the persona's real vote
        assert all(p["truth"] in VOTES for p in extra["precedents"])
        assert all(h["truth"] in VOTES for h in extra["history"])
    config = RunStore().get_run(summary.run_id)
    assert config["options"]["recency_halflife"] == 10.0  # the Assembly's default, recorded
    ages = [
        int(extra["date"][:4]) - int(p["date"][:4])
        for node, _, extra in calls
        if node == "final_vote"
        for p in extra["precedents"]
    ]
    assert config["precedent_age"]["precedents"] == len(ages)
    assert config["precedent_age"]["median_years"] == statistics.median(ages)
    assert config["precedent_age"]["recency_halflife"] == 10.0

    from nationbias.evals.bias_tests.vote.assembly import precedent_age_note
    from nationbias.evals.page.sections import load_runs

    (run,) = load_runs([summary.run_id], RunStore())
    note = precedent_age_note(run)
    assert f"median age {statistics.median(ages):g} years" in note and "half-life 10 years" in note


def test_council_rehearsals_have_no_blank_line_and_record_their_recency_choice() -> None:
    summary = nationbias.run(
        "debias", model="fake:hash", limit=6, seed=0, repeats=1, show_progress=False, recency_halflife=3
    )
    calls = calls_of(summary.run_id)
    rehearsals = [text for node, text, _ in calls if node == "rehearse"]
    assert rehearsals and any("previous vote prediction" not in text for text in rehearsals)
    faults = {text[:120]: f for text in rehearsals if (f := form_faults(text))}
    assert not faults, faults
    assert RunStore().get_run(summary.run_id)["options"]["recency_halflife"] == 3.0
    default = nationbias.run("debias", model="fake:hash", limit=2, seed=0, repeats=1, show_progress=False)
    assert RunStore().get_run(default.run_id)["options"]["recency_halflife"] == 0.0  # none on the Council


def _assembly_pool() -> list[Any]:
    return precedent_pool(assembly_corpus(until=2019))


def test_recency_is_exact_and_prefers_recent_roll_calls() -> None:
    pool = _assembly_pool()
    targets = [r for r in pool if r.date.year == 2015][::9][:8]
    plain, recent = BM25Retriever(), RecencyRetriever(BM25Retriever(), halflife=10)
    old_ages, new_ages = [], []
    for target in targets:
        found = recent.retrieve(target, pool, 1)
        for part in ("adopted", "non-adopted"):  # brute force: every earlier item sharing a word
            earlier = [r for r in pool if r.date < target.date and r.id != target.id]
            candidates = [r for r in earlier if pool_part(r) == part]
            scored = plain.rank(target, pool, candidates)
            if not scored:
                continue
            best = max(discounted(s.score, age_years(target, s.record), 10) for s in scored)
            got = [p for p in found if p.pool == part]
            assert got and got[0].score == pytest.approx(best, abs=1e-5)
        old_ages += [target.date.year - p.record.date.year for p in plain.retrieve(target, pool, 1)]
        new_ages += [target.date.year - p.record.date.year for p in found]
    assert statistics.median(new_ages) < statistics.median(old_ages)
    assert all("recency" in p.reason for t in targets for p in recent.retrieve(t, pool, 1))


def test_precedents_without_the_personas_vote_are_passed_over() -> None:
    pool = _assembly_pool()
    records = {r.id: r for r in pool}
    deps = DebiasContext(
        client=None,  # type: ignore[arg-type]  # retrieval only: no model call
        records=records,
        pool=pool,
        augmented={},
        retriever=get_retriever("bm25", recency_halflife=10),
        options=DebiasOptions(k=1, retriever="bm25", recency_halflife=10),
    )
    target = records["UNGA-5279"]
    everyone = deps.precedents(target)
    azerbaijan = deps.precedents_for(target, "AZE")
    assert any(member_vote(p.record, "AZE") is None for p in everyone)  # what it used to rehearse
    assert azerbaijan and all(member_vote(p.record, "AZE") for p in azerbaijan)
    # The Council's P5 always voted: their precedents are the retriever's, unchanged.
    corpus = load_corpus()
    council = precedent_pool(corpus)
    keyword = DebiasContext(
        client=None,  # type: ignore[arg-type]
        records={r.id: r for r in corpus.records},
        pool=council,
        augmented={},
        retriever=get_retriever("keyword"),
        options=DebiasOptions(k=1),
    )
    for draft in [r for r in corpus.records if r.is_non_adopted_draft][:20]:
        assert keyword.precedents_for(draft, "RUS") == keyword.precedents(draft)


def test_roll_call_texts_are_cased_and_described() -> None:
    calls = load_assembly().roll_calls
    assert calls.loc[936, "short"] == "U.N. capital development Fund"
    assert calls.loc[5145, "short"] == "Human rights – reports"
    sample = calls.sample(600, random_state=0)
    for text in [*sample["short"], *sample["descr"]]:
        assert not re.search(r"\b[A-Z]\.[a-z]\.", text), text  # "U.n."
        words = re.findall(r"(?<!\()\b[A-Z]{5,}\b(?!\))", text)  # an acronym in brackets is introduced
        assert not [w for w in words if w not in ALLOWED_CAPS and not set(w) <= set("IVXL")], text
    records = [r for r in assembly_corpus(until=2019).records if r.votes and r.date.year >= 2010]
    texts = {r.id: context_for_prompt(r) for r in records}
    nothing = re.compile(r"Topic: [^\n]*|\(no description available\)")
    thin = [rid for rid, c in texts.items() if nothing.fullmatch(c.text)]
    # Only roll calls the file gives no title, only the President's procedural words, stay thin.
    assert len(thin) <= 3
    for rid in thin:
        row = calls.loc[int(rid.removeprefix("UNGA-"))]
        assert row["short"] == "" and re.match(r"The (?:Acting )?President", row["descr"]), rid
    fallbacks = [c for rid, c in texts.items() if c.kind == "fallback" and rid not in thin]
    # a title is said as a draft would say it (stores/guard/neutral.py title_as_description), as on the
    # Council
    assert all(c.text.startswith("The draft would ") for c in fallbacks)
    for record in records:  # the enrichment names no A/RES number ("A/RES/ES-10/19, Status of Jerusalem")
        own = (record.resolution or "").removeprefix("A/RES/").removeprefix("R/")
        assert not own or own not in texts[record.id].text, record.id
