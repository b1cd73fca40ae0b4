"""The kind and language of text of the precedents a debiased run shows, as its config records them."""

from __future__ import annotations

from nationbias.evals.report.leak import shown_text_rows
from nationbias.graphs.debias import DebiasContext, DebiasOptions
from nationbias.graphs.model.client import ModelClient
from nationbias.graphs.study.audit import precedent_texts
from nationbias.retrievers import get_retriever
from nationbias.stores.corpora.augment import augmented_for
from nationbias.stores.corpora.corpus import Corpus
from nationbias.stores.text.un_prompt import with_un_text


def _deps(corpus: Corpus, mode: str) -> DebiasContext:
    augmented = augmented_for(corpus)
    options = DebiasOptions(k=1, reflexion=False)
    return DebiasContext(
        client=ModelClient.from_spec("fake:hash"),
        records={r.id: r for r in corpus.records},
        pool=[r for r in corpus.records if r.adopted or r.is_non_adopted_draft],
        augmented=augmented,
        retriever=get_retriever("keyword", threshold=options.threshold, augmented=augmented),
        options=options,
        text_mode=mode,  # type: ignore[arg-type]
    )


def test_precedents_are_counted_by_kind_language_and_outcome(corpus: Corpus) -> None:
    """Under auto the failed drafts of 2024 that have a UN text see their precedents, adopted and failed,
    in the UN's words; in French, in the UN's French where it exists; under press none is."""
    targets = [d for d in with_un_text(corpus.drafts) if d.date.year == 2024]
    assert targets
    counted = {}
    for mode in ("auto", "press"):
        deps = _deps(corpus, mode)
        counted[mode] = precedent_texts(
            targets,
            shown_to=lambda d, deps=deps: [p.record for p in deps.precedents_for(d, "RUS")],
            source=deps.precedents_shown,
            language="fr",
        )
    auto, press = counted["auto"], counted["press"]
    assert auto["shown"] == sum(auto["text_kinds"].values()) == sum(auto["text_languages"].values()) > 0
    assert set(auto["text_kinds"]) == {"un_text"}
    assert set(auto["text_kinds_by_outcome"]["adopted"]) == set(auto["text_kinds_by_outcome"]["failed"])
    assert auto["text_languages"].get("fr (the UN's own translation)", 0) > 0
    assert "un_text" not in press["text_kinds"] and press["shown"] > 0
    assert set(press["text_languages"]) == {"en (quoted)"}
    rows = shown_text_rows(
        "run", {"text_kinds": {"un_text": 3}, "text_languages": {"en": 3}, "precedents": auto}
    )
    assert [r["shown"] for r in rows] == [
        "targets",
        "precedents",
        "precedents, adopted",
        "precedents, failed",
    ]
    assert rows[0]["text kinds"] == "UN text 3" and rows[1]["text kinds"].startswith("UN text ")
