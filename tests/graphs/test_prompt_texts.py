"""What of a draft reaches the model, read from the vote prompts the real code path builds.

Every one of the 66 non-adopted drafts, under both budgets (3,000 characters for a server, 1,200
for the embedded model), through :func:`nationbias.graphs.vote.vote_messages`, both prompt sets. The outcome
markers are written here, independent of :mod:`nationbias.stores.guard.leak`: a guard is not tested with its
own patterns.
"""

from __future__ import annotations

import re

import pytest

from nationbias.graphs.vote import vote_messages
from nationbias.prompts import prompt_set
from nationbias.stores.corpora.corpus import Corpus
from nationbias.stores.guard.text_source import context_source
from nationbias.stores.records import Record
from nationbias.stores.text.audit import audit_summary, text_audit
from nationbias.stores.text.budget import prompt_text
from nationbias.stores.text.cut import (
    BUDGETS,
    EMBEDDED_CHARS,
    SERVER_CHARS,
    ends_cleanly,
    fit_draft,
    fit_text,
)
from nationbias.stores.text.enrich import sponsor_names
from nationbias.stores.text.mend import count_dangling, mend

# Words that tell a reader how the vote went: written for this test, not imported from the guard.
OUTCOME_MARKERS = (
    r"\bveto(?:ed|es|ing)?\b",
    r"\bvoted\b",
    r"\babstain(?:ed|ing|s)?\b",
    r"\babstentions?\b",
    r"\bfailed\b",
    r"\bnot (?:been )?adopted\b",
    r"\b(?:was|were|been) (?:adopted|rejected|defeated|blocked|passed)\b",
    r"\badopted (?:unanimously|today|by (?:a vote|consensus))\b",
    r"\bunanimous(?:ly)?\b",
    r"\b\d{1,2}\s*[-–—]\s*\d{1,2}\s*[-–—]\s*\d{1,2}\b",
    r"\b(?:in favour|against)\s*\(\d+\)",
    r"\bvotes? (?:in favour|against)\b",
    r"\bwould (?:\w+ )?have (?:\w+ed|been)\b",
    r"\bif adopted\b",
    r"\boutcome removed\b",
)
CUT_INSIDE = re.compile(r"\w …$|\w$")


def _content(messages: list[dict[str, str]]) -> str:
    return "\n".join(m["content"] for m in messages)


# The instructions name the three options; that is the question, not a leak.
OPTIONS = re.compile(r"favour, against,? or abstention|one of favour, against, abstention")


def markers(text: str) -> list[str]:
    text = OPTIONS.sub("", text)
    return [p for p in OUTCOME_MARKERS if re.search(p, text, re.IGNORECASE)]


@pytest.fixture(scope="module")
def prompts(corpus: Corpus) -> dict[tuple[str, int, str], tuple[Record, str]]:
    """(draft, budget, prompt set) → the vote prompt as sent."""
    built = {}
    for name in ("structured", "paper"):
        kit = prompt_set(name)
        for record in corpus.drafts:
            for budget in BUDGETS:
                messages = vote_messages(record, "USA", context_chars=budget, prompts=kit)
                built[(record.id, budget, name)] = (record, _content(messages))
    return built


def test_every_target_both_budgets_both_sets(prompts: dict[tuple[str, int, str], tuple[Record, str]]) -> None:
    assert len(prompts) == 66 * 2 * 2


def test_no_prompt_carries_outcome_words(prompts: dict[tuple[str, int, str], tuple[Record, str]]) -> None:
    leaks = {key: markers(prompt) for key, (_, prompt) in prompts.items() if markers(prompt)}
    assert leaks == {}


def test_the_markers_can_fail(corpus: Corpus) -> None:
    """The same markers find the outcome in the press excerpts (which never reach a prompt)."""
    excerpts = [r.press_excerpt.text for r in corpus.drafts if r.press_excerpt]
    assert len(excerpts) > 40 and sum(1 for text in excerpts if markers(text)) > 0.8 * len(excerpts)


def test_the_enrichment_never_carries_outcome_words(corpus: Corpus) -> None:
    added = [
        (record.id, extra.text)
        for record in corpus.drafts
        for budget in BUDGETS
        for extra in prompt_text(record, budget=budget).enrichments
    ]
    assert len(added) >= 20  # thin targets really were enriched
    assert [(rid, markers(text)) for rid, text in added if markers(text)] == []
    for rid, text in added:
        assert "undl" not in text.lower() and "S/PV." not in text, rid


@pytest.mark.parametrize("budget", BUDGETS)
def test_the_budget_is_honoured_and_no_text_ends_inside_a_sentence(corpus: Corpus, budget: int) -> None:
    for record in corpus.drafts:
        sent = prompt_text(record, budget=budget)
        assert 0 < len(sent.text) <= budget, record.id
        assert ends_cleanly(sent.text, prose=sent.kind != "draft_text"), (record.id, sent.text[-60:])
        assert not CUT_INSIDE.search(sent.text.splitlines()[-1]) or sent.text.splitlines()[-1].startswith(
            ("Agenda item:", "Topic:", "Sponsors:", "Title:")
        ), (record.id, sent.text[-60:])


def test_what_is_sent_is_in_the_prompt(prompts: dict[tuple[str, int, str], tuple[Record, str]]) -> None:
    for (rid, budget, _), (record, prompt) in prompts.items():
        assert prompt_text(record, budget=budget).text in prompt, (rid, budget)


