"""The model registry: one spec string names any chat model.

=========================  ==========================================================
``openai:<model>``         the OpenAI API; key from ``OPENAI_API_KEY``
``together:<model>``       Together AI (ChatTogether); key from ``TOGETHER_API_KEY``
``openai-compatible:<m>``  any OpenAI-compatible server (vLLM, Ollama, llama.cpp);
                           ``--base-url`` / ``NATIONBIAS_BASE_URL``, optional ``NATIONBIAS_API_KEY``
``local:smollm2``          the embedded offline model (llama.cpp, in a worker process)
=========================  ==========================================================

Each provider is one object in graphs/model/providers/ (its key, transport, output format, rules).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from nationbias.graphs.model.budget import DEFAULT_TIMEOUT_S
from nationbias.graphs.model.endpoints import BaseUrls, split_urls
from nationbias.graphs.model.providers import PROVIDERS, ModelSpec, ModelSpecError
from nationbias.graphs.model.providers.base import listed
from nationbias.graphs.model.retry import RetryPolicy

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel


def parse_spec(spec: str, *, base_url: BaseUrls = None) -> ModelSpec:
    """Split ``provider:model``; raise :class:`ModelSpecError` with what is wrong. ``base_url``: one
    URL, or several (replicas of one server, graphs/model/endpoints.py); the first is the spec's own."""
    if not isinstance(spec, str) or ":" not in spec:
        raise ModelSpecError(
            f"malformed model spec {spec!r}: expected PROVIDER:MODEL, "
            "e.g. openai:gpt-4o-mini or local:smollm2"
        )
    name, _, model = spec.partition(":")
    name, model = name.strip().lower(), model.strip()
    if name not in PROVIDERS:
        choices = ", ".join(p.name for p in listed())
        raise ModelSpecError(f"unknown provider {name!r} in {spec!r}: choose one of {choices}")
    if not model:
        raise ModelSpecError(f"malformed model spec {spec!r}: the model name after ':' is empty")
    urls = PROVIDERS[name].base_urls(split_urls(base_url))
    return ModelSpec(provider=name, model=model, base_url=urls[0] if urls else None, replicas=urls[1:])


def shared_url(spec: str, base_url: BaseUrls) -> BaseUrls:
    """``base_url`` for ``spec`` when it was given for several specs at once (a judge's fallback to the
    model's server, a translator's): None for a provider that takes none (``openai:``), which refuses one
    given to it alone (so its key never goes to the other's server)."""
    name = spec.partition(":")[0].strip().lower() if isinstance(spec, str) else ""
    provider = PROVIDERS.get(name)
    return None if provider is not None and not provider.takes_base_url else base_url


@dataclass(frozen=True)
class GenerationParams:
    """Deterministic defaults: temperature 0, a fixed seed, a token cap and a timeout."""

    temperature: float = 0.0
    seed: int = 1234
    max_tokens: int = 512
    timeout: float = DEFAULT_TIMEOUT_S

    def as_dict(self) -> dict[str, Any]:
        return {
            "temperature": self.temperature,
            "seed": self.seed,
            "max_tokens": self.max_tokens,
            "timeout": self.timeout,
        }


def check_ready(spec: ModelSpec) -> None:
    """Raise before any work starts if the provider cannot run (missing key or base URL)."""
    PROVIDERS[spec.provider].check_ready(spec)


def get_chat_model(
    spec: str, *, base_url: BaseUrls = None, retry: RetryPolicy | None = None, **params: Any
) -> BaseChatModel:
    """The LangChain chat model a spec names, for your own graphs: deterministic defaults
    (overridable by ``params``) and the studies' retry policy (graphs/model/retry.py) in its HTTP clients
    (``retry``: another policy)."""
    parsed = parse_spec(spec, base_url=base_url)
    if parsed.replicas:
        raise ModelSpecError(
            "get_chat_model takes one base URL; several replicas are for the studies' client"
        )
    merged = {**GenerationParams().as_dict(), **params}
    provider = PROVIDERS[parsed.provider]
    if provider.embedded:
        merged.pop("timeout", None)
    else:
        provider.check_ready(parsed)  # a missing key or server fails here, by name
    return provider.chat_model(parsed, merged, policy=retry or RetryPolicy())


def provider_status(*, recheck: bool = False) -> list[dict[str, str]]:
    """For ``nationbias models``: each provider offered to users and whether it is usable here
    (``recheck``: probe the embedded model again instead of using the remembered answer)."""
    return [
        {
            "provider": p.name,
            "spec": f"{p.name}:<model>",
            "usable": p.status(recheck=recheck),
            "about": p.describe,
        }
        for p in listed()
    ]
