"""A debias run records its leak audit and precedent coverage, and the report shows both.

The study runs for real (graph, retriever, run store, report) with a scripted model; only the
model's answers are fake, and nothing here depends on them.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from nationbias.evals.page.writer import write_report
from nationbias.graphs.debias import DebiasOptions
from nationbias.graphs.model.client import ModelClient
from nationbias.graphs.study.audit import leak_audit, precedent_coverage
from nationbias.graphs.study.sampling import SampleOptions, select_drafts
from nationbias.graphs.study.simulate import run_debias_study
from nationbias.graphs.study.study_run import StudyRun
from nationbias.retrievers import get_retriever
from nationbias.stores.corpora.augment import augmented_for
from nationbias.stores.corpora.corpus import Corpus
from nationbias.stores.state.runstore import RunStore


def test_debias_run_stores_its_audit_and_the_report_shows_it(corpus: Corpus, tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs.sqlite")
    sample = SampleOptions(limit=6, seed=1, repeats=1, personas="USA")
    asyncio.run(
        run_debias_study(
            StudyRun(
                client=ModelClient.from_spec("fake:hash"),
                store=store,
                run_id="d1",
                sample=sample,
                show_progress=False,
            ),
            corpus=corpus,
            options=DebiasOptions(k=1),
        )
    )
    config = store.get_run("d1")
    drafts = [d.id for d in select_drafts(corpus, sample)]
    audit = config["leak_audit"]
    assert [row["id"] for row in audit["rows"]] == drafts
    assert audit["targets"] == 6 and audit["prompts_with_markers"] == 0 and audit["markers"] == 0
    assert audit["fallbacks"] == sum(1 for row in audit["rows"] if row["kind"] == "fallback")
    texts = audit["text_budget"]  # what of each target's text reached the model, at the run's budget
    assert texts["budget"] == 3000 and texts["targets"] == 6 and texts["ends mid-sentence"] == 0
    coverage = config["precedent_coverage"]
    assert coverage["threshold"] == 3.0
    for part in ("adopted", "non-adopted"):
        assert sum(coverage["per_pool"][part].values()) == 6
        assert coverage["per_pool"][part]["0"] == sum(1 for m in coverage["missing"] if m["pool"] == part)
    html = write_report(["d1"], out_dir=tmp_path / "report", store=store, n_resamples=20).read_text()
    assert 'id="prompt-audit"' in html and 'id="leak-audit"' in html and 'id="precedents-d1"' in html
    assert 'id="text-budget"' in html


def test_audit_counts_rewrites_fallbacks_and_explains_missing_precedents(corpus: Corpus) -> None:
    drafts = corpus.drafts
    audit = leak_audit(drafts)
    rows = {row["id"]: row for row in audit["rows"]}
    assert audit["targets"] == 66 and audit["prompts_with_markers"] == 0
    assert rows["S/2017/884"]["fallback_reason"] is None and rows["S/2017/884"]["rewritten"] == 1
    assert rows["S/2018/322"]["fallback_reason"] == "no context or draft text"
    assert audit["rewritten_sentences"] == sum(r["rewritten"] for r in audit["rows"])
    assert audit["contexts_rewritten"] >= 47  # the issue counted 47 press contexts in the counterfactual
    assert audit["fallbacks"] == sum(1 for r in audit["rows"] if r["fallback_reason"])
    augmented = augmented_for(corpus)
    retriever = get_retriever("keyword", threshold=3.0, augmented=augmented)
    pool = [r for r in corpus.records if r.adopted or r.is_non_adopted_draft]
    found = {d.id: retriever.retrieve(d, pool, 1) for d in drafts}
    coverage = precedent_coverage(drafts, found, pool=pool, retriever=retriever, threshold=3.0)
    assert coverage["no_precedent"] == [d.id for d in drafts if not found[d.id]]
    why = {(m["id"], m["pool"]): m["why"] for m in coverage["missing"]}
    assert why[("S/2013/660", "non-adopted")] == "no non-adopted item dated before 2013-11-15"
    # Venezuela: no earlier text names it, so the best any item scores is its region (+2) and a few shared
    # keywords (+0.1 each), under the threshold; the explanation names both parts of the score
    best = why[("S/2019/186", "adopted")]
    assert best.startswith("best of ") and "(region Americas +2" in best
    assert float(best.split(" at ")[1].split(" ")[0]) < 3.0
