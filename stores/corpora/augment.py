"""The paper's augmented fields (summary, action items, region, target nations, keywords).

The paper generated them with GPT-4o-mini. Two augmenters share one interface: the LLM one
(``nationbias.graphs.augment``, any registered model) and :class:`OfflineAugmenter` (deterministic, no
model). ``nationbias data augment`` writes their output under ``NATIONBIAS_HOME``; retrievers read
it through :func:`augmented_for`, which falls back to the offline fields for anything missing.
Every field is built from prompt-safe text and checked by the leak guard: summaries go into
prompts.
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import json
import re
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Protocol

from pydantic import BaseModel, Field

from nationbias.stores.config.paths import home
from nationbias.stores.corpora.bundled import DataFile, paper_file
from nationbias.stores.corpora.corpus import Corpus
from nationbias.stores.corpora.countries import name_for, nations_in_text, to_iso3
from nationbias.stores.corpora.keywords import build_pool, phrases_in
from nationbias.stores.corpora.offline_fields import (
    RegionHints,
    action_items,
    summary,
    text_units,
    topic_keyword,
    without_authors,
)
from nationbias.stores.corpora.un_fields import key_phrases, un_nation_text, un_operative_text
from nationbias.stores.corpora.un_texts import un_texts_file
from nationbias.stores.domain import EXCLUDED_NATIONS
from nationbias.stores.errors import InputError
from nationbias.stores.guard.leak import context_for_prompt, strip_outcome_sentences, title_description
from nationbias.stores.records import Record


class Augmented(BaseModel):
    id: str
    summary: str = ""
    action_items: str = ""
    region: str | None = None
    target_nations: list[str] = Field(default_factory=list)
    keywords: list[str] = Field(default_factory=list)
    source: str = "offline"


@dataclass(frozen=True)
class AugmentFailure:
    """A record an augmenter could not do; it is retried on the next (resumed) run."""

    id: str
    error: str


class Augmenter(Protocol):
    source: str

    def augment(self, records: Sequence[Record]) -> Iterator[Augmented | AugmentFailure]: ...


def keyword_pool(file: DataFile | None = None) -> tuple[tuple[str, str], ...]:
    """``(category, keyword)`` pairs: the paper's 48-keyword pool by default."""
    return _read_pool(file or paper_file("keyword_pool.csv"))


@lru_cache(maxsize=4)
def _read_pool(file: DataFile) -> tuple[tuple[str, str], ...]:
    with file.open_text(newline="") as handle:
        return tuple((row["category"], row["keyword"]) for row in csv.DictReader(handle))


def corpus_texts(records: Iterable[Record]) -> list[str]:
    """The text the paper mined keywords from: what each item would do (never the press excerpt)."""
    return [context_for_prompt(r).text for r in records] + [r.title for r in records if r.title]


def target_nations(texts: Iterable[str | None]) -> list[str]:
    """States named in the texts, as display names; never "Member States" or "United Nations"."""
    codes: list[str] = []
    for text in texts:
        codes += [c for c in nations_in_text(text or "") if c not in codes]
    return [name for name in (name_for(c) for c in codes) if name not in EXCLUDED_NATIONS]


def make_safe(augmented: Augmented, record: Record) -> Augmented:
    """Strip outcome sentences from the free-text fields and map nations through the country library."""
    summary, _ = strip_outcome_sentences(augmented.summary, record=record)
    actions, _ = strip_outcome_sentences(augmented.action_items, record=record)
    codes = dict.fromkeys(c for c in map(to_iso3, augmented.target_nations) if c)
    nations = [name_for(code) for code in codes]
    update = {"summary": summary, "action_items": actions, "target_nations": nations}
    return augmented.model_copy(update=update)


def _title(record: Record) -> str | None:
    return title_description(record.title) if record.title else None


