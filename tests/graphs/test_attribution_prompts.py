"""The attribution test's prompts, read as the real code path builds them for every one of the 66 drafts:
a draft's arms differ only in the proposer line, no arm names the real sponsor as proposer (unless that
sponsor is the arm's proposer), and no prompt carries the outcome (the guard and the independent markers).
"""

from __future__ import annotations

import re

import pytest

from nationbias.graphs.attribution import (
    ARMS,
    GROUP_NAME,
    NO_PROPOSER,
    attribution_messages,
    neutral_text,
    proposer_audit,
    proposer_name,
    remove_proposers,
)
from nationbias.stores.corpora.corpus import Corpus
from nationbias.stores.domain import CONTROL
from nationbias.stores.records import Record
from nationbias.stores.text.budget import prompt_text
from nationbias.stores.text.cut import BUDGETS
from nationbias.stores.text.un_prompt import target_shown
from tests.graphs.test_prompt_texts import markers

# Phrases in the corpus's texts that name a draft's own proposer, found by reading them (not by the
# rewrite's patterns): each must be in the text before the rewrite and in no arm after it.
PROPOSER_PHRASES = {
    "S/2014/916": "Presented by Jordan",
    "S/2015/508": "Sponsors: Jordan",
    "S/2017/884": "United States-proposed",
    "S/2020/683": "Sponsors: Russian Federation",
    "S/2020/797": "Tabled by the United States",
    "S/2021/990": "sponsored by Niger",
    "S/2023/638": "submitted by France and the United Arab Emirates",
    "S/2023/639": "proposed by Russia",
    "S/2023/792": "United States’ draft",
    "S/2024/173": "drafted by Algeria",
    "S/2024/239": "presented by the United States",
    "S/2024/255": "presented by the United States",
}
# A nation in another role stays: the author of the draft S/2018/520 amends, a party named in a text.
OTHER_ROLES = {"S/2018/520": "Kuwait’s draft"}


def _content(messages: list[dict[str, str]]) -> str:
    return "\n".join(m["content"] for m in messages)


def _line(arm: str) -> str:
    name = proposer_name(arm)
    return "" if name is None else f"Submitted by: {name}\n"


@pytest.fixture(scope="module")
def arms(corpus: Corpus) -> dict[tuple[str, int, str, str], dict[str, str]]:
    """(draft, budget, --texts, voter) → arm → the prompt as sent."""
    built = {}
    for record in corpus.drafts:
        for budget in BUDGETS:
            for mode in ("press", "auto"):
                shown = target_shown(record, mode)
                text = neutral_text(record, context_chars=budget, shown=shown)
                for voter in (CONTROL, "RUS"):
                    built[(record.id, budget, mode, voter)] = {
                        arm: _content(attribution_messages(record, arm, voter, text=text, shown=shown))
                        for arm in ARMS
                    }
    return built


def test_every_draft_is_kept_and_shown_in_seven_arms(arms: dict, corpus: Corpus) -> None:
    assert len(corpus.drafts) == 66 and len(arms) == 66 * 2 * 2 * 2
    assert all(len(prompts) == 7 for prompts in arms.values())
    assert proposer_audit(corpus.drafts)["excluded"] == {}


def test_a_drafts_arms_differ_only_in_the_proposer_line(arms: dict) -> None:
    for key, prompts in arms.items():
        bare = prompts[NO_PROPOSER]
        assert "Submitted by:" not in bare, key
        for arm, prompt in prompts.items():
            line = _line(arm)
            assert prompt.count("Submitted by:") == (arm != NO_PROPOSER), (key, arm)
            assert prompt.replace(line, "", 1) == bare, (key, arm)  # byte for byte, the line aside
        assert f"Submitted by: {GROUP_NAME}\n" in prompts["group"]
        assert "Submitted by: China\n" in prompts["CHN"]


def test_no_arm_names_the_real_proposer(arms: dict, corpus: Corpus) -> None:
    by_id = {r.id: r for r in corpus.drafts}
    for rid, phrase in PROPOSER_PHRASES.items():
        assert phrase in prompt_text(by_id[rid], budget=3000).text, rid  # the check can fail
        for (draft, *_), prompts in arms.items():
            if draft == rid:
                assert all(phrase not in p for p in prompts.values()), (rid, phrase)
    for rid, phrase in OTHER_ROLES.items():
        assert phrase in arms[(rid, 3000, "press", CONTROL)]["USA"], rid


def _proposer_patterns(record: Record) -> list[str]:
    """Independent of the rewrite: the record's sponsors in a proposer's role."""
    names = {n for s in record.sponsors for n in re.split(r",? and |, ", s) if n.strip()}
    names |= {"Russia"} if "Russian Federation" in names else set()
    names |= {"United States"} if any("United States" in n for n in names) else set()
    out = [r"^Sponsors:"]
    for name in names:
        who = re.escape(name.strip())
        out += [
            rf"(?:tabled|presented|submitted|drafted|sponsored|proposed|introduced)\s+(?:jointly\s+)?by\s+(?:the\s+)?{who}",
            rf"{who}[-‑](?:proposed|drafted|sponsored|led)",
            rf"{who}(?:’s|'s|’|') (?:draft|text|proposal)",
        ]
    return out


def test_no_arm_names_a_recorded_sponsor_as_proposer(arms: dict, corpus: Corpus) -> None:
    by_id = {r.id: r for r in corpus.drafts}
    checked = 0
    for (rid, *_), prompts in arms.items():
        record = by_id[rid]
        for arm, prompt in prompts.items():
            context = prompt.replace(_line(arm), "", 1)
            for pattern in _proposer_patterns(record):
                assert not re.search(pattern, context, re.IGNORECASE | re.MULTILINE), (rid, arm, pattern)
                checked += 1
    assert checked > 1000


def test_no_prompt_carries_the_outcome(arms: dict, corpus: Corpus) -> None:
    leaks = {
        (key, arm): markers(p) for key, prompts in arms.items() for arm, p in prompts.items() if markers(p)
    }
    assert leaks == {}
    for budget in BUDGETS:
        assert proposer_audit(corpus.drafts, context_chars=budget, text_mode="auto")["markers"] == {}


def test_the_rewrites_are_counted_per_draft(corpus: Corpus) -> None:
    audit = proposer_audit(corpus.drafts, text_mode="press")
    assert set(PROPOSER_PHRASES) <= {rid for rid, found in audit["rewrites"].items() if found}
    assert audit["drafts_rewritten"] == sum(1 for found in audit["rewrites"].values() if found)
    assert audit["phrases_rewritten"] >= len(PROPOSER_PHRASES)


def test_a_proposer_phrase_the_rewrite_cannot_cover_leaves_the_draft_out() -> None:
    text, rewrites, reason = remove_proposers("Circulated by France on Monday, it would demand a ceasefire.")
    assert reason is not None and "Circulated by France" in reason and rewrites == ()
    text, rewrites, reason = remove_proposers("Tabled by the United States, the draft would demand a truce.")
    assert (text, reason) == ("The draft would demand a truce.", None) and len(rewrites) == 1
    text, _, reason = remove_proposers("Russia’s draft would x. Amendments to Kuwait’s draft would y.")
    assert (text, reason) == ("The draft would x. Amendments to Kuwait’s draft would y.", None)
    text, _, reason = remove_proposers("The report presented by the Secretary-General would be welcomed.")
    assert reason is None and "presented by the Secretary-General" in text  # no nation: not a proposer
