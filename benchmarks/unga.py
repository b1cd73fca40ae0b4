"""UNGA roll calls as retrieval pools: the 6,203 real items, and a 100k pool of perturbed copies.

The roll calls come from :mod:`nationbias.stores.corpora.unga` (the one reader), as Records with
``body="unga"``: the description is the context, ``short`` the title, no region; ``adopted`` alternates by
``rcid`` so both pool parts are filled. The keyword strategy's augmented fields are built
directly (nations from the country library, keywords from the paper's pool), as the offline
augmenter would, without its corpus-wide n-gram mining (too slow at 100k, and not under test).
"""

from __future__ import annotations

import datetime as dt
import random

from nationbias.stores.corpora.augment import Augmented, keyword_pool, target_nations
from nationbias.stores.corpora.keywords import phrases_in
from nationbias.stores.corpora.unga import load_assembly
from nationbias.stores.records import Context, Record


def load_unga(limit: int | None = None) -> list[Record]:
    """The roll calls as Records (:mod:`nationbias.stores.corpora.unga`, date order), ``adopted`` alternating
    by ``rcid``."""
    records = load_assembly().records()[:limit]
    return [
        record.model_copy(update={"adopted": int(record.id.removeprefix("UNGA-")) % 2 == 0})
        for record in records
    ]


def augment(records: list[Record]) -> dict[str, Augmented]:
    """Keyword-strategy fields: target nations and pool keywords found in the description."""
    pool = [keyword for _, keyword in keyword_pool()]
    fields: dict[str, Augmented] = {}
    for record in records:
        text = record.context.text if record.context else ""
        haystack = f"{record.title or ''}\n{text}"
        fields[record.id] = Augmented(
            id=record.id,
            region=record.region,
            target_nations=target_nations([record.title, text]),
            keywords=phrases_in(haystack, pool)[:10],
        )
    return fields


def perturbed_pool(
    base: list[Record], fields: dict[str, Augmented], size: int, *, seed: int = 0, dropout: float = 0.15
) -> tuple[list[Record], dict[str, Augmented]]:
    """``size`` items made by repeating ``base``: new ids, dates shifted by up to ±2 years, and
    word dropout on the text (and on the nation / keyword lists) so copies are not identical."""
    rng = random.Random(seed)
    records: list[Record] = []
    out: dict[str, Augmented] = {}
    for index in range(size):
        source = base[index % len(base)]
        words = (source.context.text if source.context else "").split()
        kept = [w for w in words if rng.random() >= dropout] or words[:1]
        record = source.model_copy(
            update={
                "id": f"{source.id}-p{index}",
                "date": source.date + dt.timedelta(days=rng.randint(-730, 730)),
                "context": Context(text=" ".join(kept), source="perturbed"),
            }
        )
        records.append(record)
        aug = fields[source.id]
        out[record.id] = aug.model_copy(
            update={
                "id": record.id,
                "target_nations": [n for n in aug.target_nations if rng.random() >= dropout],
                "keywords": [k for k in aug.keywords if rng.random() >= dropout],
            }
        )
    return records, out