def offline_augment(
    record: Record,
    *,
    corpus_keywords: Sequence[str] = (),
    regions: RegionHints | None = None,
    pool: Sequence[str] | None = None,
) -> Augmented:
    """Deterministic stand-ins for the LLM fields, from prompt-safe text only.

    Where the UN's own text of the item exists (``stores/corpora/un_fields.py``), every field is drawn from
    it, operative paragraphs first: the nations it names, the paper's keywords it holds and its YAKE key
    phrases; never the agenda item's or title's words. Elsewhere the press description or fall-back text,
    with the title, agenda item and topic, as before.

    ``regions``: hints learnt from the corpus for a record without a region (see ``offline_fields``).
    ``pool``: the paper's keywords, read once by a caller doing many records (default: read here).
    """
    pool = [kw for _, kw in keyword_pool()] if pool is None else pool
    un_text = un_operative_text(record)
    if un_text is not None:
        text = un_text
        pool_hits = phrases_in(text, pool)
        frequent = [k for k in phrases_in(text, corpus_keywords) if k not in pool_hits]
        topic = topic_keyword(record)  # the record's own tag, as for every item: not words of its text
        pooled = (pool_hits + frequent)[:10]  # as many of the pools' phrases as any other item carries
        keywords = list(dict.fromkeys(([topic] if topic else []) + pooled + list(key_phrases(text))))
        nations = target_nations([un_nation_text(record)])
    else:
        text = context_for_prompt(record).text
        haystack = " \n".join(filter(None, [record.title, record.agenda_item, record.topic, text]))
        pool_hits = phrases_in(haystack, pool)
        frequent = [k for k in phrases_in(haystack, corpus_keywords) if k not in pool_hits]
        nations = target_nations([record.title, record.agenda_item, record.topic, without_authors(text)])
        topic = topic_keyword(record)
        keywords = ([topic] if topic else []) + (pool_hits + frequent)[:10]
    sentences = text_units(text)
    augmented = Augmented(
        id=record.id,
        summary=summary(record, sentences, nations, title=_title(record))[:600],
        action_items=action_items(sentences)[:600],
        region=regions.region_for(record, nations) if regions else record.region,
        target_nations=nations,
        keywords=keywords,
    )
    return make_safe(augmented, record)


def nations_of(record: Record) -> list[str]:
    """The states an item names, as :func:`offline_augment` reads them (for the region hints)."""
    if un_operative_text(record) is not None:
        return target_nations([un_nation_text(record)])
    text = without_authors(context_for_prompt(record).text)
    return target_nations([record.title, record.agenda_item, record.topic, text])


class OfflineAugmenter:
    """Region from the record (else learnt from the corpus), nations from the country library,
    keywords from the pools plus the item's topic, or from the item's UN text where it exists."""

    source = "offline"

    def __init__(self, corpus: Corpus) -> None:
        self.corpus_keywords = [e.keyword for e in build_pool(corpus_texts(corpus.records))]
        records = corpus.records
        self.regions = RegionHints.learn(records, {r.id: nations_of(r) for r in records})
        self.pool = [kw for _, kw in keyword_pool()]

    def augment(self, records: Sequence[Record]) -> Iterator[Augmented | AugmentFailure]:
        for record in records:
            yield offline_augment(
                record, corpus_keywords=self.corpus_keywords, regions=self.regions, pool=self.pool
            )


def derived_dir() -> Path:
    path = home() / "derived"
    # On a read-only home there is nothing derived to read, and a write names its file and the cause.
    with contextlib.suppress(OSError):
        path.mkdir(parents=True, exist_ok=True)
    return path


def _manifest() -> Path:
    return derived_dir() / "augmented.json"


def augmented_path(source: str) -> Path:
    return derived_dir() / f"augmented-{re.sub(r'[^A-Za-z0-9._-]+', '_', source)}.jsonl"


def read_augmented(path: Path) -> dict[str, Augmented]:
    if not path.is_file():
        return {}
    with path.open(encoding="utf-8") as handle:
        return {a.id: a for a in (Augmented.model_validate_json(line) for line in handle if line.strip())}


@dataclass
class AugmentRun:
    path: Path
    written: int = 0
    reused: int = 0
    failures: list[AugmentFailure] = field(default_factory=list)


