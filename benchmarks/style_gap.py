"""Where the style classifier's remaining gap comes from: its AUC on variants of the texts as sent, each
removing one suspected cause; then the gate itself, the document audit (the texts as sent under each
--texts beside the same items' UN texts, at 1,200 and 3,000 characters).

``uv run python -m benchmarks.style_gap`` prints the markdown table kept in RESULTS.md. Every variant uses
:func:`nationbias.evals.style_audit.cross_validated_auc` (the gate's classifier, features and folds) on
:func:`nationbias.evals.style_audit.sent_segment` (the text as the real rehearsal prompt sends it); only the
population or the part of the text measured changes. A variant that brought the AUC to the gate would
name a fix; none does, which is the finding.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence

from nationbias.evals.style_audit import (
    DOCUMENT_GATED,
    DOCUMENT_MARGIN,
    audit_records,
    cross_validated_auc,
    document_style_audit,
    sent_segment,
)
from nationbias.graphs.study.simulate import precedent_pool
from nationbias.prompts import PromptSet, prompt_set
from nationbias.retrievers.registry import get_retriever
from nationbias.stores.corpora.corpus import Corpus, load_corpus
from nationbias.stores.records import Record
from nationbias.stores.text.cut import sentences

Variant = tuple[str, list[Record], list[Record], Callable[[Record], str]]


def _described(segment: str) -> bool:
    return "no description" not in segment.partition("\n")[0]


def _would_sentences(segment: str) -> str:
    head, _, body = segment.partition("\n")
    kept = [s for s in sentences(body) if re.search(r"\bwould\b", s)]
    return f"{head}\n{' '.join(kept) if kept else body}"


def _cut(record: Record, *, prompts: PromptSet, chars: int) -> str:
    return sent_segment(record, prompts=prompts, context_chars=chars)


def _body(segment: str) -> str:
    return segment.partition("\n")[2]


def _shown(corpus: Corpus, failed: Sequence[Record], retriever: str, k: int) -> set[str]:
    """The adopted precedents a debias run with ``retriever`` and ``k`` shows for the 66 targets."""
    chosen = get_retriever(retriever)
    pool = precedent_pool(corpus)
    return {p.record.id for t in failed for p in chosen.retrieve(t, pool, k) if p.pool == "adopted"}


def variants(corpus: Corpus) -> list[Variant]:
    structured = prompt_set("structured")
    failed, adopted = audit_records(corpus)
    sent = {r.id: sent_segment(r, prompts=structured) for r in [*failed, *adopted]}
    as_sent: Callable[[Record], str] = lambda r: sent[r.id]  # noqa: E731
    _would: Callable[[Record], str] = lambda r: _would_sentences(sent[r.id])  # noqa: E731
    f_desc = [r for r in failed if _described(sent[r.id])]
    a_desc = [r for r in adopted if _described(sent[r.id])]
    out: list[Variant] = [
        ("every text as sent (the gate)", failed, adopted, as_sent),
        ("texts with a description only (title-only items left out)", f_desc, a_desc, as_sent),
        ("the same, the label line left out", f_desc, a_desc, lambda r: "-\n" + _body(sent[r.id])),
        ("the same, only sentences saying what the draft would do", f_desc, a_desc, _would),
    ]
    for chars in (600, 400):
        out.append(
            (
                f"the same, every text cut to {chars} characters (equal length)",
                f_desc,
                a_desc,
                functools.partial(_cut, prompts=structured, chars=chars),
            )
        )
    for retriever, k in (("keyword", 3), ("bm25", 3), ("bm25", 5)):
        shown = _shown(corpus, failed, retriever, k)
        out.append(
            (
                f"adopted precedents a run shows ({retriever}, k={k}: topic-matched)",
                failed,
                [r for r in adopted if r.id in shown],
                as_sent,
            )
        )
    own = "the text of the draft"
    texts = [r for r in adopted if own in sent[r.id].partition("\n")[0]]
    f_texts = [r for r in failed if own in sent[r.id].partition("\n")[0]]
    out.append(("the draft's own UN text on both sides", f_texts, texts, as_sent))
    return out


def main() -> None:
    corpus = load_corpus()
    print("| texts (structured set) | failed | adopted | mean AUC ± sd |")
    print("|---|---|---|---|")
    for name, failed, adopted, text in variants(corpus):
        if len(failed) < 5 or len(adopted) < 5:
            print(f"| {name} | {len(failed)} | {len(adopted)} | too few for 5 folds |")
            continue
        labels = [1] * len(failed) + [0] * len(adopted)
        mean, sd = cross_validated_auc([text(r) for r in [*failed, *adopted]], labels)
        print(f"| {name} | {len(failed)} | {len(adopted)} | {mean:.3f} ± {sd:.3f} |")
    print()
    print(f"| budget | texts | failed | adopted | mean AUC ± sd | held to (reference + {DOCUMENT_MARGIN}) |")
    print("|---|---|---|---|---|---|")
    for found in document_style_audit(corpus):
        ref, sd = found.reference
        print(
            f"| {found.budget} | the UN texts (reference) | {found.failed} | {found.adopted} "
            f"| {ref:.3f} ± {sd:.3f} | |"
        )
        for mode, (auc, sd) in found.sent.items():
            held = f"<= {ref + DOCUMENT_MARGIN:.3f}" if mode in DOCUMENT_GATED else "reported"
            verdict = (
                ""
                if mode not in DOCUMENT_GATED
                else (" ok" if found.excess(mode) <= DOCUMENT_MARGIN else " FAILS")
            )
            print(
                f"| {found.budget} | --texts {mode}, as sent | {found.failed} | {found.adopted} "
                f"| {auc:.3f} ± {sd:.3f} | {held}{verdict} |"
            )


if __name__ == "__main__":
    main()
