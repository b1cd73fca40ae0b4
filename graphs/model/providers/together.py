"""``together:<model>``: Together AI through LangChain's ChatTogether, key from ``TOGETHER_API_KEY``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from nationbias.graphs.model.providers.base import ModelSpec, Provider, require
from nationbias.graphs.model.providers.wire import langchain_http
from nationbias.graphs.model.retry import RetryPolicy
from nationbias.stores.settings import Settings

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel


class Together(Provider):
    name = "together"
    describe = "Together AI (ChatTogether)"
    key_envs = ("TOGETHER_API_KEY",)

    def key(self, cfg: Settings) -> str:
        return require(cfg.together_api_key, "TOGETHER_API_KEY")

    def chat_model(
        self, spec: ModelSpec, params: dict[str, Any], cfg: Settings, *, policy: RetryPolicy | None
    ) -> BaseChatModel:
        from langchain_together import ChatTogether

        kwargs = langchain_http(params, policy)
        return ChatTogether(model=spec.model, api_key=self.key(cfg), max_retries=0, **kwargs)  # type: ignore[arg-type]

    def response_format(self, spec: ModelSpec, schema: dict[str, Any], name: str) -> dict[str, Any] | None:
        """Together's reasoning models reject a JSON mode: the parser reads their free text."""
        return None if spec.is_reasoning else {"type": "json_object", "schema": schema}
