"""The ASGI wire pieces of the fault server: reading a request, sending whole, broken or dropped
responses, and a loopback socket that queues connections before uvicorn accepts them."""

from __future__ import annotations

import asyncio
import json
import logging
import socket
from collections.abc import Awaitable, Callable, MutableMapping, Sequence
from typing import Any

import uvicorn

HOST = "127.0.0.1"

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

_DROP_LOG = "ASGI callable returned without completing response."


def parse_body(raw: bytes) -> tuple[dict[str, Any], str | None]:
    """The request body and, if it cannot be served, why (streaming is deliberately unsupported)."""
    try:
        body = json.loads(raw)
    except ValueError:
        return {}, "request body is not valid JSON"
    if not isinstance(body, dict):
        return {}, "request body must be a JSON object"
    messages = body.get("messages")
    if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
        return body, "'messages' must be a list of objects"
    if body.get("stream"):
        return body, "stream=true is not supported by the fault server"
    return body, None


def error(message: str, code: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": code, "param": None, "code": code}}


async def read_body(receive: Receive) -> bytes:
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            break
    return b"".join(chunks)


async def until_disconnect(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


async def send_bytes(
    send: Send, status: int, body: bytes, headers: Sequence[tuple[bytes, bytes]] = ()
) -> None:
    """One complete response; Content-Length always matches the bytes actually sent."""
    base = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": [*base, *headers]})
    await send({"type": "http.response.body", "body": body, "more_body": False})


async def send_json(
    send: Send, status: int, payload: object, headers: Sequence[tuple[bytes, bytes]] = ()
) -> None:
    await send_bytes(send, status, json.dumps(payload).encode(), headers)


async def drop(send: Send) -> None:
    """Promise a body, then return without it: uvicorn closes the connection mid-response."""
    headers = [(b"content-type", b"application/json"), (b"content-length", b"1024")]
    await send({"type": "http.response.start", "status": 200, "headers": headers})


class HideDrops(logging.Filter):
    """Silences uvicorn's complaint about the connections :func:`_drop` cuts on purpose."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.getMessage() != _DROP_LOG


def quiet_uvicorn() -> None:
    logger = logging.getLogger("uvicorn.error")
    if not any(isinstance(f, HideDrops) for f in logger.filters):
        logger.addFilter(HideDrops())


def bind(port: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((HOST, port))
    sock.listen(1024)  # connections queue from now on, even before uvicorn starts accepting
    return sock


class PromptServer(uvicorn.Server):
    """uvicorn's server, looking at ``should_exit`` every 10 ms rather than every 100 ms: a test stops
    its server as it ends and waited up to a whole tick for it (0.05 s on average, once per server).
    Only the tick's length differs from ``uvicorn.Server.main_loop``; ``on_tick`` still refreshes
    the Date header every 10 ticks."""

    async def main_loop(self) -> None:
        counter = 0
        should_exit = await self.on_tick(counter)
        while not should_exit:
            counter = (counter + 1) % 864000
            await asyncio.sleep(0.01)
            should_exit = await self.on_tick(counter)
