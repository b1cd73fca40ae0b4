"""The keyword retriever's reference: every earlier item of the pool scored, no index.

The indexed :meth:`~nationbias.retrievers.keyword.KeywordRetriever.retrieve` must return exactly what
this returns (tests/retrievers/test_keyword_index.py), and benchmarks/retrieval.py times it beside the
index. It is built from the library's public parts only: the paper's score (``keyword_match``), the
leakage rule and per-part cut (``retrieve_per_part``) and the offline fields (``augmented_for``), read
the way the retriever reads them (given fields first, the rest computed for the records that lack them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from nationbias.retrievers.base import PoolName, Precedent, Scored, retrieve_per_part
from nationbias.retrievers.keyword import KEYWORD_THRESHOLD, keyword_match
from nationbias.stores.corpora.augment import Augmented, augmented_for
from nationbias.stores.corpora.corpus import Corpus
from nationbias.stores.records import Record


def retrieve_naive(
    target: Record,
    pool: Sequence[Record],
    k: int,
    *,
    threshold: float = KEYWORD_THRESHOLD,
    augmented: Mapping[str, Augmented] | None = None,
) -> list[Precedent]:
    """The top ``k`` earlier items of each pool part whose score is above ``threshold``."""
    given = dict(augmented or {})
    missing = [record for record in pool if record.id not in given]
    fields = {**(augmented_for(Corpus(records=missing)) if missing else {}), **given}
    target_fields = fields.get(target.id) or augmented_for(Corpus(records=[target]))[target.id]

    def rank(part: PoolName, candidates: list[Record]) -> list[Scored]:
        del part  # one rule for both parts
        scored = []
        for record in candidates:
            score, reason = keyword_match(target_fields, fields[record.id])
            if score > threshold:
                scored.append(Scored(record, score, reason))
        return scored

    return retrieve_per_part(target, pool, k, rank)
