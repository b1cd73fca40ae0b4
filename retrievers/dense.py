"""Dense retrieval: two MiniLM vectors per item, stored and indexed by chromadb: one of its prompt-safe
text, one of its subject line (``retrievers/text.py``); an item scores the better of the two cosines
with the target's same two vectors.

The collection is named by a hash of the pool's ids and texts, so a pool is embedded once and every
later process reuses it; a changed pool gets a new collection. A query is exact cosine similarity over
the pool's vectors read back from the collection once per process, each pool part sorted by date: the
leakage rule is then a prefix of that order (``searchsorted``), not chromadb's metadata pre-filter, which
cost ~0.9 s a query at 100k items because it materialises every allowed id. Exact search is also what
the approximate HNSW index can only approach, so no earlier item is ever missed.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import chromadb
import numpy as np
from chromadb.api.models.Collection import Collection
from chromadb.config import Settings

from nationbias.retrievers.base import (
    PoolName,
    Precedent,
    Scored,
    check_k,
    pool_part,
    pool_shape,
    precedents_from,
    select_top,
    split_pool,
)
from nationbias.retrievers.embeddings import OnnxMiniLM
from nationbias.retrievers.text import dense_subject_text, dense_text, pool_fingerprint
from nationbias.stores.config.paths import home
from nationbias.stores.records import Record

COLLECTION_PREFIX = "unsc-minilm2"
SUBJECT_SUFFIX = "#subject"  # the id of an item's subject vector: its own id and this
_ADD_BATCH = 256
_GET_BATCH = 5_000  # ids per read-back: chromadb turns each get into one SQLite query


@dataclass(frozen=True)
class DenseIndex:
    """The pool's unit vectors, each part's rows sorted by date so 'earlier than' is a prefix."""

    records: list[Record]
    position: dict[str, int]
    parts: dict[PoolName, slice]
    ordinals: np.ndarray  # each row's date ordinal, ascending within a part
    vectors: np.ndarray  # float32, one unit-norm row per record: its text
    subjects: np.ndarray  # float32, one unit-norm row per record: its subject line


class DenseRetriever:
    """Cosine similarity of MiniLM embeddings kept in a persistent chromadb collection."""

    name = "dense"

    def __init__(
        self, *, path: str | os.PathLike[str] | None = None, embedder: OnnxMiniLM | None = None
    ) -> None:
        self.path = Path(path) if path is not None else home() / "chroma"
        self.embedder = embedder or OnnxMiniLM()
        self._client: Any = None
        self._collections: dict[tuple[str, ...], Collection] = {}
        self._indexes: dict[tuple[str, ...], DenseIndex] = {}
        self._last: tuple[Sequence[Record], tuple[int, str, str], DenseIndex] | None = None

    @property
    def client(self) -> Any:
        if self._client is None:
            self.path.mkdir(parents=True, exist_ok=True)
            settings = Settings(anonymized_telemetry=False, allow_reset=False)
            self._client = chromadb.PersistentClient(path=str(self.path), settings=settings)
        return self._client

    def collection(self, pool: Sequence[Record]) -> Collection:
        """The pool's collection: opened if it exists with the right count, else (re)built and embedded."""
        records = [record for part in split_pool(pool).values() for record in part]
        key = tuple(record.id for record in records)
        if key in self._collections:
            return self._collections[key]
        name = self.collection_name(records)
        config: Any = {"hnsw": {"space": "cosine"}}
        collection = self.client.get_or_create_collection(
            name=name, embedding_function=self.embedder, configuration=config
        )
        if collection.count() != 2 * len(records):
            self.client.delete_collection(name)
            collection = self.client.create_collection(
                name=name, embedding_function=self.embedder, configuration=config
            )
            self._add(collection, records)
        self._collections[key] = collection
        return collection

    def collection_name(self, records: Sequence[Record]) -> str:
        """Named by the pool's ids and texts, the model and the token limit: any change, a new index."""
        model = f"{self.embedder.name()}:{Path(self.embedder.model_path).name}:{self.embedder.max_tokens}"
        embedder = hashlib.sha256(model.encode()).hexdigest()[:8]
        texts = pool_fingerprint(records, text=lambda r: f"{dense_text(r)}\x1d{dense_subject_text(r)}")
        return f"{COLLECTION_PREFIX}-{texts}-{embedder}"

    def _add(self, collection: Collection, records: list[Record]) -> None:
        for start in range(0, len(records), _ADD_BATCH):
            batch = records[start : start + _ADD_BATCH]
            texts = [dense_text(record) for record in batch]
            subjects = [dense_subject_text(record) for record in batch]
            metadatas: list[Any] = [
                {"date_ord": r.date.toordinal(), "pool": pool_part(r) or "", "kind": r.kind} for r in batch
            ]
            collection.add(
                ids=[record.id for record in batch] + [record.id + SUBJECT_SUFFIX for record in batch],
                documents=texts + subjects,
                embeddings=[*self.embedder(texts), *self.embedder(subjects)],
                metadatas=[{**m, "vector": "text"} for m in metadatas]
                + [{**m, "vector": "subject"} for m in metadatas],
            )

    def index(self, pool: Sequence[Record]) -> DenseIndex:
        """The pool's vectors in date order per part, read back from its collection once per process."""
        last = self._last
        if last is not None and last[0] is pool and last[1] == pool_shape(pool):  # the same list again
            return last[2]
        split = split_pool(pool)
        key = tuple(record.id for part in split.values() for record in part)
        if key not in self._indexes:
            collection = self.collection(pool)
            records: list[Record] = []
            parts: dict[PoolName, slice] = {}
            for name, part in split.items():
                parts[name] = slice(len(records), len(records) + len(part))
                records.extend(sorted(part, key=lambda r: (r.date, r.id)))
            rows: dict[str, np.ndarray] = {}
            ids = [i for r in records for i in (r.id, r.id + SUBJECT_SUFFIX)]
            for start in range(0, len(ids), _GET_BATCH):
                got = collection.get(ids=ids[start : start + _GET_BATCH], include=["embeddings"])
                rows.update(zip(got["ids"], np.asarray(got["embeddings"], dtype=np.float32), strict=True))
            vectors = _unit_rows([rows[record.id] for record in records])
            subjects = _unit_rows([rows[record.id + SUBJECT_SUFFIX] for record in records])
            self._indexes[key] = DenseIndex(
                records=records,
                position={record.id: i for i, record in enumerate(records)},
                parts=parts,
                ordinals=np.fromiter(
                    (r.date.toordinal() for r in records), dtype=np.int64, count=len(records)
                ),
                vectors=vectors,
                subjects=subjects,
            )
        self._last = (pool, pool_shape(pool), self._indexes[key])
        return self._indexes[key]

    def _query_vectors(self, index: DenseIndex, target: Record) -> tuple[np.ndarray, np.ndarray]:
        """The target's text and subject vectors: the stored ones when the pool holds the target with the
        same texts, else fresh embeddings."""
        at = index.position.get(target.id)
        texts = (dense_text(target), dense_subject_text(target))
        if at is not None and (dense_text(index.records[at]), dense_subject_text(index.records[at])) == texts:
            return index.vectors[at], index.subjects[at]
        text, subject = _unit_rows(self.embedder(list(texts)))
        return text, subject

    def best(self, target: Record, pool: Sequence[Record], k: int) -> dict[PoolName, list[Scored]]:
        """Per part, the ``k`` nearest items dated strictly before the target, best first."""
        check_k(k)
        if k == 0 or not pool:
            return {}
        index = self.index(pool)
        query, query_subject = self._query_vectors(index, target)
        cutoff = target.date.toordinal()
        best: dict[PoolName, list[Scored]] = {}
        for part, span in index.parts.items():
            end = span.start + int(np.searchsorted(index.ordinals[span], cutoff, side="left"))
            if end == span.start:
                continue
            scores = np.round(
                np.maximum(
                    index.vectors[span.start : end] @ query, index.subjects[span.start : end] @ query_subject
                ),
                6,
            )
            positions = np.arange(span.start, end)
            if len(positions) > k:  # keep the k-th best and every item tied with it
                kth = np.partition(scores, len(scores) - k)[len(scores) - k]
                positions = positions[scores >= kth]
            scored = [
                Scored(index.records[i], s, f"cosine similarity {s:.3f} (MiniLM, text or subject)")
                for i in positions
                if index.records[i].id != target.id
                for s in (float(scores[i - span.start]),)
            ]
            best[part] = select_top(scored, k)
        return best

    def retrieve(self, target: Record, pool: Sequence[Record], k: int) -> list[Precedent]:
        return precedents_from(self.best(target, pool, k))


def _unit_rows(rows: Sequence[Any]) -> np.ndarray:
    """The rows as a float32 matrix, each scaled to unit length."""
    if not len(rows):
        return np.empty((0, 0), dtype=np.float32)
    matrix = np.stack([np.asarray(row, dtype=np.float32) for row in rows])
    return matrix / np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
