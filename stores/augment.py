"""The paper's augmented fields (summary, action items, region, target nations, keywords).

The paper generated them with GPT-4o-mini; :func:`augmented_for` returns a derived file when one
was written by ``nationbias data augment``, else computes the offline, deterministic version.
"""

from __future__ import annotations

import csv
import re
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, Field

from stores.corpus import Corpus, context_for_prompt
from stores.paths import paper_root
from stores.records import Record

EXCLUDED_NATIONS = {"Member States", "United Nations"}


class Augmented(BaseModel):
    id: str
    summary: str = ""
    action_items: str = ""
    region: str | None = None
    target_nations: list[str] = Field(default_factory=list)
    keywords: list[str] = Field(default_factory=list)
    source: str = "offline"


@lru_cache(maxsize=4)
def keyword_pool(path: str | None = None) -> tuple[tuple[str, str], ...]:
    """``(category, keyword)`` pairs: the paper's 48-keyword pool by default."""
    file = Path(path) if path else paper_root() / "keyword_pool.csv"
    with file.open(encoding="utf-8") as handle:
        return tuple((row["category"], row["keyword"]) for row in csv.DictReader(handle))


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.;])\s+", text) if s.strip()]


def offline_augment(record: Record) -> Augmented:
    """Deterministic stand-ins for the LLM fields (simple version; see ``nationbias data augment``)."""
    text = context_for_prompt(record).text
    haystack = " ".join(filter(None, [record.title, record.agenda_item, record.topic, text])).lower()
    sentences = _sentences(text)
    actions = [s for s in sentences if re.search(r"\b(would have|demand|call|request|decide|urge)", s, re.I)]
    keywords = [kw for _, kw in keyword_pool() if kw in haystack]
    return Augmented(
        id=record.id,
        summary=" ".join(sentences[:2])[:600],
        action_items=" ".join(actions[:3])[:600],
        region=record.region,
        target_nations=[],
        keywords=keywords,
    )


def augmented_for(corpus: Corpus) -> dict[str, Augmented]:
    """Augmented fields for every record of ``corpus``, by id."""
    return {record.id: offline_augment(record) for record in corpus.records}
