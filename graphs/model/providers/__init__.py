"""The model providers, one module each; this registry is the one list of them.

A new provider is a module with a :class:`~nationbias.graphs.model.providers.base.Provider` subclass
(its settings, key, server, output format, batch endpoint, token counter and prices) plus one
``register`` line below. A package outside nationbias declares one ``nationbias.providers`` entry
point instead (graphs/model/providers/plugin.py, the module a plugin imports); installed ones are
registered when this package is imported. The worked example: tests/support/plugins/toy_provider.py,
shown end to end by tests/graphs/test_plugin_provider.py.
"""

from nationbias.graphs.model.providers.base import (
    PROVIDERS,
    ChatTransport,
    ModelSpec,
    ModelSpecError,
    Provider,
    register,
)
from nationbias.graphs.model.providers.compatible import Compatible
from nationbias.graphs.model.providers.fake import Fake
from nationbias.graphs.model.providers.local import Local
from nationbias.graphs.model.providers.openai import OpenAI
from nationbias.graphs.model.providers.together import Together

register(OpenAI())
register(Together())
register(Compatible())
register(Local())
register(Fake())

from nationbias.graphs.model.providers.plugin import register_installed  # noqa: E402  (after the built-ins)

register_installed()

__all__ = ["PROVIDERS", "ChatTransport", "ModelSpec", "ModelSpecError", "Provider", "register"]
