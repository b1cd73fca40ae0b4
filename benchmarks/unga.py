"""UNGA roll calls as retrieval pools: the 6,202 real items, and a 100k pool of perturbed copies.

The retrievers take :class:`Record` objects, so each roll call becomes a non-UNSC "draft": the
description is its context, ``short`` its topic, no region and no votes; ``adopted`` alternates
by ``rcid`` so both pool parts are filled. The keyword strategy's augmented fields are built
directly (nations from the country library, keywords from the paper's pool), as the offline
augmenter would, without its corpus-wide n-gram mining (too slow at 100k, and not under test).
"""

from __future__ import annotations

import csv
import datetime as dt
import random

from stores.augment import Augmented, keyword_pool, target_nations
from stores.bundled import DataFile, data_file
from stores.keywords import phrases_in
from stores.records import Context, Record, Tally


def unga_file() -> DataFile:
    return data_file("unga/unga_voeten_un_roll_calls.csv.gz")


def load_unga(limit: int | None = None) -> list[Record]:
    """The roll calls as Records (dated, with the description as context), in file order."""
    records: list[Record] = []
    with unga_file().open_text(newline="") as handle:
        for row in csv.DictReader(handle):
            if limit is not None and len(records) >= limit:
                break
            rcid = int(float(row["rcid"]))
            descr = (row.get("descr") or "").strip() or (row.get("short") or "roll call").strip()
            records.append(
                Record(
                    id=f"UNGA-{rcid}",
                    kind="draft",
                    adopted=rcid % 2 == 0,
                    resolution=None,
                    date=dt.date.fromisoformat(row["date"]),
                    topic=(row.get("short") or "").strip() or None,
                    tally=Tally(yes=0, no=0, abstain=0),
                    votes={},
                    context=Context(text=descr, source="unga-voeten"),
                )
            )
    return records


def augment(records: list[Record]) -> dict[str, Augmented]:
    """Keyword-strategy fields: target nations and pool keywords found in the description."""
    pool = [keyword for _, keyword in keyword_pool()]
    fields: dict[str, Augmented] = {}
    for record in records:
        text = record.context.text if record.context else ""
        haystack = f"{record.topic or ''}\n{text}"
        fields[record.id] = Augmented(
            id=record.id,
            region=record.region,
            target_nations=target_nations([record.topic, text]),
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
