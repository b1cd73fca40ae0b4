"""``fake:<behaviour>``: the scripted test double (graphs/model/fake.py); never listed to users."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from nationbias.graphs.model.providers.base import ModelSpec, Provider

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from nationbias.graphs.model.retry import RetryPolicy


class Fake(Provider):
    name = "fake"
    describe = "scripted model for graph-logic unit tests"
    listed = False

    def chat_model(
        self, spec: ModelSpec, params: dict[str, Any], *, policy: RetryPolicy | None
    ) -> BaseChatModel:
        from nationbias.graphs.model.fake import FakeChatModel

        return FakeChatModel(behaviour=spec.model)
