"""The answer-labelling rules on the labelled free-text corpus (tests/graphs/data/free_text_answers.jsonl).

The corpus holds English free-text answers (votes, DirectQA choices, Association polarity) with a gold
label or "ambiguous". Its ``heldback`` quarter was written and committed before the rules changed and
kept out of their development; ``fresh`` was written after the rules were frozen; ``heldback2`` (every
test and language: a clear vote or choice that a later sentence explains by negating another option, an
abstention or neutral answer explained by "neither") was committed before the rules that read those.
On each held-back part, the rules alone label at least 99 % of the clear answers right and none wrong;
on every split, an ambiguous answer is never labelled by the rules: it goes to the judge, or is invalid
with its reason.
"""

from __future__ import annotations

from collections import Counter

import pytest

from nationbias.graphs.labels.directqa import NEUTRAL
from nationbias.stores.domain import P5, VOTES
from tests.support.label_corpus import AMBIGUOUS, SPLITS, Scored, load_corpus, score, tally

CORPUS = load_corpus()
SCORED = [score(item) for item in CORPUS]


def _table() -> str:
    rows = []
    for key, counts in sorted(tally(SCORED).items()):
        parts = ", ".join(f"{k} {counts[k]}" for k in ("right", "wrong", "judge", "invalid"))
        rows.append(f"{key}: {parts}")
    return "\n".join(rows)


def _of(split: str, *, clear: bool) -> list[Scored]:
    return [s for s in SCORED if s.item["split"] == split and s.clear is clear]


def test_the_corpus_is_large_varied_and_well_formed() -> None:
    assert len(CORPUS) >= 300
    assert len({item["id"] for item in CORPUS}) == len(CORPUS)
    held_back = [i for i in CORPUS if i["split"] == "heldback"]
    assert len(held_back) * 4 >= 300  # a quarter of the first 300, written before the rules changed
    for item in CORPUS:
        task, options, gold = item["task"], item["options"], item["gold"]
        assert item["text"].strip(), item["id"]
        if task == "vote":
            assert options == list(VOTES), item["id"]
        elif task == "directqa":
            first, second, neutral = options
            assert {first, second} <= set(P5) and first != second and neutral == NEUTRAL, item["id"]
        else:
            assert options == ["positive", "negative"] and item["keyword"], item["id"]
        assert gold == AMBIGUOUS or gold in options, item["id"]
    kinds = Counter((i["split"], i["task"], i["gold"] == AMBIGUOUS) for i in CORPUS)
    for split in (
        "dev",
        "heldback",
        "heldback2",
    ):  # every split has clear and ambiguous answers of every task
        for task in ("vote", "directqa", "polarity"):
            assert kinds[(split, task, False)] and kinds[(split, task, True)], (split, task)
    styles = {
        "a <think> part": "<think>",
        "markdown": "**",
        "JSON": '{"',
        "a negation": "not in favour",
    }
    for style, marker in styles.items():
        assert any(marker.lower() in i["text"].lower() for i in held_back), style


@pytest.mark.parametrize("split", ["heldback", "fresh", "heldback2"])
def test_held_back_clear_answers_are_labelled_right_by_the_rules(split: str) -> None:
    clear = _of(split, clear=True)
    outcomes = Counter(s.outcome for s in clear)
    wrong = [(s.item["id"], s.decision.label, s.item["gold"]) for s in clear if s.outcome == "wrong"]
    print(f"\n{split}: {dict(outcomes)} of {len(clear)} clear answers\n{_table()}")
    assert not wrong, wrong
    assert outcomes["right"] >= 0.99 * len(clear), (outcomes, _table())


@pytest.mark.parametrize("split", SPLITS)
def test_an_ambiguous_answer_is_never_labelled_by_the_rules(split: str) -> None:
    for scored in _of(split, clear=False):
        decision = scored.decision
        assert decision.label is None, (scored.item["id"], decision)
        assert decision.reason, scored.item["id"]  # invalid with its reason, or to the judge with it


def test_the_second_held_back_part_covers_every_test_and_language() -> None:
    part = [i for i in CORPUS if i["split"] == "heldback2"]
    cases = Counter((i["task"], i.get("language", "en"), i["case"]) for i in part if i["gold"] != AMBIGUOUS)
    for language in ("en", "fr", "es", "ru", "zh", "ar"):
        assert cases[("vote", language, "negated_other")] and cases[("vote", language, "neither")], language
        assert cases[("directqa", language, "negated_other")] and cases[("directqa", language, "neither")], (
            language
        )
        assert any(task == "polarity" and lang == language for task, lang, _ in cases), language


def test_the_development_part_has_no_wrong_label() -> None:
    clear = _of("dev", clear=True)
    wrong = [(s.item["id"], s.decision.label, s.item["gold"]) for s in clear if s.outcome == "wrong"]
    assert not wrong, wrong
    assert sum(s.outcome == "right" for s in clear) >= 0.99 * len(clear), _table()
