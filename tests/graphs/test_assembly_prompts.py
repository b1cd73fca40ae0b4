"""The Assembly prompts that really go on the wire, read for the outcome of their own roll call.

Runs go through the library (the CLI's path): the vote and the debiased vote on a seeded sample of
roll calls from every decade, answered by a scripted model. Each stored prompt is checked against
markers written here, independent of the leak guard (stores/guard/leak.py), and against the roll call's own
facts: its A/RES number and its tally. The debias prompts are read without their history block,
which tells the outcomes of earlier roll calls (the method's point).
"""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest

import nationbias
from nationbias.evals.errors import UsageError
from nationbias.graphs.debias import history_text
from nationbias.stores.corpora.unga import load_assembly
from nationbias.stores.state.runstore import RunStore

MARKERS: dict[str, str] = {
    "catalogue suffix": r"/\s*adopted\b|\badopted by the General Ass",
    "the Assembly adopted": r"\b(?:Assembly|it|resolution|draft)\s+(?:\w+\s+){0,2}?adopted\b",
    "was adopted or rejected": r"\b(?:was|were|been)\s+(?:\w+ly\s+)?(?:adopted|rejected|defeated|carried)\b",
    "tally": r"\b\d{1,3}\s*(?:votes?\s+)?(?:to|[-–—])\s*\d{1,3}\s*(?:,|with|[-–—])\s*(?:with\s+)?\d{1,3}\b",
    "recorded vote of": r"\brecorded vote of \d|\bby a (?:recorded )?vote of\b",
    "voted": r"\bvoted (?:in favou?r|against|yes|no)\b",
    "abstentions count": r"\b\d{1,3}\s+abstentions?\b",
}


def leaks(text: str, rcid: int) -> list[str]:
    found = [name for name, pattern in MARKERS.items() if re.search(pattern, text, re.IGNORECASE)]
    call = load_assembly().roll_calls.loc[rcid]
    if call["unres"] and re.search(rf"(?<![\w/]){re.escape(call['unres'])}(?![\w/])", text):
        found.append(f"its own resolution number {call['unres']}")
    return found


def _row_json(value: object) -> object:
    return value if isinstance(value, (list, dict)) else json.loads(str(value or "null"))


def vote_prompts(run_id: str) -> list[tuple[int, str]]:
    """(rcid, prompt) of every stored sample of a plain vote run."""
    out = []
    for _, row in RunStore().samples_frame(run_id).iterrows():
        messages = _row_json(row["messages"])
        assert isinstance(messages, list)
        out.append((int(str(row["item"]).removeprefix("UNGA-")), "\n".join(m["content"] for m in messages)))
    return out


def debias_prompts(run_id: str) -> list[tuple[int, str]]:
    """(rcid voted on, prompt without its history block) of every rehearsal and final vote. A rehearsal
    votes on a precedent, so it is read against the precedent's own roll call; a reflection comes after
    that vote, about its known outcome, and is not read."""
    out = []
    for _, row in RunStore().samples_frame(run_id).iterrows():
        extra = _row_json(row["extra"])
        assert isinstance(extra, dict)
        history, done = extra["history"], 0
        for call in extra["calls"]:
            text = "\n".join(m["content"] for m in call["messages"])
            if call["node"] == "rehearse":
                block = history_text(history[:done], reflexion=True) if done else ""
                item = call["precedent"] if isinstance(call["precedent"], str) else call["precedent"]["id"]
                done += 1
            elif call["node"] == "final_vote":
                block, item = history_text(history, reflexion=True), row["item"]
            else:
                continue
            assert block in text
            out.append((int(item.removeprefix("UNGA-")), text.replace(block, "") if block else text))
    return out