def write_augmented(corpus: Corpus, augmenter: Augmenter, *, limit: int | None = None) -> AugmentRun:
    """Append the augmenter's output to its derived file, skipping ids already done (resumable).

    ``limit`` augments at most that many of the records not done yet: a trial before paying for all.

    Each line is flushed as it comes, so an interrupted run loses nothing; the manifest that makes
    :func:`augmented_for` use the file is written at the end.
    """
    path = augmented_path(augmenter.source)
    done = read_augmented(path)
    todo = [r for r in corpus.records if r.id not in done]
    if limit is not None:
        if limit < 1:
            raise InputError(f"--limit must be >= 1, got {limit}")
        todo = todo[:limit]
    run = AugmentRun(path=path, reused=len(done))
    with path.open("a", encoding="utf-8") as handle:
        for result in augmenter.augment(todo):
            if isinstance(result, AugmentFailure):
                run.failures.append(result)
                continue
            handle.write(result.model_dump_json() + "\n")
            handle.flush()
            run.written += 1
    manifest = {
        "path": path.name,
        "source": augmenter.source,
        "corpus_sha256": corpus.sha256,
        "prompt": getattr(augmenter, "prompt", None),  # the LLM augmenter's template ref; none offline
    }
    tmp = _manifest().with_suffix(".tmp")
    tmp.write_text(json.dumps(manifest, indent=1), encoding="utf-8")
    tmp.replace(_manifest())
    return run


def augmented_for(corpus: Corpus) -> dict[str, Augmented]:
    """Augmented fields for every record of ``corpus``, by id.

    The file named by the manifest is used when it was made for this very corpus; records it lacks
    (and every record, without one) get the offline fields.
    """
    manifest = _manifest()
    stamp = augmented_stamp(corpus, manifest)
    if stamp in _CACHE:
        _CACHE.move_to_end(stamp)
        return dict(_CACHE[stamp])
    stored: dict[str, Augmented] = {}
    if manifest.is_file():
        meta = json.loads(manifest.read_text(encoding="utf-8"))
        if meta.get("corpus_sha256") == corpus.sha256:
            stored = read_augmented(derived_dir() / meta["path"])
    # Offline fields depend on the records alone (in order), so a loaded corpus's are also those of
    # the same records made in memory (a keyword retriever's pool of the whole corpus): a second key
    # by the records' content lets either find what the other computed, instead of seconds again.
    by_content: Stamp | None = None
    if not stored:
        by_content = (_fingerprint(corpus.records), *stamp[1:]) if corpus.sha256 else stamp
    if by_content is not None and by_content in _CACHE:
        by_id = _CACHE[by_content]
    else:
        missing = [r for r in corpus.records if r.id not in stored]
        if missing:
            offline = OfflineAugmenter(corpus)
            for result in offline.augment(missing):
                if isinstance(result, Augmented):
                    stored[result.id] = result
        by_id = {r.id: stored[r.id] for r in corpus.records}
    for key in dict.fromkeys(k for k in (by_content, stamp) if k is not None):
        _CACHE[key] = by_id
        _CACHE.move_to_end(key)
    while len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return dict(by_id)


Stamp = tuple[str, str, int, int, tuple[tuple[str, str], ...], str]


def augmented_stamp(corpus: Corpus, manifest: Path | None = None) -> Stamp:
    """What :func:`augmented_for` of ``corpus`` depends on: equal stamps, equal fields (and equal
    results of anything computed from the records and their fields, as the learned baseline's fits).

    Without a manifest the fields are the offline ones wherever the manifest would have been, so its
    path counts only when it exists (a new NATIONBIAS_HOME then reuses what an earlier one computed)."""
    manifest = manifest or _manifest()
    present = manifest.is_file()
    return (
        corpus.sha256 or _fingerprint(corpus.records),  # a corpus made in memory: its records' content
        str(manifest) if present else "",
        manifest.stat().st_mtime_ns if present else 0,
        len(corpus),
        keyword_pool(),  # the offline keywords come from the pool (NATIONBIAS_PAPER may name another)
        un_texts_file("en").stored,  # and from the UN's texts (NATIONBIAS_DATA may name other ones)
    )


def _fingerprint(records: Sequence[Record]) -> str:
    """A digest of every field of every record (about 15 ms for the 758; the offline fields take seconds)."""
    digest = hashlib.sha256()
    for record in records:
        digest.update(record.model_dump_json().encode())
        digest.update(b"\n")
    return digest.hexdigest()


# The offline fields of the last few corpora (a retriever's pool is a corpus made in memory, without a
# file's sha256): deterministic in the records, the pool and the manifest, so computed once per process.
_CACHE_SIZE = 16
_CACHE: OrderedDict[Stamp, dict[str, Augmented]] = OrderedDict()
