"""``together:<model>``: Together AI through LangChain's ChatTogether, key from ``TOGETHER_API_KEY``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import Field, SecretStr

from nationbias.graphs.model.providers.base import ModelSpec, Provider, require
from nationbias.graphs.model.providers.wire import langchain_http
from nationbias.graphs.model.retry import RetryPolicy
from nationbias.stores.config.settings import EnvSettings, read_settings

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel


TOGETHER_BASE_URL = "https://api.together.xyz/v1"


class TogetherSettings(EnvSettings):
    api_key: SecretStr | None = Field(default=None, validation_alias="TOGETHER_API_KEY")


class Together(Provider):
    name = "together"
    describe = "Together AI (ChatTogether)"
    key_envs = ("TOGETHER_API_KEY",)
    batch_purpose = "batch-api"  # OpenAI's Files + Batches API, with its own file purpose

    def key(self) -> str:
        return require(read_settings(TogetherSettings).api_key, "TOGETHER_API_KEY")

    def batch_base(self, spec: ModelSpec) -> str:
        return TOGETHER_BASE_URL

    def chat_model(
        self, spec: ModelSpec, params: dict[str, Any], *, policy: RetryPolicy | None
    ) -> BaseChatModel:
        from langchain_together import ChatTogether

        kwargs = langchain_http(params, policy)
        return ChatTogether(model=spec.model, api_key=self.key(), max_retries=0, **kwargs)  # type: ignore[arg-type]

    def response_format(self, spec: ModelSpec, schema: dict[str, Any], name: str) -> dict[str, Any] | None:
        """Together's reasoning models reject a JSON mode: the parser reads their free text."""
        return None if spec.is_reasoning else {"type": "json_object", "schema": schema}
