"""The model providers, one module each; this registry is the one list of them.

A new provider: a module with a :class:`~graphs.providers.base.Provider` subclass, plus one
``register`` line below.
"""

from graphs.providers.base import PROVIDERS, ChatTransport, ModelSpec, ModelSpecError, Provider, register
from graphs.providers.compatible import Compatible
from graphs.providers.fake import Fake
from graphs.providers.local import Local
from graphs.providers.openai import OpenAI
from graphs.providers.together import Together

register(OpenAI())
register(Together())
register(Compatible())
register(Local())
register(Fake())

__all__ = ["PROVIDERS", "ChatTransport", "ModelSpec", "ModelSpecError", "Provider", "register"]
