"""The provider registry is the one list of providers: the spec parser, the model listing, the
error message and key redaction all read it, so a provider added with one ``register`` line is
parsed, listed and redacted without another file changing."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from nationbias.graphs.model.client import ModelClient
from nationbias.graphs.model.providers import PROVIDERS, ModelSpecError, register
from nationbias.graphs.model.providers.base import Provider, require
from nationbias.graphs.model.providers.compatible import Compatible
from nationbias.graphs.model.redact import describe, redact
from nationbias.graphs.model.registry import get_chat_model, parse_spec, provider_status

TOY_SECRET = "toy-9f8e7d6c5b4a-not-shaped-like-any-key"


class Toy(Compatible):
    """An OpenAI-compatible service with its own key variable, as a user would add one."""

    name = "toy"
    describe = "a toy service"
    key_envs = ("TOY_SERVICE_TOKEN",)

    def key(self) -> str:
        return require(self.secret("TOY_SERVICE_TOKEN"), "TOY_SERVICE_TOKEN")


@pytest.fixture
def toy() -> Iterator[Provider]:
    yield register(Toy())  # the one line a new provider adds
    PROVIDERS.pop("toy")


def test_a_registered_providers_key_is_redacted_without_any_list_to_update(
    toy: Provider, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TOY_SERVICE_TOKEN", TOY_SECRET)
    error = RuntimeError(f"HTTP 401: invalid token {TOY_SECRET} for this model")
    text = describe(error)
    assert TOY_SECRET not in text and "[redacted]" in text
    assert TOY_SECRET not in redact(f"x {TOY_SECRET} y")


def test_without_the_registry_line_the_same_key_is_not_known(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOY_SERVICE_TOKEN", TOY_SECRET)
    assert TOY_SECRET in redact(f"x {TOY_SECRET} y")  # what the registry line buys


def test_a_registered_provider_parses_lists_and_checks_its_key(
    toy: Provider, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TOY_SERVICE_TOKEN", raising=False)
    monkeypatch.delenv("NATIONBIAS_BASE_URL", raising=False)
    spec = parse_spec("toy:m1", base_url="http://127.0.0.1:9/v1")
    assert spec.provider == "toy" and spec.base_url == "http://127.0.0.1:9/v1"
    assert "toy" in [row["provider"] for row in provider_status()]
    with pytest.raises(ModelSpecError, match="TOY_SERVICE_TOKEN is not set"):
        ModelClient(spec=spec).provider.key()


def test_fake_is_usable_but_never_offered(monkeypatch: pytest.MonkeyPatch) -> None:
    assert "fake" not in [row["provider"] for row in provider_status()]
    with pytest.raises(ModelSpecError) as caught:
        parse_spec("acme:m")
    assert "fake" not in str(caught.value) and "openai-compatible" in str(caught.value)
    assert type(get_chat_model("fake:favour")).__name__ == "FakeChatModel"


def test_each_provider_owns_its_output_format_and_model_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-real")
    schema: dict[str, Any] = {"type": "object", "properties": {"v": {"type": "string", "maxLength": 3}}}
    openai = ModelClient.from_spec("openai:o3-mini")
    fmt = openai.response_format(schema, "vote")
    assert fmt is not None and fmt["type"] == "json_schema" and "maxLength" not in str(fmt)
    params = openai.provider.request_params(openai.spec, {"temperature": 0, "max_tokens": 9}, reasoning=True)
    assert params == {"max_completion_tokens": 9}
    together = parse_spec("together:deepseek-ai/DeepSeek-R1")
    assert PROVIDERS["together"].response_format(together, schema, "vote") is None
    compatible = parse_spec("openai-compatible:m", base_url="http://127.0.0.1:9/v1")
    assert PROVIDERS["openai-compatible"].response_format(compatible, schema, "vote") == {
        "type": "json_object",
        "schema": schema,
    }
