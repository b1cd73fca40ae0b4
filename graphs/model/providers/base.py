"""A model provider is one object: its settings and key, transport, output format, model rules, batch
endpoint, token counter, prices, status and close.

The registry (:data:`PROVIDERS`) is the only place that knows which providers exist: the spec
parser, ``nationbias models``, the redaction of keys, the model client, batch mode
(graphs/model/batch/api.py), the cost meter and the price table all read it, so a new provider (with
batch and cost) is one module plus one :func:`register` line (graphs/model/providers/__init__.py).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from pydantic import SecretStr

from nationbias.graphs.model.budget import is_reasoning_name
from nationbias.graphs.model.cost.tokens import Estimate, TokenCounter
from nationbias.stores.config.prices import Price, provide_prices
from nationbias.stores.errors import InputError
from nationbias.stores.state.sqlite import running_loop

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from nationbias.graphs.model.call_result import Answer
    from nationbias.graphs.model.retry import RetryPolicy


class ModelSpecError(InputError):
    """A model spec is malformed, names an unknown provider, or lacks its key or base URL."""


class ChatTransport(Protocol):
    """A wire client on one event loop (graphs/model/http.py)."""

    url: str

    async def complete(self, body: dict[str, Any], *, timeout: float | None = None) -> Answer: ...

    async def aclose(self) -> None: ...


@dataclass(frozen=True)
class ModelSpec:
    provider: str
    model: str
    base_url: str | None = None  # the server's URL: in the cache key and the run config
    replicas: tuple[str, ...] = ()  # more servers answering the same (graphs/model/endpoints.py)

    @property
    def urls(self) -> tuple[str, ...]:
        """Every endpoint calls may go to, the first one first."""
        return (self.base_url, *self.replicas) if self.base_url else self.replicas

    def __str__(self) -> str:
        return f"{self.provider}:{self.model}"

    @property
    def is_embedded(self) -> bool:
        return PROVIDERS[self.provider].embedded

    @property
    def context_chars(self) -> int:
        """How much of a draft's text a prompt carries: the 135M demo model reads slowly (~200 tokens/s
        on 2 cores), so it gets a shorter excerpt; the prompt still says what kind of text it is."""
        return 1200 if self.is_embedded else 3000

    @property
    def is_reasoning(self) -> bool:
        """The name rule of graphs/model/budget.py; a client also learns it from the answers."""
        return is_reasoning_name(self.model)


def require(value: SecretStr | None, env: str) -> str:
    """A key that must be set, or a :class:`ModelSpecError` that says how to set it."""
    if value is None or not value.get_secret_value().strip():
        raise ModelSpecError(f"{env} is not set: export {env}=... to use this provider")
    return value.get_secret_value().strip()


class Provider:
    """Defaults for a provider answered through LangChain, with no key and no structured-output rule.

    Subclasses set the class attributes and override what differs. ``direct`` providers are asked
    through :meth:`transport` (the study hot path); the others through :meth:`chat_model`. Each reads
    its own settings (an :class:`~nationbias.stores.config.settings.EnvSettings` of its variables) when asked.
    """

    name: ClassVar[str]
    describe: ClassVar[str]
    key_envs: ClassVar[tuple[str, ...]] = ()  # every variable holding a secret: redacted everywhere
    listed: ClassVar[bool] = True  # False: a test double, never offered to users
    embedded: ClassVar[bool] = False  # runs in this machine's process tree (no server, no key)
    direct: ClassVar[bool] = False
    # False: a --base-url given to it is refused (its own host only); one shared by several specs (a
    # study's models, a judge's fallback) is not passed to it (graphs/model/registry.py, shared_url)
    takes_base_url: ClassVar[bool] = True
    # the purpose its Files API wants for a batch input file; None: it offers no batch endpoint
    batch_purpose: ClassVar[str | None] = None
    batch_probe: ClassVar[bool] = False  # a server of one's own: ask it for /batches before a batch run
    # its own list prices, USD per 1M (prompt, completion) tokens by model name ("*": every model);
    # the packaged price table and the user's file win over them (stores/config/prices.py)
    prices: ClassVar[Mapping[str, tuple[float, float]]] = {}

    def base_url(self, given: str | None) -> str | None:
        """The server a spec names, kept in the spec (and the cache key); None: the provider's own."""
        return None

    def base_urls(self, given: tuple[str, ...]) -> tuple[str, ...]:
        """Every server a spec names (several: replicas); by default the one of :meth:`base_url`."""
        url = self.base_url(given[0] if given else None)
        return (url,) if url else ()

    def endpoint(self, spec: ModelSpec) -> str | None:
        """The base URL calls go to (None: the SDK's default)."""
        return spec.base_url

    def key(self) -> str:
        return "not-needed"

    def headers(self) -> dict[str, str]:
        """Headers every request carries besides the key (an organisation, a project)."""
        return {}

    def batch_base(self, spec: ModelSpec) -> str:
        """The base URL of its Files + Batches API (asked only when :attr:`batch_purpose` is set)."""
        raise NotImplementedError(f"{self.name} has no batch endpoint")

    def token_counter(self, spec: ModelSpec) -> TokenCounter:
        """How a prompt's tokens are counted before it is sent (graphs/model/cost/tokens.py)."""
        return Estimate()

    def price_key(self, model: str) -> str:
        """The key a model of this provider has in the price table (``*``: all of its models)."""
        return f"{self.name}:{model}"

    @staticmethod
    def secret(env: str) -> SecretStr | None:
        """A variable :class:`Settings` does not type (a provider's own), read as it is now."""
        value = os.environ.get(env, "").strip()
        return SecretStr(value) if value else None

    def secrets(self) -> list[str]:
        """The values to redact: every ``key_envs`` variable, read as it is now (not through
        :class:`Settings`, which types only the built-in providers' variables)."""
        return [os.environ.get(env, "").strip() for env in self.key_envs]

    def check_ready(self, spec: ModelSpec) -> None:
        """Raise :class:`ModelSpecError` before any work if this provider cannot run here."""
        self.key()

    def status(self, *, recheck: bool = False) -> str:
        """Whether it is usable here, for ``nationbias models``."""
        try:
            self.key()
        except ModelSpecError:
            return f"no: {' or '.join(self.key_envs)} not set"
        return "yes"

    def chat_model(
        self, spec: ModelSpec, params: dict[str, Any], *, policy: RetryPolicy | None
    ) -> BaseChatModel:
        """The LangChain model; ``policy``: retries inside it (None: the caller retries)."""
        raise NotImplementedError(f"{self.name} builds no LangChain model")

    def transport(self, spec: ModelSpec, *, timeout: float) -> ChatTransport:
        raise NotImplementedError(f"{self.name} has no wire client")

    def request_params(self, spec: ModelSpec, params: dict[str, Any], *, reasoning: bool) -> dict[str, Any]:
        """The generation parameters as this provider's API takes them."""
        return params

    def response_format(self, spec: ModelSpec, schema: dict[str, Any], name: str) -> dict[str, Any] | None:
        """How this provider constrains output to ``schema`` (None: it cannot; the parser copes)."""
        return {"type": "json_object", "schema": schema}

    async def close(self, held: Any) -> None:
        """Close what a client held on one loop: a transport, or a LangChain model's HTTP client."""
        closer = getattr(held, "aclose", None) or getattr(
            getattr(held, "http_async_client", None), "aclose", None
        )
        if closer is not None:
            await closer()


