"""The settings nationbias reads from the environment, typed: its own (``NATIONBIAS_*``) here, and the
way a provider module reads its own (graphs/model/providers/: ``OPENAI_API_KEY`` lives in openai.py).

Read at the moment of use, so a variable a user or a test sets is seen without a restart. Building
the object costs ~5 ms, so :func:`read_settings` keeps the last one of each class while the variables
it reads are unchanged (a scan of the environment, ~0.05 ms): a per-call reader such as the embedded
worker's module pays nothing. Keys are ``SecretStr``: printing the settings never shows them. A blank
value (``export X=``) is unset.
"""

from __future__ import annotations

import os
from typing import Any, TypeVar

from pydantic import AliasChoices, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class EnvSettings(BaseSettings):
    """Variables read case-insensitively into a frozen object, a blank value as unset; a provider's
    own settings subclass it (fields named by ``validation_alias``, or by ``env_prefix``)."""

    model_config = SettingsConfigDict(extra="ignore", case_sensitive=False, frozen=True)

    @field_validator("*", mode="before")
    @classmethod
    def _blank_is_unset(cls, value: Any) -> Any:
        """``export X=`` (or spaces) means unset, as the shell user meant it."""
        if isinstance(value, str):
            value = value.strip()
            return value or None
        return value


class Settings(EnvSettings):
    """The ``NATIONBIAS_*`` variables."""

    model_config = SettingsConfigDict(env_prefix="NATIONBIAS_")

    home: str | None = None  # all state; stores/config/paths.py defaults it
    data: str | None = None  # a data folder replacing the packaged copy
    paper: str | None = None  # a paper-tables folder replacing the packaged copy
    gguf: str | None = None  # the embedded model's GGUF file, replacing the wheel's
    llama_threads: str | None = None  # validated where used (graphs/model/embedded/local_model.py)
    llama_worker: str | None = None
    grace_s: str | None = None  # validated where used (graphs/study/halt.py)
    prices: str | None = None  # a price file over the packaged one (stores/config/prices.py)
    lease_stale_s: str | None = None  # validated where used (stores/state/lease.py)


S = TypeVar("S", bound=EnvSettings)


def _names(cls: type[EnvSettings]) -> frozenset[str]:
    """The upper-case variable names ``cls`` reads."""
    prefix = str(cls.model_config.get("env_prefix") or "")
    names: set[str] = set()
    for name, info in cls.model_fields.items():
        alias = info.validation_alias
        if isinstance(alias, str):
            names.add(alias.upper())
        elif isinstance(alias, AliasChoices):
            names |= {str(choice).upper() for choice in alias.choices}
        else:
            names.add(f"{prefix}{name}".upper())
    return frozenset(names)


_LAST: dict[type[EnvSettings], tuple[frozenset[str], tuple[tuple[str, str], ...], EnvSettings]] = {}


def read_settings(cls: type[S]) -> S:
    """``cls`` as the environment has it now (the same frozen object while its variables are unchanged)."""
    last = _LAST.get(cls)
    names = last[0] if last is not None else _names(cls)
    seen = tuple(sorted((k, v) for k, v in os.environ.items() if k.upper() in names))
    if last is None or last[1] != seen:
        last = _LAST[cls] = (names, seen, cls())
    current = last[2]
    assert isinstance(current, cls)
    return current


def settings() -> Settings:
    """nationbias's own settings as the environment has them now."""
    return read_settings(Settings)
