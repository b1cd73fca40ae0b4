"""``openai:<model>``: the OpenAI API, key from ``OPENAI_API_KEY``."""

from __future__ import annotations

from typing import Any

from pydantic import AliasChoices, Field, SecretStr

from nationbias.graphs.model.cost.tokens import TokenCounter, openai_counter
from nationbias.graphs.model.providers.base import ModelSpec, require
from nationbias.graphs.model.providers.wire import OpenAIWire
from nationbias.stores.settings import EnvSettings, read_settings

_UNSUPPORTED_IN_STRICT = {"maxLength", "minLength", "minItems", "maxItems", "uniqueItems"}


def strict_schema(schema: Any) -> Any:
    """Drop the length bounds OpenAI's strict mode rejects (grammar-based servers honour them)."""
    if isinstance(schema, dict):
        return {k: strict_schema(v) for k, v in schema.items() if k not in _UNSUPPORTED_IN_STRICT}
    if isinstance(schema, list):
        return [strict_schema(v) for v in schema]
    return schema


class OpenAISettings(EnvSettings):
    """The variables the openai SDK reads."""

    api_key: SecretStr | None = Field(default=None, validation_alias="OPENAI_API_KEY")
    base_url: str | None = Field(default=None, validation_alias="OPENAI_BASE_URL")
    org_id: str | None = Field(
        default=None, validation_alias=AliasChoices("OPENAI_ORG_ID", "OPENAI_ORGANIZATION")
    )
    project_id: str | None = Field(default=None, validation_alias="OPENAI_PROJECT_ID")


class OpenAI(OpenAIWire):
    name = "openai"
    describe = "OpenAI API"
    key_envs = ("OPENAI_API_KEY",)

    def endpoint(self, spec: ModelSpec) -> str | None:
        return read_settings(OpenAISettings).base_url  # as the SDK reads it; None: api.openai.com

    def key(self) -> str:
        return require(read_settings(OpenAISettings).api_key, "OPENAI_API_KEY")

    def headers(self) -> dict[str, str]:
        """The organisation and project headers, from the variables the SDK reads."""
        own = read_settings(OpenAISettings)
        pairs = (("OpenAI-Organization", own.org_id), ("OpenAI-Project", own.project_id))
        return {header: value for header, value in pairs if value}

    def token_counter(self, spec: ModelSpec) -> TokenCounter:
        return openai_counter(spec.model)

    def request_params(self, spec: ModelSpec, params: dict[str, Any], *, reasoning: bool) -> dict[str, Any]:
        """Reasoning models (o-series) reject temperature and take max_completion_tokens."""
        if not reasoning:
            return params
        kwargs = dict(params)
        kwargs.pop("temperature", None)
        kwargs["max_completion_tokens"] = kwargs.pop("max_tokens", None)
        return kwargs

    def response_format(self, spec: ModelSpec, schema: dict[str, Any], name: str) -> dict[str, Any] | None:
        strict = strict_schema(schema)
        return {"type": "json_schema", "json_schema": {"name": name, "schema": strict, "strict": True}}
