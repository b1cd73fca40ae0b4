"""What the OpenAI-wire providers share: a wire client per loop, and ChatOpenAI for user graphs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from nationbias.graphs.model.providers.base import ChatTransport, ModelSpec, Provider
from nationbias.graphs.model.retry import RetryPolicy

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel


def langchain_http(params: dict[str, Any], policy: RetryPolicy | None) -> dict[str, Any]:
    """A model's own HTTP clients, with ``policy`` in them (retrying_http.py; None: the caller
    retries): langchain-openai otherwise shares one per base URL across the process, whose pooled
    connections die with the first loop ("Event loop is closed" on a second ``asyncio.run``)."""
    from nationbias.graphs.model.providers.retrying_http import retrying_clients

    return {**params, **retrying_clients(policy)}


class OpenAIWire(Provider):
    """Speaks the OpenAI chat-completions protocol: asked through a wire client, not LangChain."""

    direct = True
    batch_purpose = "batch"  # OpenAI's Files + Batches API; a server of one's own may lack it

    def batch_base(self, spec: ModelSpec) -> str:
        from nationbias.graphs.model.http import OPENAI_BASE_URL  # aiohttp: loaded when used

        return self.endpoint(spec) or OPENAI_BASE_URL

    def transport(self, spec: ModelSpec, *, timeout: float) -> ChatTransport:
        """The wire client; for a spec with replicas, a pool of one per server (graphs/model/endpoints.py)."""
        if not spec.replicas:
            return self.wire_client(self.endpoint(spec), timeout=timeout)
        from nationbias.graphs.model.endpoints import EndpointPool

        return EndpointPool.of([self.wire_client(u, timeout=timeout) for u in spec.urls])

    def wire_client(self, base_url: str | None, *, timeout: float) -> ChatTransport:
        """The aiohttp client of one server (graphs/model/http.py): faster than the openai SDK's own
        transport (benchmarks/transport.py)."""
        hint = " or ".join(self.key_envs) or "the server's API key"
        from nationbias.graphs.model.http import ChatCompletionsClient

        return ChatCompletionsClient(
            base_url=base_url,
            api_key=self.key(),
            timeout=timeout,
            headers=self.headers(),
            key_hint=hint,
        )

    def chat_model(
        self, spec: ModelSpec, params: dict[str, Any], *, policy: RetryPolicy | None
    ) -> BaseChatModel:
        from langchain_openai import ChatOpenAI

        kwargs = self.request_params(spec, langchain_http(params, policy), reasoning=spec.is_reasoning)
        return ChatOpenAI(
            model=spec.model,
            base_url=self.endpoint(spec),
            api_key=self.key(),  # type: ignore[arg-type]
            default_headers=self.headers() or None,
            max_retries=0,  # the project's policy is in the HTTP clients
            **kwargs,
        )
