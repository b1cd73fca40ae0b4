"""``openai:<model>``: the OpenAI API, key from ``OPENAI_API_KEY``."""

from __future__ import annotations

from typing import Any

from pydantic import AliasChoices, Field, SecretStr

from nationbias.graphs.model.cost.tokens import TokenCounter, openai_counter
from nationbias.graphs.model.providers.base import ModelSpec, ModelSpecError, require
from nationbias.graphs.model.providers.wire import OpenAIWire
from nationbias.stores.config.settings import EnvSettings, read_settings

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


OPENAI_HOST = "api.openai.com"
LOOPBACK = frozenset({"localhost", "127.0.0.1", "::1"})


def openai_base_url() -> str | None:
    """OPENAI_BASE_URL, honoured only for OpenAI's own host or this machine (a local proxy, a test
    server): another host would get OPENAI_API_KEY without the run saying so, so it is refused."""
    url = read_settings(OpenAISettings).base_url
    if not url or not url.strip():
        return None
    from urllib.parse import urlsplit

    from nationbias.graphs.model.breaker import display_url
    from nationbias.graphs.model.endpoints import check_url

    check_url(url.strip(), where="OPENAI_BASE_URL")
    host = urlsplit(url.strip()).hostname or ""
    if host != OPENAI_HOST and host not in LOOPBACK:
        raise ModelSpecError(
            f"OPENAI_BASE_URL is {display_url(url.strip())}: openai: sends OPENAI_API_KEY only to "
            f"{OPENAI_HOST} or this machine; for another server use openai-compatible:<model> with "
            "--base-url (its key: NATIONBIAS_API_KEY), or unset OPENAI_BASE_URL"
        )
    return url.strip()


class OpenAI(OpenAIWire):
    name = "openai"
    describe = "OpenAI API"
    key_envs = ("OPENAI_API_KEY",)

    takes_base_url = False

    def base_urls(self, given: tuple[str, ...]) -> tuple[str, ...]:
        """None: ``--base-url`` is refused, so OPENAI_API_KEY never goes to a host it was not meant for."""
        if given:
            from nationbias.graphs.model.breaker import display_url

            raise ModelSpecError(
                f"--base-url {display_url(given[0])} is not taken by openai: (it would send OPENAI_API_KEY "
                "there); for a server of your own use openai-compatible:<model> (its key: NATIONBIAS_API_KEY)"
            )
        return ()

    def endpoint(self, spec: ModelSpec) -> str | None:
        """OPENAI_BASE_URL as the SDK reads it, if it is OpenAI's or on this machine; None: api.openai.com."""
        return openai_base_url()

    def key(self) -> str:
        return require(read_settings(OpenAISettings).api_key, "OPENAI_API_KEY")

    def check_ready(self, spec: ModelSpec) -> None:
        openai_base_url()
        self.key()

    def status(self, *, recheck: bool = False) -> str:
        try:
            openai_base_url()
        except ModelSpecError:
            return "no: OPENAI_BASE_URL names a host other than api.openai.com or this machine"
        return super().status(recheck=recheck)

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
