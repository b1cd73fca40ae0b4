"""Calls to the fault server from real clients, shared by its tests."""

from __future__ import annotations

from typing import Any

import httpx
import openai

from tests.support.fault_server import FaultServer

MESSAGES: list[Any] = [
    {"role": "system", "content": "You judge UN Security Council speeches."},
    {"role": "user", "content": "Which nation does the speaker favour?"},
]


def client_for(server: FaultServer, **kwargs: Any) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.base_url, api_key="sk-test", max_retries=0, **kwargs)


def ask(server: FaultServer, messages: list[Any] = MESSAGES, **kwargs: Any) -> str | None:
    with client_for(server) as client:
        reply = client.chat.completions.create(model="m", messages=messages, **kwargs)
    return reply.choices[0].message.content


def post(server: FaultServer, body: dict[str, Any], **headers: str) -> httpx.Response:
    with httpx.Client(timeout=5) as client:
        return client.post(f"{server.base_url}/chat/completions", json=body, headers=headers)