def test_no_dangling_reference_starts_a_sentence(
    prompts: dict[tuple[str, int, str], tuple[Record, str]],
) -> None:
    for (rid, budget, _), (record, prompt) in prompts.items():
        sent = prompt_text(record, budget=budget).text
        assert count_dangling(sent) == 0, (rid, sent[:120])
        assert not re.search(
            r"(?:^|\n|\. )(?:That (?:draft|text)|By (?:the terms of )?that text)\b", prompt
        ), rid


@pytest.mark.parametrize("budget", BUDGETS)
def test_s2024_302_sends_its_operative_paragraphs(
    prompts: dict[tuple[str, int, str], tuple[Record, str]], budget: int
) -> None:
    _, prompt = prompts[("S/2024/302", budget, "structured")]
    assert "1. Urges that all Member States carrying out activities in the exploration and use" in prompt
    sent = prompt_text(_, budget=budget)
    assert sent.operative_total == 8 and sent.operative_sent >= (8 if budget == SERVER_CHARS else 3)


@pytest.mark.parametrize("budget", BUDGETS)
def test_s2024_835_sends_its_ceasefire_demand(
    prompts: dict[tuple[str, int, str], tuple[Record, str]], budget: int
) -> None:
    for name in ("structured", "paper"):
        _, prompt = prompts[("S/2024/835", budget, name)]
        assert "an immediate, unconditional and permanent ceasefire" in prompt


def test_a_text_that_ends_mid_word_in_the_data_is_taken_back(corpus: Corpus) -> None:
    raw = corpus.get("S/2018/520").context
    assert raw is not None and raw.text.rstrip().endswith("Palestinian Islam")  # the data's defect
    sent = prompt_text(corpus.get("S/2018/520")).text
    assert "Palestinian Islam" not in sent.split("Agenda item:")[0] or sent.rstrip().endswith(".")
    # taken back to the clause before the cut ("…towards Israel [on 29 May]; demanded that Hamas, Palestinian
    # Islam"); the date may go with the press voice's time words (stores/guard/neutral.py)
    assert sent.rstrip().endswith(".") and "Palestinian Islam" not in sent
    assert "rockets by Palestinian militants in Gaza towards Israel" in sent


def test_the_source_label_names_where_a_text_came_from(corpus: Corpus) -> None:
    source = context_source(corpus.get("S/2024/383"))
    assert source.kind == "news" and "tag24" in source.phrase
    messages = vote_messages(corpus.get("S/2024/383"), "USA")
    prompt = _content(messages)
    assert "tag24" in prompt and "press release" not in prompt
    assert "a UN press release" in _content(vote_messages(corpus.get("S/2013/660"), "USA"))


def test_labels_use_the_same_nouns_adopted_or_not(corpus: Corpus) -> None:
    """The kind label never says "resolution" for an adopted text and "draft" for a failed one."""
    labels = {
        r.adopted: {
            prompt_text(x).label.split(",")[0] for x in (corpus.adopted if r.adopted else corpus.drafts)
        }
        for r in (corpus.adopted[0], corpus.drafts[0])
    }
    for label in labels[True] | labels[False]:
        assert "resolution" not in label and "outcome" not in label, label
    assert labels[True] & labels[False]


def test_fit_draft_puts_operative_paragraphs_first() -> None:
    preamble = "\n".join(
        f"Recalling the long history of item {i}, {'and more words ' * 8}," for i in range(20)
    )
    ops = "\n".join(f"{i}. Decides that measure {i} shall apply;" for i in range(1, 6))
    text = f"The Security Council,\n{preamble}\n{ops}"
    sent, total, reached = fit_draft(text, 600)
    assert total == 5 and reached == 5 and len(sent) <= 600
    assert sent.splitlines()[1].startswith("1. Decides")
    assert fit_draft(text, 10_000) == (text, 5, 5)


def test_fit_text_cuts_between_sentences_only() -> None:
    text = "The draft would demand a ceasefire. It would ask the U.N. Secretary-General to report. More."
    assert fit_text(text, 40) == "The draft would demand a ceasefire."
    assert fit_text(text, 1000) == text


def test_mend_resolves_dangling_and_unfinished_text() -> None:
    text = (
        "That draft would demand access.\n"
        "It would also condemn the rocket attacks on 29 May; demand that Hamas, Pal"
    )
    mended, fixes = mend(text, prose=True)
    assert mended == "The draft would demand access.\nIt would also condemn the rocket attacks on 29 May."
    assert len(fixes) == 2


def test_sponsors_split_where_the_data_joined_two(corpus: Corpus) -> None:
    assert sponsor_names(corpus.get("S/2024/383"))[-2:] == ["Nicaragua", "Syrian Arab Republic"]


def test_the_audit_counts(corpus: Corpus) -> None:
    table = text_audit(corpus.drafts)
    assert len(table) == 66 * 2
    summary = audit_summary(table).set_index("budget")
    for budget in (SERVER_CHARS, EMBEDDED_CHARS):
        row = summary.loc[budget]
        assert row["ends mid-sentence"] == 0 and row["dangling starts"] == 0
        assert row["agenda/topic only"] < 10
    assert summary.loc[SERVER_CHARS, "all operative sent"] >= 2  # 1 of 3 complete drafts before the budget
