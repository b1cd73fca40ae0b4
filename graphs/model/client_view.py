"""What batch mode and the cost meter read of a model client: its spec, parameters, provider, reasoning.

A protocol, so that the client (client.py) can call them and they can type what it hands them without
importing it back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from nationbias.graphs.model.providers import Provider
    from nationbias.graphs.model.providers.base import ModelSpec
    from nationbias.graphs.model.registry import GenerationParams


class ClientView(Protocol):
    """The parts of :class:`~nationbias.graphs.model.client.ModelClient` a call's seams read."""

    @property
    def spec(self) -> ModelSpec: ...

    @property
    def params(self) -> GenerationParams: ...

    @property
    def provider(self) -> Provider: ...

    @property
    def reasons(self) -> bool: ...
