"""Every setting nationbias reads from the environment, typed, in one place.

Read at the moment of use, so a variable a user or a test sets is seen without a restart. Building
the object costs ~5 ms, so :func:`settings` keeps the last one while the variables it reads are
unchanged (a scan of the environment, ~0.05 ms): a per-call reader such as the embedded worker's
module pays nothing. Keys are ``SecretStr``: printing the settings never shows them. A blank value
(``export X=``) is unset.
"""

from __future__ import annotations

import os
from typing import Any

from pydantic import AliasChoices, Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """``NATIONBIAS_*`` variables, plus the provider variables their SDKs also read."""

    model_config = SettingsConfigDict(
        env_prefix="NATIONBIAS_", extra="ignore", case_sensitive=False, frozen=True
    )

    home: str | None = None  # all state; stores/paths.py defaults it
    data: str | None = None  # a data folder replacing the packaged copy
    paper: str | None = None  # a paper-tables folder replacing the packaged copy
    base_url: str | None = None  # openai-compatible: the server
    api_key: SecretStr | None = None  # openai-compatible: the key, if the server wants one
    gguf: str | None = None  # the embedded model's GGUF file, replacing the wheel's
    llama_threads: str | None = None  # validated where used (graphs/model/embedded/local_model.py)
    llama_worker: str | None = None
    grace_s: str | None = None  # validated where used (graphs/study/halt.py)
    prices: str | None = None  # a price file over the packaged one (stores/prices.py)

    openai_api_key: SecretStr | None = Field(default=None, validation_alias="OPENAI_API_KEY")
    together_api_key: SecretStr | None = Field(default=None, validation_alias="TOGETHER_API_KEY")
    openai_base_url: str | None = Field(default=None, validation_alias="OPENAI_BASE_URL")
    openai_org_id: str | None = Field(
        default=None, validation_alias=AliasChoices("OPENAI_ORG_ID", "OPENAI_ORGANIZATION")
    )
    openai_project_id: str | None = Field(default=None, validation_alias="OPENAI_PROJECT_ID")

    @field_validator("*", mode="before")
    @classmethod
    def _blank_is_unset(cls, value: Any) -> Any:
        """``export X=`` (or spaces) means unset, as the shell user meant it."""
        if isinstance(value, str):
            value = value.strip()
            return value or None
        return value


def _names() -> frozenset[str]:
    """The upper-case variable names :class:`Settings` reads."""
    names: set[str] = set()
    for name, info in Settings.model_fields.items():
        alias = info.validation_alias
        if isinstance(alias, str):
            names.add(alias.upper())
        elif isinstance(alias, AliasChoices):
            names |= {str(choice).upper() for choice in alias.choices}
        else:
            names.add(f"NATIONBIAS_{name}".upper())
    return frozenset(names)


_NAMES = _names()
_LAST: tuple[tuple[tuple[str, str], ...], Settings] | None = None


def settings() -> Settings:
    """The settings as the environment has them now (the same frozen object while it is unchanged)."""
    global _LAST
    seen = tuple(sorted((k, v) for k, v in os.environ.items() if k.upper() in _NAMES))
    if _LAST is None or _LAST[0] != seen:
        _LAST = (seen, Settings())
    return _LAST[1]
