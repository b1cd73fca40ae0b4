"""The OpenAI Files + Batches endpoints (OpenAI, Together, vLLM-style servers that offer them).

Only what batch mode needs: upload an input file, create a batch, read it, list batches (to find
one whose id a kill kept from being recorded), download a file's content, and a probe that says
whether a server offers batches at all. Errors are typed as the chat transport's (graphs/model/retry.py).
Which server and which file purpose are the provider's (``Provider.batch_base``, ``batch_purpose``).
"""

from __future__ import annotations

import json
from typing import Any

import aiohttp

from nationbias.graphs.model.batch.calls import ENDPOINT_PATH, Endpoint
from nationbias.graphs.model.http import server_message
from nationbias.graphs.model.providers import PROVIDERS, ModelSpec
from nationbias.graphs.model.retry import ConnectionFailed, status_error
from nationbias.stores.errors import InputError

COMPLETION_WINDOW = "24h"


def _batch(data: dict[str, Any]) -> dict[str, Any]:
    """A batch object as OpenAI spells it (Together wraps it in ``job`` and shouts its status)."""
    batch = dict(data.get("job") or data)
    batch["status"] = str(batch.get("status") or "").lower()
    return batch


class BatchUnsupported(InputError):
    """``--batch`` with a provider or server that has no batch endpoint."""


def batch_providers() -> list[str]:
    """The registered providers that offer a batch endpoint."""
    return [name for name, provider in PROVIDERS.items() if provider.batch_purpose is not None]


def check_provider(provider: str) -> None:
    """Before anything is opened: a provider with no batch endpoint is bad input."""
    if PROVIDERS[provider].batch_purpose is None:
        offered = ", ".join(f"{name}:" for name in batch_providers())
        raise BatchUnsupported(
            f"--batch needs a provider with a batch endpoint ({offered}); {provider}: has none"
        )


class BatchClient:
    """One server's Files + Batches API on one event loop (an aiohttp session belongs to one)."""

    def __init__(self, endpoint: Endpoint, *, timeout: float = 120.0) -> None:
        check_provider(endpoint.provider)
        provider = PROVIDERS[endpoint.provider]
        spec = ModelSpec(endpoint.provider, endpoint.model, endpoint.base_url)
        self.base = provider.batch_base(spec).rstrip("/")
        self.purpose = str(provider.batch_purpose)
        headers = {"Authorization": f"Bearer {provider.key()}", **provider.headers()}
        self._session = aiohttp.ClientSession(headers=headers, timeout=aiohttp.ClientTimeout(total=timeout))

    async def __aenter__(self) -> BatchClient:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self._session.close()

    async def _send(self, method: str, path: str, **kwargs: Any) -> bytes:
        try:
            async with self._session.request(method, self.base + path, **kwargs) as response:
                payload = await response.read()
                if response.status >= 400:
                    message = server_message(response.status, response.reason, payload)
                    raise status_error(response.status, f"{method} {path}: {message}", {})
                return payload
        except aiohttp.ClientConnectionError as exc:
            raise ConnectionFailed(f"{method} {self.base}{path}: {type(exc).__name__}: {exc}") from exc

    async def _json(self, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(await self._send(method, path, **kwargs))
        return data

    async def probe(self) -> None:
        """Raise :class:`BatchUnsupported` when the server does not offer ``/batches``."""
        try:
            await self._send("GET", "/batches", params={"limit": "1"})
        except ConnectionFailed as exc:
            raise BatchUnsupported(f"--batch: cannot reach {self.base}/batches ({exc})") from None
        except Exception as exc:
            raise BatchUnsupported(
                f"--batch: {self.base} offers no batch endpoint (GET /batches: {exc}); "
                "run without --batch, or use `nationbias batch export` with an offline runner"
            ) from None

    async def upload(self, content: bytes, *, name: str) -> str:
        form = aiohttp.FormData()
        form.add_field("purpose", self.purpose)
        form.add_field("file", content, filename=name, content_type="application/jsonl")
        return str((await self._json("POST", "/files", data=form))["id"])

    async def create(self, input_file: str, *, metadata: dict[str, str]) -> dict[str, Any]:
        body = {
            "input_file_id": input_file,
            "endpoint": ENDPOINT_PATH,
            "completion_window": COMPLETION_WINDOW,
            "metadata": metadata,
        }
        return _batch(await self._json("POST", "/batches", json=body))

    async def get(self, batch_id: str) -> dict[str, Any]:
        return _batch(await self._json("GET", f"/batches/{batch_id}"))

    async def find(self, metadata: dict[str, str], input_file: str | None) -> dict[str, Any] | None:
        """The batch made from ``input_file``, or created with exactly this metadata: a kill between
        creating a batch and recording its id must not make the round be submitted twice."""
        after: str | None = None
        while True:
            params = {"limit": "100", **({"after": after} if after else {})}
            page: Any = json.loads(await self._send("GET", "/batches", params=params))
            found = page if isinstance(page, list) else page.get("data") or []  # Together: a list
            for batch in map(_batch, found):
                meta = batch.get("metadata") or {}
                if (input_file and batch.get("input_file_id") == input_file) or (
                    meta and all(meta.get(k) == v for k, v in metadata.items())
                ):
                    return batch
            if isinstance(page, list) or not page.get("has_more") or not found:
                return None
            after = found[-1]["id"]

    async def content(self, file_id: str) -> bytes:
        return await self._send("GET", f"/files/{file_id}/content")
