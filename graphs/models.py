"""The model registry: one spec string names any chat model.

=========================  ==========================================================
``openai:<model>``         ChatOpenAI; key from ``OPENAI_API_KEY``
``together:<model>``       ChatTogether; key from ``TOGETHER_API_KEY``
``openai-compatible:<m>``  any OpenAI-compatible server (vLLM, Ollama, llama.cpp);
                           ``--base-url`` / ``NATIONBIAS_BASE_URL``, optional ``NATIONBIAS_API_KEY``
``local:smollm2``          the embedded offline model (llama.cpp, in a worker process)
``fake:<behaviour>``       scripted, for graph-logic unit tests only
=========================  ==========================================================
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from langchain_core.language_models import BaseChatModel

from graphs.budget import is_reasoning_name
from stores.faults import RunFault

DEFAULT_MODEL = "local:smollm2"


class ModelSpecError(ValueError):
    """A model spec is malformed, names an unknown provider, or lacks its key or base URL."""


class BackendFatalError(RunFault):
    """A model backend that can answer nothing more (the embedded model's process died).

    Unlike a failed call, it is not recorded on the sample in flight: the client does not retry it,
    and the runner stops like for any run fault (what finished is kept, the summary line prints the
    command that resumes), so a rerun asks only what is missing.
    """


@dataclass(frozen=True)
class ModelSpec:
    provider: str
    model: str
    base_url: str | None = None

    def __str__(self) -> str:
        return f"{self.provider}:{self.model}"

    @property
    def is_embedded(self) -> bool:
        return self.provider == "local"

    @property
    def context_chars(self) -> int:
        """How much of a draft's text a prompt carries: the 135M demo model reads slowly (~200 tokens/s
        on 2 cores), so it gets a shorter excerpt; the prompt still says what kind of text it is."""
        return 1200 if self.is_embedded else 3000

    @property
    def is_reasoning(self) -> bool:
        """The name rule of graphs/budget.py; a client also learns it from the answers."""
        return is_reasoning_name(self.model)


@dataclass(frozen=True)
class Provider:
    name: str
    build: Callable[[ModelSpec, dict[str, Any]], BaseChatModel]
    key_env: str | None
    describe: str


def _key(env: str) -> str:
    value = os.environ.get(env, "").strip()
    if not value:
        raise ModelSpecError(f"{env} is not set: export {env}=... to use this provider")
    return value


def provider_key(spec: ModelSpec) -> str:
    """The API key a spec's provider uses (never logged, cached or stored)."""
    if spec.provider == "openai":
        return _key("OPENAI_API_KEY")
    if spec.provider == "together":
        return _key("TOGETHER_API_KEY")
    return os.environ.get("NATIONBIAS_API_KEY", "").strip() or "not-needed"


def openai_params(
    spec: ModelSpec, params: dict[str, Any], *, reasoning: bool | None = None
) -> dict[str, Any]:
    """OpenAI's reasoning models (o-series) reject temperature and take max_completion_tokens."""
    kwargs = dict(params)
    if spec.provider == "openai" and (spec.is_reasoning if reasoning is None else reasoning):
        kwargs.pop("temperature", None)
        kwargs["max_completion_tokens"] = kwargs.pop("max_tokens", None)
    return kwargs


def _build_openai(spec: ModelSpec, params: dict[str, Any]) -> BaseChatModel:
    from langchain_openai import ChatOpenAI

    kwargs = openai_params(spec, params)
    return ChatOpenAI(model=spec.model, api_key=_key("OPENAI_API_KEY"), max_retries=0, **kwargs)  # type: ignore[arg-type]


def _build_together(spec: ModelSpec, params: dict[str, Any]) -> BaseChatModel:
    from langchain_together import ChatTogether

    return ChatTogether(model=spec.model, api_key=_key("TOGETHER_API_KEY"), max_retries=0, **params)  # type: ignore[arg-type]


def _build_compatible(spec: ModelSpec, params: dict[str, Any]) -> BaseChatModel:
    from langchain_openai import ChatOpenAI

    if not spec.base_url:
        raise ModelSpecError(
            f"{spec} needs a server: pass --base-url http://HOST:PORT/v1 or set NATIONBIAS_BASE_URL"
        )
    key = os.environ.get("NATIONBIAS_API_KEY", "").strip() or "not-needed"
    return ChatOpenAI(model=spec.model, base_url=spec.base_url, api_key=key, max_retries=0, **params)  # type: ignore[arg-type]


