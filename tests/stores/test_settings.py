"""Settings come from one typed place, see a changed variable at once, and cost nothing when unchanged."""

from __future__ import annotations

import pytest

from nationbias.graphs.model.providers.openai import OpenAISettings
from nationbias.stores.config.settings import read_settings, settings


def test_a_changed_variable_is_seen_and_an_unchanged_environment_reuses_the_object(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("NATIONBIAS_GRACE_S", "7")
    first = settings()
    assert first.grace_s == "7" and settings() is first
    monkeypatch.setenv("NATIONBIAS_GRACE_S", "8")
    assert settings().grace_s == "8" and settings() is not first


def test_a_blank_value_is_unset_and_keys_never_print(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NATIONBIAS_HOME", "   ")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-value")
    current, openai = settings(), read_settings(OpenAISettings)  # the provider's own settings
    assert current.home is None
    assert openai.api_key is not None and "sk-secret-value" not in repr(openai)
    assert read_settings(OpenAISettings) is openai
    with pytest.raises(ValueError):  # shared between callers: frozen, so no caller can change another's view
        current.home = "elsewhere"
