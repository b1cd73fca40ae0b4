"""The debiased vote's own options (paper §7): how many precedents, reflexion, the retriever and its cut,
the recency preference. Each default is written here once; the CLI (evals/cli/run.py), the registered
test (evals/bias_tests/vote/tests.py) and the study plans read them. A light module: importing it loads
no graph library, so the CLI can read the defaults when it starts.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

from nationbias.retrievers.keyword import KEYWORD_THRESHOLD
from nationbias.retrievers.recency import DEFAULT_UNGA_HALFLIFE
from nationbias.stores.errors import InputError


@dataclass(frozen=True)
class DebiasOptions:
    k: int = 1
    reflexion: bool = True
    retriever: str = "keyword"
    threshold: float = KEYWORD_THRESHOLD
    # Years over which a precedent's retrieval score halves (retrievers/recency.py); 0 = no
    # preference; None = the body's default (the Assembly's 10 years, none on the Council).
    recency_halflife: float | None = None

    def __post_init__(self) -> None:
        if self.k < 0:
            raise InputError(f"k must be >= 0, got {self.k}")
        if self.recency_halflife is not None and not self.recency_halflife >= 0:
            raise InputError(f"--recency-halflife must be >= 0 years (0: none), got {self.recency_halflife}")

    def for_body(self, body: str) -> DebiasOptions:
        """These options with the recency preference settled for ``body``: what the run config records."""
        if self.recency_halflife is not None:
            return self
        return replace(self, recency_halflife=DEFAULT_UNGA_HALFLIFE if body == "unga" else 0.0)

    @property
    def recursion_limit(self) -> int:
        """retrieve + 3 nodes per precedent (k from each of two pools) + final, with headroom."""
        return 2 + 3 * 2 * self.k + 8

    @classmethod
    def defaults(cls) -> dict[str, Any]:
        """Every option's default, by name, in the order the fields are declared."""
        return {f.name: f.default for f in fields(cls)}
