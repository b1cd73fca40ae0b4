"""The request a model call sends: built here once, for the online call and its batch line alike.

``ModelClient`` (client.py) posts :func:`request_body` to ``/chat/completions``; batch mode
(batch/calls.py) writes the very same body into the batch file's line for that call, so an answer
from a batch is the answer to exactly the request an online run would have sent (its cache key
and its row are the same).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nationbias.graphs.model.client_view import ClientView


def call_options(fmt: dict[str, Any] | None, max_tokens: int | None) -> dict[str, Any]:
    """What one call adds to the client's parameters: its response format and its token cap."""
    options: dict[str, Any] = {"response_format": fmt} if fmt else {}
    if max_tokens is not None:
        options["max_tokens"] = max_tokens
    return options


def request_body(
    client: ClientView, messages: list[dict[str, str]], options: dict[str, Any]
) -> dict[str, Any]:
    """The chat-completions body: the model, the messages, and the client's generation parameters
    under the call's ``options`` (:func:`call_options`), as the provider's API takes them."""
    params = {k: v for k, v in client.params.as_dict().items() if k != "timeout"}
    return {
        "model": client.spec.model,
        "messages": messages,
        **client.provider.request_params(client.spec, {**params, **options}, reasoning=client.reasons),
    }
