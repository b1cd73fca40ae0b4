"""A model provider from outside the package: ``toyai:<model>``, an OpenAI-wire service with batches.

Everything a provider has is here, in one module: its settings (``TOYAI_API_KEY``, ``TOYAI_BASE_URL``),
its key, its server, its batch endpoint and file purpose, its token counter and its list prices.
It imports only the public module for provider plugins (graphs/model/providers/plugin.py) and
registers by its entry point alone (``toyai = toy_provider:ToyAI`` under ``nationbias.providers``,
toy_provider-0.1.dist-info beside it), after which a spec ``toyai:<model>`` runs online, in batches,
under ``--max-cost`` and in a dry run like a built-in one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from pydantic import Field, SecretStr

from nationbias.graphs.model.providers.plugin import (
    EnvSettings,
    ModelSpec,
    OpenAIWire,
    TokenCounter,
    read_settings,
    require,
)


class ToySettings(EnvSettings):
    api_key: SecretStr | None = Field(default=None, validation_alias="TOYAI_API_KEY")
    base_url: str | None = Field(default=None, validation_alias="TOYAI_BASE_URL")


@dataclass(frozen=True)
class Words:
    """Toy AI bills by the word: one token a word, and two to frame each message."""

    name: str = "toy words"
    exact: bool = True

    def count_text(self, text: str) -> int:
        return len(text.split())

    def count(self, messages: list[dict[str, str]]) -> int:
        return sum(2 + self.count_text(m.get("content") or "") for m in messages)


class ToyAI(OpenAIWire):
    name = "toyai"
    describe = "Toy AI (a test plugin)"
    key_envs = ("TOYAI_API_KEY",)
    batch_purpose = "batch"
    prices: ClassVar[Mapping[str, tuple[float, float]]] = {"toy-large": (3.0, 6.0), "*": (0.5, 1.0)}

    def endpoint(self, spec: ModelSpec) -> str | None:
        return read_settings(ToySettings).base_url or "https://api.toyai.invalid/v1"

    def key(self) -> str:
        return require(read_settings(ToySettings).api_key, "TOYAI_API_KEY")

    def token_counter(self, spec: ModelSpec) -> TokenCounter:
        return Words()