def _build_local(spec: ModelSpec, params: dict[str, Any]) -> BaseChatModel:
    from graphs.local_model import LlamaCppChatModel, smollm2_path

    if spec.model != "smollm2":
        raise ModelSpecError(f"unknown embedded model {spec.model!r}: the only one is local:smollm2")
    smollm2_path()  # fail early and clearly if the wheel is missing
    allowed = {k: v for k, v in params.items() if k in {"temperature", "seed", "max_tokens"}}
    return LlamaCppChatModel(**allowed)


def _build_fake(spec: ModelSpec, params: dict[str, Any]) -> BaseChatModel:
    from graphs.fake_model import FakeChatModel

    return FakeChatModel(behaviour=spec.model)


PROVIDERS: dict[str, Provider] = {
    "openai": Provider("openai", _build_openai, "OPENAI_API_KEY", "OpenAI API (ChatOpenAI)"),
    "together": Provider("together", _build_together, "TOGETHER_API_KEY", "Together AI (ChatTogether)"),
    "openai-compatible": Provider(
        "openai-compatible", _build_compatible, None, "any OpenAI-compatible server via --base-url"
    ),
    "local": Provider("local", _build_local, None, "embedded SmolLM2-135M via llama.cpp (demo only)"),
    "fake": Provider("fake", _build_fake, None, "scripted model for graph-logic unit tests"),
}


def parse_spec(spec: str, *, base_url: str | None = None) -> ModelSpec:
    """Split ``provider:model``; raise :class:`ModelSpecError` with what is wrong."""
    if not isinstance(spec, str) or ":" not in spec:
        raise ModelSpecError(
            f"malformed model spec {spec!r}: expected PROVIDER:MODEL, "
            "e.g. openai:gpt-4o-mini or local:smollm2"
        )
    provider, _, model = spec.partition(":")
    provider, model = provider.strip().lower(), model.strip()
    if provider not in PROVIDERS:
        raise ModelSpecError(
            f"unknown provider {provider!r} in {spec!r}: choose one of {', '.join(PROVIDERS)}"
        )
    if not model:
        raise ModelSpecError(f"malformed model spec {spec!r}: the model name after ':' is empty")
    if provider == "openai-compatible":
        base_url = base_url or os.environ.get("NATIONBIAS_BASE_URL") or None
    else:
        base_url = None
    return ModelSpec(provider=provider, model=model, base_url=base_url)


@dataclass(frozen=True)
class GenerationParams:
    """Deterministic defaults: temperature 0, a fixed seed, a token cap and a timeout."""

    temperature: float = 0.0
    seed: int = 1234
    max_tokens: int = 512
    timeout: float = 120.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "temperature": self.temperature,
            "seed": self.seed,
            "max_tokens": self.max_tokens,
            "timeout": self.timeout,
        }


def check_ready(spec: ModelSpec) -> None:
    """Raise before any work starts if the provider cannot run (missing key or base URL)."""
    provider = PROVIDERS[spec.provider]
    if provider.key_env:
        _key(provider.key_env)
    if spec.provider == "openai-compatible" and not spec.base_url:
        _build_compatible(spec, {})
    if spec.provider == "local":
        _build_local(spec, {})
        from graphs.embedded_probe import ensure_embedded_works

        ensure_embedded_works()  # a llama.cpp build this CPU cannot run fails here, in a child process


def get_chat_model(spec: str, *, base_url: str | None = None, **params: Any) -> BaseChatModel:
    """Build the chat model a spec names, with deterministic defaults overridable by ``params``."""
    parsed = parse_spec(spec, base_url=base_url)
    merged = {**GenerationParams().as_dict(), **params}
    if parsed.provider == "local":
        merged.pop("timeout", None)
    return PROVIDERS[parsed.provider].build(parsed, merged)


def provider_status(*, recheck: bool = False) -> list[dict[str, str]]:
    """For ``nationbias models``: each provider and whether it is usable here (``recheck``: probe the
    embedded model again instead of using the remembered answer)."""
    rows = []
    for name, provider in PROVIDERS.items():
        if provider.key_env:
            usable = "yes" if os.environ.get(provider.key_env) else f"no: {provider.key_env} not set"
        elif name == "openai-compatible":
            usable = (
                "yes" if os.environ.get("NATIONBIAS_BASE_URL") else "needs --base-url or NATIONBIAS_BASE_URL"
            )
        elif name == "local":
            from graphs.embedded_probe import embedded_status

            usable = embedded_status(recheck=recheck)
        else:
            usable = "tests only"
        rows.append(
            {"provider": name, "spec": f"{name}:<model>", "usable": usable, "about": provider.describe}
        )
    return rows