def test_vote_prompts_on_the_wire_name_no_outcome() -> None:
    summary = nationbias.run(
        "vote", model="fake:hash", body="unga", limit=400, seed=7, personas="sample:1", repeats=1,
        show_progress=False,
    )  # fmt: skip
    prompts = vote_prompts(summary.run_id)
    years = {load_assembly().roll_calls.loc[rcid, "date"].year // 10 for rcid, _ in prompts}
    assert len(prompts) >= 300 and years >= set(range(195, 202))  # every decade 1950-2019
    # the template's words (a roll call's own text may name the Council: "Security Council elections")
    templates = [text.split("- what was put to the vote")[0] for _, text in prompts]
    assert all("General Assembly" in text and "Security Council" not in text for text in templates)
    found = {rcid: hits for rcid, text in prompts if (hits := leaks(text, rcid))}
    assert not found, found
    config = RunStore().get_run(summary.run_id)
    assert config["prompt_set"] == "assembly" and config["sample"]["body"] == "unga"
    assert config["leak_audit"]["prompts_with_markers"] == 0


def test_debias_prompts_on_the_wire_name_no_outcome_of_their_own_roll_call() -> None:
    summary = nationbias.run(
        "debias", model="fake:hash", body="unga", years="2000-2019", limit=25, seed=1, personas="USA,BRA",
        repeats=1, retriever="bm25", show_progress=False,
    )  # fmt: skip
    frame = RunStore().samples_frame(summary.run_id)
    assert (frame["status"] == "ok").all() and (frame["model_calls"] == 5).all()  # k=1: 2 rehearsals
    prompts = debias_prompts(summary.run_id)
    assert len(prompts) == 3 * len(frame)
    found = {rcid: hits for rcid, text in prompts if (hits := leaks(text, rcid))}
    assert not found, found
    for _, row in frame.iterrows():  # precedents come from earlier roll calls only
        extra = row["extra"] if isinstance(row["extra"], dict) else json.loads(row["extra"])
        target = pd.Timestamp(extra["date"])
        assert all(pd.Timestamp(p["date"]) < target for p in extra["precedents"])


def test_the_papers_prompts_and_the_other_tests_are_the_councils() -> None:
    with pytest.raises(Exception, match="addresses the Council, not --body unga"):
        nationbias.run("vote", model="fake:hash", body="unga", prompts="paper", limit=1)
    with pytest.raises(UsageError, match="runs on unsc, not --body unga"):
        nationbias.run("directqa", model="fake:hash", body="unga", limit=1)


def test_the_markers_do_catch_the_raw_records_wording() -> None:
    """The same markers on the data's raw descriptions: the checks above can fail."""
    calls = load_assembly().roll_calls
    raw = calls[calls["date"].dt.year.between(1995, 2015)]
    flagged = [rcid for rcid, text in raw["descr"].items() if leaks(text, int(rcid))]
    assert len(flagged) >= 500  # the catalogue's "resolution / adopted by the General Assembly"
    assert leaks("Adopted by a recorded vote of 120 to 3, with 40 abstentions.", int(raw.index[0]))


def test_every_roll_call_reaches_the_model_with_its_description() -> None:
    """A description that does not end as a sentence is kept (it is all a roll call has): 114 of them
    were dropped whole before, and the model voted on an empty text."""
    from nationbias.stores.corpora.unga import assembly_corpus
    from nationbias.stores.text.budget import prompt_text

    corpus = assembly_corpus()
    texts = {r.id: prompt_text(r).text for r in corpus.records}
    assert [rid for rid, text in texts.items() if not text.strip()] == []
    # a title without its full stop, closed; a description the data cut mid-sentence, marked as cut
    assert texts["UNGA-9076"] == (
        "Advancing responsible State behavior in cyberspace in the context of international security."
    )
    assert texts["UNGA-258"].endswith("preambular paragraphs 1,3 and 4 for their references to …")
    summary = nationbias.run(
        "vote", model="fake:hash", body="unga", years="2019", personas="USA", limit=400, repeats=1,
        run_id="titles", show_progress=False,
    )  # fmt: skip
    assert summary.error == 0
    sent = RunStore().samples_frame("titles").set_index("item")["messages"]
    assert texts["UNGA-9076"] in sent.loc["UNGA-9076"][-1]["content"]
