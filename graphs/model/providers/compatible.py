"""``openai-compatible:<model>``: any OpenAI-compatible server (vLLM, Ollama, llama.cpp's server).

The server from ``--base-url`` or ``NATIONBIAS_BASE_URL``; a key from ``NATIONBIAS_API_KEY`` if it
wants one. Several servers (replicas of one model: ``--base-url`` repeated, or a comma-separated
``NATIONBIAS_BASE_URL``) share the calls (graphs/model/endpoints.py).
"""

from __future__ import annotations

from pydantic import SecretStr
from pydantic_settings import SettingsConfigDict

from nationbias.graphs.model.providers.base import ModelSpec, ModelSpecError
from nationbias.graphs.model.providers.wire import OpenAIWire
from nationbias.stores.config.settings import EnvSettings, read_settings


class CompatibleSettings(EnvSettings):
    model_config = SettingsConfigDict(env_prefix="NATIONBIAS_")

    base_url: str | None = None  # the server, or several comma-separated
    api_key: SecretStr | None = None  # the key, if the server wants one


class Compatible(OpenAIWire):
    name = "openai-compatible"
    describe = "any OpenAI-compatible server via --base-url"
    key_envs = ("NATIONBIAS_API_KEY",)
    batch_probe = True  # vLLM offers /v1/batches, Ollama and llama.cpp's server do not

    def base_url(self, given: str | None) -> str | None:
        return given or read_settings(CompatibleSettings).base_url

    def base_urls(self, given: tuple[str, ...]) -> tuple[str, ...]:
        from nationbias.graphs.model.endpoints import (
            split_urls,  # graphs/model/endpoints.py imports the providers
        )

        return given or split_urls(read_settings(CompatibleSettings).base_url, source="NATIONBIAS_BASE_URL")

    def key(self) -> str:
        key = read_settings(CompatibleSettings).api_key
        return key.get_secret_value() if key else "not-needed"

    def check_ready(self, spec: ModelSpec) -> None:
        if not spec.base_url:
            raise ModelSpecError(
                f"{spec} needs a server: pass --base-url http://HOST:PORT/v1 or set NATIONBIAS_BASE_URL"
            )

    def status(self, *, recheck: bool = False) -> str:
        base_url = read_settings(CompatibleSettings).base_url
        if not base_url:
            return "needs --base-url or NATIONBIAS_BASE_URL"
        from nationbias.graphs.model.breaker import display_url
        from nationbias.graphs.model.endpoints import split_urls

        try:
            urls = split_urls(base_url, source="NATIONBIAS_BASE_URL")
        except ModelSpecError as exc:
            return f"no: {exc}"
        return f"yes: {len(urls)} endpoints, {', '.join(map(display_url, urls))}" if len(urls) > 1 else "yes"
