"""What a provider plugin imports: the classes it subclasses, the helpers it reads its settings with,
and how it registers.

A package outside nationbias adds a provider with one module and one entry point under
:data:`ENTRY_POINTS` (``toyai = "toy_provider:ToyAI"``: a :class:`Provider` subclass, or an
instance); the registry (graphs/model/providers/__init__.py) registers every installed one when it
is imported, so the spec parser, ``nationbias models``, batch mode and the cost meter see it as they
see a built-in. :func:`register` is the same step for a caller that holds the provider itself.
"""

from __future__ import annotations

from nationbias.graphs.model.cost.tokens import Estimate, TokenCounter
from nationbias.graphs.model.providers.base import (
    PROVIDERS,
    ModelSpec,
    ModelSpecError,
    Provider,
    register,
    require,
)
from nationbias.graphs.model.providers.wire import OpenAIWire
from nationbias.stores.config.entry_points import installed, load_entry
from nationbias.stores.config.settings import EnvSettings, read_settings
from nationbias.stores.errors import InputError

ENTRY_POINTS = "nationbias.providers"
"""An installed package's providers: ``name = "module:Class"`` lines, the name being the provider's."""

__all__ = [
    "ENTRY_POINTS",
    "EnvSettings",
    "Estimate",
    "ModelSpec",
    "ModelSpecError",
    "OpenAIWire",
    "Provider",
    "TokenCounter",
    "read_settings",
    "register",
    "register_installed",
    "require",
]


def register_installed() -> list[str]:
    """Register every provider an installed package names under :data:`ENTRY_POINTS` (a name already
    registered keeps its provider); the names added."""
    added = []
    for entry in installed(ENTRY_POINTS):
        if entry.name in PROVIDERS:
            continue
        found = load_entry(entry)
        provider = found() if isinstance(found, type) else found
        if not isinstance(provider, Provider):
            raise InputError(
                f"provider plugin {entry.name!r} ({entry.value!r}) is a {type(provider).__name__}, "
                "not a nationbias Provider"
            )
        if provider.name != entry.name:
            raise InputError(
                f"provider plugin {entry.name!r} ({entry.value!r}) names itself {provider.name!r}; "
                "the entry point's name must be the provider's"
            )
        register(provider)
        added.append(entry.name)
    return added
