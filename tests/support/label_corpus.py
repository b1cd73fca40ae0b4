"""Score the answer-labelling rules on the labelled corpus, tests/graphs/data/free_text_answers.jsonl.

Each answer is labelled by the rules the real graphs call (``vote_rules`` for the paper set's votes,
``label_directqa``, ``parse_association`` + ``label_polarity``) and sorted into: ``right`` (the gold
label), ``wrong`` (another label), ``judge`` (undecided, left to the judge) or ``invalid`` (final,
with its reason). An answer whose gold is ``ambiguous`` is right only when the rules leave it alone.
Run as ``python -m tests.support.label_corpus`` for the table in benchmarks/RESULTS.md.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nationbias.graphs.labels.directqa import LabelDecision, label_directqa
from nationbias.graphs.labels.ranking import label_polarity, parse_association
from nationbias.graphs.labels.vote import vote_rules
from nationbias.graphs.vote import persona_name
from nationbias.stores.domain import LANGUAGES

CORPUS = Path(__file__).resolve().parents[1] / "graphs" / "data" / "free_text_answers.jsonl"
AMBIGUOUS = "ambiguous"
# heldback2: written before the rules read a vote explained by negating another option, or by "neither"
SPLITS = ("dev", "heldback", "fresh", "heldback2")
TASKS = ("vote", "directqa", "polarity")
FRAMINGS = ("irresponsible", "responsible")  # a DirectQA answer's question (graphs/labels/framing.py)


def load_corpus(path: Path = CORPUS) -> list[dict[str, Any]]:
    items = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    for item in items:
        if item["split"] not in SPLITS or item["task"] not in TASKS:
            raise ValueError(f"{path}: item {item['id']}: unknown split or task")
        if item.get("framing", "irresponsible") not in FRAMINGS or (
            "framing" in item and item["task"] != "directqa"
        ):
            raise ValueError(f"{path}: item {item['id']}: a framing is one of {FRAMINGS}, on DirectQA only")
        if item.get("language", "en") not in LANGUAGES:
            raise ValueError(
                f"{path}: item {item['id']}: language {item['language']!r} is not one of {list(LANGUAGES)}"
            )
    return items


def rules_decision(item: dict[str, Any]) -> LabelDecision:
    """What the rules alone make of one corpus answer, through the functions the graphs call, in the
    language it was asked in ("language", English when absent)."""
    text, language = item["text"], item.get("language", "en")
    if item["task"] == "vote":
        nation = persona_name(item["persona"]) if item.get("persona") else None
        return vote_rules(text, truncated=False, free_text=True, nation=nation, language=language)
    if item["task"] == "directqa":  # "framing": "responsible" answers "which is more responsible?"
        first, second, _ = item["options"]
        framing = item.get("framing", "irresponsible")
        return label_directqa(text, first, second, framing=framing, language=language)
    parsed = parse_association(text, language=language)
    if not parsed.ok:
        return LabelDecision(None, parsed.reason or "malformed_ranking")
    rationale = (parsed.payload or {}).get("rationale", "")
    return label_polarity(rationale, item.get("keyword", ""), language=language)


@dataclass(frozen=True)
class Scored:
    item: dict[str, Any]
    decision: LabelDecision
    outcome: str  # right | wrong | judge | invalid

    @property
    def clear(self) -> bool:
        return self.item["gold"] != AMBIGUOUS


def score(item: dict[str, Any]) -> Scored:
    decision = rules_decision(item)
    if decision.label is not None:
        outcome = "right" if decision.label == item["gold"] else "wrong"
    else:
        outcome = "judge" if decision.needs_judge else "invalid"
    return Scored(item, decision, outcome)


def tally(scored: list[Scored]) -> dict[str, Counter[str]]:
    """Outcome counts per (split, clear|ambiguous)."""
    table: dict[str, Counter[str]] = {}
    for s in scored:
        key = f"{s.item['split']} {'clear' if s.clear else 'ambiguous'}"
        table.setdefault(key, Counter())[s.outcome] += 1
    return table


def main() -> None:
    scored = [score(item) for item in load_corpus()]
    for key, counts in sorted(tally(scored).items()):
        total = sum(counts.values())
        parts = " · ".join(f"{k} {counts[k]}" for k in ("right", "wrong", "judge", "invalid"))
        print(f"{key:20s} n={total:3d}  {parts}")


if __name__ == "__main__":
    main()
