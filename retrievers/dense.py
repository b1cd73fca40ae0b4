"""Dense retrieval: a persistent chromadb collection of MiniLM embeddings of the prompt-safe text.

The collection is named by a hash of the pool's ids and texts, so a pool is embedded once and every
later process reuses it; a changed pool gets a new collection. The leakage rule is pushed into the
query itself (a metadata filter on the date ordinal) and re-checked by :mod:`retrievers.base`.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import chromadb
from chromadb.api.models.Collection import Collection
from chromadb.config import Settings

from retrievers.base import PoolName, Precedent, Scored, pool_part, retrieve_per_part, split_pool
from retrievers.embeddings import OnnxMiniLM
from retrievers.text import pool_fingerprint, record_text
from stores.paths import home
from stores.records import Record

COLLECTION_PREFIX = "unsc-minilm"
_ADD_BATCH = 256


class DenseRetriever:
    """Cosine similarity of MiniLM embeddings, served by a persistent chromadb collection."""

    name = "dense"

    def __init__(
        self,
        *,
        path: str | os.PathLike[str] | None = None,
        embedder: OnnxMiniLM | None = None,
        oversample: int = 8,
    ) -> None:
        self.path = Path(path) if path is not None else home() / "chroma"
        self.embedder = embedder or OnnxMiniLM()
        self.oversample = oversample  # extra results fetched so ties can be broken deterministically
        self._client: Any = None
        self._collections: dict[tuple[str, ...], Collection] = {}

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
        collection = self.client.get_or_create_collection(
            name=name, embedding_function=self.embedder, configuration={"hnsw": {"space": "cosine"}}
        )
        if collection.count() != len(records):
            self.client.delete_collection(name)
            collection = self.client.create_collection(
                name=name, embedding_function=self.embedder, configuration={"hnsw": {"space": "cosine"}}
            )
            self._add(collection, records)
        self._collections[key] = collection
        return collection

    def collection_name(self, records: Sequence[Record]) -> str:
        """Named by the pool's ids and texts, the model and the token limit: any change, a new index."""
        model = f"{self.embedder.name()}:{Path(self.embedder.model_path).name}:{self.embedder.max_tokens}"
        embedder = hashlib.sha256(model.encode()).hexdigest()[:8]
        return f"{COLLECTION_PREFIX}-{pool_fingerprint(records)}-{embedder}"

    def _add(self, collection: Collection, records: list[Record]) -> None:
        for start in range(0, len(records), _ADD_BATCH):
            batch = records[start : start + _ADD_BATCH]
            texts = [record_text(record) for record in batch]
            collection.add(
                ids=[record.id for record in batch],
                documents=texts,
                embeddings=self.embedder(texts),
                metadatas=[
                    {
                        "date_ord": record.date.toordinal(),
                        "pool": pool_part(record) or "",
                        "kind": record.kind,
                    }
                    for record in batch
                ],
            )

    def _query_embedding(self, collection: Collection, target: Record) -> Any:
        """The target's stored embedding when it is in the collection (no re-embedding), else a fresh one."""
        stored = collection.get(ids=[target.id], include=["embeddings", "documents"])
        documents = stored.get("documents") or []
        embeddings = stored.get("embeddings")
        if embeddings is not None and len(embeddings) and documents and documents[0] == record_text(target):
            return embeddings[0]
        return self.embedder([record_text(target)])[0]

    def rank(
        self, target: Record, pool: Sequence[Record], part: PoolName, candidates: Sequence[Record], depth: int
    ) -> list[Scored]:
        """The ``depth`` nearest earlier items of one pool part (cosine similarity, higher is closer)."""
        collection = self.collection(pool)
        by_id = {record.id: record for record in candidates}
        if not by_id or depth <= 0:
            return []
        where: Any = {"$and": [{"date_ord": {"$lt": target.date.toordinal()}}, {"pool": part}]}
        result = collection.query(
            query_embeddings=[self._query_embedding(collection, target)],
            n_results=min(len(by_id), depth + self.oversample),
            where=where,
            include=["distances"],
        )
        ids = result["ids"][0]
        distances = (result.get("distances") or [[]])[0]
        scored = []
        for record_id, distance in zip(ids, distances, strict=True):
            if record_id == target.id or record_id not in by_id:
                continue
            similarity = round(1.0 - float(distance), 6)
            scored.append(
                Scored(by_id[record_id], similarity, f"cosine similarity {similarity:.3f} (MiniLM)")
            )
        return scored

    def retrieve(self, target: Record, pool: Sequence[Record], k: int) -> list[Precedent]:
        def rank(part: PoolName, candidates: list[Record]) -> list[Scored]:
            return self.rank(target, pool, part, candidates, k)

        return retrieve_per_part(target, pool, k, rank)
