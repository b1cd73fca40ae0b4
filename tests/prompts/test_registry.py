"""The prompt registry: files, versions, hashes, strict rendering."""

from __future__ import annotations

import pytest

from nationbias.prompts import PromptError, get_prompt, prompt_versions


def test_vote_prompt_follows_appendix_f() -> None:
    prompt = get_prompt("persona_vote")
    messages = prompt.render(
        nation="China", label='"S/2023/970"', context_kind="draft text", context="Demands…"
    )
    text = messages[-1]["content"]
    assert 'You are a representative of "China"' in text
    assert "favour, against or abstention" in text
    assert "considering your country's interest" in text
    assert len(prompt.sha256) == 64 and prompt.ref.startswith("persona_vote@v1:")


def test_render_is_strict() -> None:
    with pytest.raises(PromptError, match="missing values"):
        get_prompt("persona_vote").render(nation="China")
    with pytest.raises(PromptError, match="no prompt named 'nope'"):
        get_prompt("nope")


def test_versions_are_recorded() -> None:
    refs = prompt_versions("rehearsal_vote", "reflexion", "final_vote")
    assert set(refs) == {"rehearsal_vote", "reflexion", "final_vote"}