def per_loop(store: dict[int, tuple[object, Any]], build: Callable[[], Any]) -> Any:
    """One object per event loop (async HTTP clients die with theirs), kept beside the loop so a
    dead loop's reused ``id()`` is never mistaken for it."""
    loop = running_loop()
    entry = store.get(id(loop))
    if entry is None or entry[0] is not loop:
        entry = store[id(loop)] = (loop, build())
    return entry[1]


PROVIDERS: dict[str, Provider] = {}


def register(provider: Provider) -> Provider:
    """Add a provider to the registry (the one line a new provider needs), its prices under the table."""
    PROVIDERS[provider.name] = provider
    source = f"the {provider.name} provider (graphs/model/providers/)"
    provide_prices(
        {provider.price_key(model): Price(i, o, source) for model, (i, o) in provider.prices.items()}
    )
    return provider


@functools.cache
def counter_for(spec: ModelSpec) -> TokenCounter:
    """The token counter of the spec's provider, kept for the process (a tokenizer loads once)."""
    return PROVIDERS[spec.provider].token_counter(spec)


def listed() -> list[Provider]:
    """The providers offered to users (test doubles left out)."""
    return [p for p in PROVIDERS.values() if p.listed]


def key_values() -> list[str]:
    """Every registered provider's secret values, for redaction."""
    return [value for p in PROVIDERS.values() for value in p.secrets() if len(value) >= 4]
