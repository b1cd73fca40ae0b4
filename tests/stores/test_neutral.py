"""Press wording rewritten into a draft's voice; a context that still reveals the outcome falls back."""

from __future__ import annotations

import pytest

from nationbias.graphs.vote import vote_messages
from nationbias.stores.guard.leak import context_for_prompt
from nationbias.stores.guard.neutral import base_form, neutralise_sentence
from nationbias.stores.records import Record


@pytest.mark.parametrize(
    ("press", "draft"),
    [
        (
            "By other terms, the Council would have decided that Member States would take no action.",
            "The Council would decide that Member States would take no action.",
        ),
        (
            "If adopted, the resolution would have demanded a ceasefire.",
            "The draft would demand a ceasefire.",
        ),
        (
            "If adopted, the resolution — presented by the United Arab Emirates — would have also demanded "
            "the release of all hostages held in Atlantis.",
            # who presented it is a fact of the sentence: kept (stores/guard/content_kept.py)
            "The draft — presented by the United Arab Emirates — would also demand the release of all "
            "hostages held in Atlantis.",
        ),
        (
            "The draft resolution, which was seen by Xinhua, contains only five paragraphs.",
            "The draft, according to Xinhua, would contain only five paragraphs.",
        ),
        (
            "A draft resolution urges nations not to recognize it, according to a copy obtained by Reuters.",
            "The draft would urge nations not to recognize it, according to Reuters.",
        ),
        (
            "The resolution is a slightly revised version of previous similar document, which condemns "
            "the use of chemical weapons in Syria.",
            "The draft would condemn the use of chemical weapons in Syria.",
        ),
        (
            "Norway’s representative, introducing the draft, said it would offer a 6+6-month extension.",
            "The draft would offer a 6+6-month extension.",
        ),
        (
            "The text would have seen the Council take note of recent reports and would have kept closed "
            "two crossings.",
            "The draft would see the Council take note of recent reports and would keep closed "
            "two crossings.",
        ),
        (
            "The draft resolution tabled today would have had the Council decide that all parties cease.",
            "The draft would have the Council decide that all parties cease.",
        ),
        (
            "The Council would have established a mechanism, and urged it to act; demanded that all comply.",
            "The Council would establish a mechanism, and urge it to act; demand that all comply.",
        ),
        (
            "The first draft — submitted by France and Malta — would have, among other terms, renewed it.",
            "The first draft — submitted by France and Malta — would, among other terms, renew it.",
        ),
        # an adopted text's press release says what the Council did: that tense is a tell too
        (
            "Deploring the lack of access, the Security Council today authorized relief delivery and "
            "requested the Secretary-General to report.",
            "Deploring the lack of access, the Security Council would authorize relief delivery and "
            "request the Secretary-General to report.",
        ),
        (
            "The Security Council has decided to extend the mandate by nine months.",
            "The Security Council would decide to extend the mandate by nine months.",
        ),
    ],
)
def test_press_wording_becomes_the_drafts_voice(press: str, draft: str) -> None:
    rewritten, reasons = neutralise_sentence(press)
    assert rewritten == draft
    assert reasons  # every change says why


def test_adjectives_passives_and_present_tense_are_left_alone() -> None:
    for kept in ("The Council was briefed by the envoy.", "The Council decided by consensus."):
        assert neutralise_sentence(kept) == (kept, ())
    sentence = "It would have the Council use all credible, verified and corroborated evidence."
    assert neutralise_sentence(sentence) == (sentence, ())
    assert neutralise_sentence("Decides to remain seized of the matter.") == (
        "Decides to remain seized of the matter.",
        (),
    )


def test_an_opening_sentence_does_not_start_mid_description() -> None:
    assert neutralise_sentence("It would also have demanded that all States comply.", first=True)[0] == (
        "The draft would demand that all States comply."
    )


def test_verb_forms_come_from_the_inflection_library() -> None:
    assert [base_form(w) for w in ("demanded", "seen", "kept", "had", "re-emphasized")] == [
        "demand",
        "see",
        "keep",
        "have",
        "re-emphasize",
    ]
    assert base_form("the") is None and base_form("demand") is None


def _record(context: str, **fields: object) -> Record:
    return Record.model_validate(
        {
            "id": "S/2099/1",
            "kind": "draft",
            "adopted": False,
            "date": "2099-01-01",
            "agenda_item": "The situation in Atlantis",
            "tally": {"yes": 9, "no": 1, "abstain": 5},
            "votes": {},
            "context": {"text": context},
            **fields,
        }
    )


def test_a_context_that_still_reveals_the_outcome_falls_back_and_says_why() -> None:
    record = _record(
        "The draft, which would have demanded a ceasefire in Atlantis, was vetoed by one permanent member."
    )
    ctx = context_for_prompt(record)
    assert ctx.kind == "fallback" and ctx.text == "Agenda item: The situation in Atlantis"
    assert ctx.fallback_reason == "the context still revealed the outcome after rewriting"
    assert ctx.changes == ()
    prompt = vote_messages(record, "USA")[0]["content"]
    assert "vetoed" not in prompt and "ceasefire" not in prompt


PRESS = (
    "If adopted, the draft would have demanded a ceasefire in Atlantis and the release of all hostages there."
)
DRAFT = "The Security Council,\n1. Demands a ceasefire in Atlantis;\n2. Decides to remain seized of it."


def test_a_complete_draft_text_is_preferred_to_the_press_context() -> None:
    ctx = context_for_prompt(_record(PRESS, draft_text={"text": DRAFT, "complete": True}))
    assert ctx.kind == "draft_text" and ctx.text.startswith("The Security Council,\n1. Demands")
    ctx = context_for_prompt(_record(PRESS, draft_text={"text": DRAFT, "complete": False}))
    assert ctx.kind == "context"
    assert ctx.text == "The draft would demand a ceasefire in Atlantis and the release of all hostages there."
    assert ctx.rewritten_sentences == 1 and ctx.changes[0].original.startswith("If adopted")
