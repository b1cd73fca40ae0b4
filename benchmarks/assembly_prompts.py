"""``python -m benchmarks.assembly_prompts``: the form of the Assembly prompts on the wire.

Three runs through the library, answered by the deterministic fake model (no model needed): a debiased
Assembly vote (bm25, k=1) and a plain one on the same 20 roll calls of 2010-2019, and a debiased Council
vote (keyword, k=1) for its rehearsal prompts. Every stored prompt is read and counted: a date said
twice, a blank line other than the one before the answer instruction, a history entry whose real vote is
"no recorded vote", a shouted or mis-cased word in a roll call's text, a target known only by its topic
(or by nothing), and the age of the precedents each (roll call, state) rehearsed. The markers are
written here, apart from the code that builds the prompts; run it on two checkouts for before -> after.
"""

from __future__ import annotations

import json
import re
import statistics
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
ANSWER = "Answer with"
NO_VOTE = re.compile(r"Ground Truth: [^\n]*/ no recorded vote", re.IGNORECASE)
# A word of 4+ capitals that is not a known acronym or a Roman numeral, or a dotted abbreviation cased
# as a word ("U.n."), or a capital inside a word ("CAPITAL development" is caught by the first).
ALLOWED_CAPS = {
    "USSR", "UNRWA", "UNCTAD", "ECOSOC", "IAEA", "UNESCO", "UNICEF", "UNDP", "NATO", "UNHCR", "UNIDO",
    "UNEP", "UNIFIL", "GATT", "AIDS", "UNITAR", "UNGA", "UNSC", "JSON", "CORR", "UNEM", "UNEFEL",
}  # fmt: skip
ROMAN = re.compile(r"^[IVXL]+$")
SHOUTED = re.compile(r"\b[A-Z]{4,}\b")
MISCASED = re.compile(r"\b[A-Z]\.[a-z]\.|\b[A-Z][a-z]+[A-Z]{2,}")
THIN = re.compile(r"^(?:Topic: [^\n]*|\(no description available\))$")
ROLL_CALL = re.compile(r"roll call (\d+)")


def blank_lines(text: str) -> int:
    """Blank lines other than the one before the answer instruction."""
    lines = text.split("\n")
    return sum(
        1
        for i, line in enumerate(lines)
        if not line.strip() and not (i + 1 < len(lines) and lines[i + 1].startswith(ANSWER))
    )


def doubled_date(text: str) -> bool:
    """A line that says the same date twice ("roll call 936 of 1966-12-07, dated 1966-12-07")."""
    return any(count > 1 for line in text.split("\n") for count in Counter(DATE.findall(line)).values())


def history_entries(text: str) -> list[str]:
    """The heading lines of a prompt's rehearsal history."""
    return [line for line in text.split("\n") if line.startswith("Rehearsal ")]


def bad_words(text: str) -> list[str]:
    shouted = [w for w in SHOUTED.findall(text) if w not in ALLOWED_CAPS and not ROMAN.match(w)]
    return shouted + MISCASED.findall(text)


def context_of(text: str) -> str:
    """The target's text in an Assembly prompt (after "what was put to the vote ...:")."""
    after = text.split("(the description in the voting record):\n", 1)[-1]
    return after.split(f"\n\n{ANSWER}", 1)[0].strip()


def _json(value: Any) -> Any:
    return value if isinstance(value, (list, dict)) else json.loads(str(value or "null"))


def prompts_of(run_id: str) -> list[dict[str, Any]]:
    """Every prompt of a run: node, text, item, persona, and the sample's extra."""
    from nationbias.stores.state.runstore import RunStore

    out = []
    for _, row in RunStore().samples_frame(run_id).iterrows():
        extra = _json(row["extra"]) or {}
        calls = extra.get("calls") or [{"node": "vote", "messages": _json(row["messages"])}]
        for call in calls:
            text = "\n".join(m["content"] for m in call["messages"] or [])
            out.append({"node": call["node"], "text": text, "item": row["item"], "extra": extra})
    return out


def measure(*, limit: int = 20, council_limit: int = 66) -> dict[str, Any]:
    import nationbias

    common = {"model": "fake:hash", "repeats": 1, "show_progress": False, "seed": 0}
    unga = {**common, "body": "unga", "years": "2010-2019", "limit": limit, "personas": "sample:3"}
    debias = prompts_of(nationbias.run("debias", retriever="bm25", **unga).run_id)
    vote = prompts_of(nationbias.run("vote", **unga).run_id)
    council = prompts_of(nationbias.run("debias", limit=council_limit, **common).run_id)
    assembly = [*debias, *vote]
    rehearsals = [p for p in council if p["node"] == "rehearse"]
    entries = [e for p in assembly for e in history_entries(p["text"])]
    targets = {p["item"]: context_of(p["text"]) for p in vote}
    ages = [
        int(p["extra"]["date"][:4]) - int(pr["date"][:4])
        for p in debias
        if p["node"] == "final_vote"
        for pr in p["extra"]["precedents"]
    ]
    texts = {**targets, **{f"{p['item']}/{p['node']}": context_of(p["text"]) for p in debias}}
    return {
        "assembly_prompts": len(assembly),
        "council_rehearsal_prompts": len(rehearsals),
        "doubled_date_prompts": sum(doubled_date(p["text"]) for p in assembly),
        "history_entries": len(entries),
        "doubled_date_history_entries": sum(doubled_date(e) for e in entries),
        "assembly_prompts_with_blank_line": sum(blank_lines(p["text"]) > 0 for p in assembly),
        "council_rehearsals_with_blank_line": sum(blank_lines(p["text"]) > 0 for p in rehearsals),
        "no_recorded_vote_entries": sum(len(NO_VOTE.findall(p["text"])) for p in assembly),
        "targets": len(targets),
        "targets_topic_or_nothing": sum(bool(THIN.match(t)) for t in targets.values()),
        "targets_under_80_chars": sum(len(t) < 80 for t in targets.values()),
        "texts_with_bad_casing": sum(bool(bad_words(t)) for t in texts.values()),
        "texts": len(texts),
        "precedents": len(ages),
        "median_precedent_age_years": statistics.median(ages) if ages else None,
        "precedents_over_20_years": sum(a > 20 for a in ages),
    }


def main() -> int:
    import os

    with tempfile.TemporaryDirectory() as home:
        os.environ["NATIONBIAS_HOME"] = str(Path(home))
        result = measure()
    json.dump(result, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
