"""The style-only classifier on the texts as the prompts send them: the control shows it can tell
(texts before the rewrite, and the paper's labels), the rewrite and the symbol labels bring it down,
and the texts as sent are held to the same items' UN texts (the reference) on the items that have one."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from nationbias.evals.report.leak import document_style_table, style_table
from nationbias.evals.style_audit import (
    CONTROL_AUC,
    DOCUMENT_MARGIN,
    DocumentStyle,
    StyleAudit,
    audit_records,
    document_records,
    document_style_audit,
    reference_segment,
    save_style_audit,
    sent_segment,
    stored_style_audit,
    style_audit,
    style_features,
)
from nationbias.graphs.vote import vote_messages
from nationbias.prompts import prompt_set
from nationbias.stores.corpora.corpus import Corpus


@pytest.fixture(scope="module")
def audit(corpus: Corpus) -> StyleAudit:
    return style_audit(corpus)


def test_the_check_can_fail(audit: StyleAudit) -> None:
    assert audit.control_auc >= CONTROL_AUC  # the texts before the rewrite, under the old labels
    assert audit.auc["paper"] >= 0.95  # the paper's labels: a resolution number means adopted
    assert audit.failed == 66 and audit.adopted > 600


def test_the_rewrite_and_the_symbol_labels_bring_it_down(audit: StyleAudit) -> None:
    for name in ("structured", "paper-symbols"):
        assert audit.auc[name] < audit.auc["paper"] - 0.25, (name, audit.auc)
        assert audit.auc[name] < audit.control_auc - 0.25, (name, audit.auc)


@pytest.fixture(scope="module")
def documents(corpus: Corpus) -> list[DocumentStyle]:
    return document_style_audit(corpus)


def test_the_texts_as_sent_are_held_to_the_documents_themselves(documents: list[DocumentStyle]) -> None:
    """On the 18 failed drafts and the adopted resolutions of 2023–2024 with a UN text, the texts a run
    sends by default (auto) and under the paper's protocol (un) tell failed from adopted no better than
    the UN's own texts do, at both budgets: what is left is the documents' own style."""
    assert [d.budget for d in documents] == [1200, 3000]
    for found in documents:
        assert found.failed == 18 and found.adopted >= 90, found
        assert found.reference[0] > 0.6  # the documents themselves differ: the check can tell
        for mode in ("auto", "un"):
            assert found.excess(mode) <= DOCUMENT_MARGIN, found.lines()


def test_the_reference_is_the_un_text_at_the_budget(corpus: Corpus) -> None:
    failed, _ = document_records(corpus)
    for budget in (1200, 3000):
        reference = reference_segment(failed[0], budget=budget)
        assert len(reference) <= budget and reference.startswith("The Security Council,")
        assert reference in sent_segment(failed[0], prompts=prompt_set(), context_chars=budget, shown="un")


def test_each_text_is_taken_from_the_prompt_the_run_sends(corpus: Corpus) -> None:
    failed, adopted = audit_records(corpus)
    for record in (failed[0], failed[-1], adopted[0], adopted[-1]):
        for name in ("structured", "paper-symbols", "paper"):
            chosen = prompt_set(name)
            segment = sent_segment(record, prompts=chosen)
            sent = vote_messages(
                record,
                "USA",
                template="rehearsal_vote",
                prompts=chosen,
                date=record.date.isoformat(),
                history="",
                previous_votes="(none)",
            )[-1]["content"]
            assert segment in sent and segment.startswith("- context of ")
    paper = sent_segment(adopted[-1], prompts=prompt_set("paper"))
    assert re.match(r'- context of resolution "\d+":', paper)  # the paper's label for an adopted text


def test_the_features_are_style_only() -> None:
    names = style_features('- context of "S/2023/970":\nThe draft would demand a ceasefire in Gaza today.')
    assert all(re.match(r"^(?:fw|tense|aspect|voice|time|label): ", name) for name in names)
    assert not any(word in name for name in names for word in ("gaza", "ceasefire", "demand"))
    assert names["time: words"] > 0 and names["tense: would + bare verb"] > 0
    assert names["label: quoted draft symbol"] == 1.0


def test_the_report_shows_the_last_audit_of_this_data(
    audit: StyleAudit, corpus: Corpus, isolated_home: Path
) -> None:
    assert stored_style_audit(corpus) is None and style_table(None) is None
    save_style_audit(audit, corpus)
    saved = stored_style_audit(corpus)
    assert saved is not None and saved["auc"] == audit.auc and saved["passed"] is audit.passed
    table = style_table(saved)
    assert table is not None
    assert list(table["texts"]) == ["structured", "paper-symbols", "paper", "before the rewrite (control)"]
    gate = "reported; the gate is the UN texts' own AUC (style-documents)"
    assert list(table["held to"])[:3] == [gate, gate, "reported"]
    for line in audit.lines()[1:-1]:  # each prompt set's figure is reported, held to no gate of its own
        assert re.fullmatch(r"  [\w-]+: \d\.\d{3} ± \d\.\d{3} \(reported\)", line), line


def test_the_style_documents_table_holds_each_mode_to_the_reference(
    audit: StyleAudit, documents: list[DocumentStyle], corpus: Corpus, isolated_home: Path
) -> None:
    """The report's style-documents table, from the audit ``data audit`` saves: at both budgets the
    reference, and auto and un held to the reference + the margin; press reported."""
    save_style_audit(audit, corpus, documents=documents)
    table = document_style_table(stored_style_audit(corpus))
    assert table is not None
    assert sorted(set(table["budget"])) == [1200, 3000]
    for found in documents:
        rows = table[table["budget"] == found.budget].set_index("texts")["held to"].to_dict()
        limit = round(found.reference[0] + DOCUMENT_MARGIN, 3)
        assert rows["--texts auto, as sent"] == rows["--texts un, as sent"] == f"<= {limit}"
        assert rows["--texts press, as sent"] == "reported"
        assert not any("0.6" in line for line in found.lines() if "held" in line)
