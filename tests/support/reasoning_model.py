"""A reasoning model imitated by the fault server: a long ``<think>`` part, then the answer.

Like DeepSeek-R1 behind an OpenAI-compatible server, it spends its tokens on reasoning first: a
word is a token, and a request whose budget (``max_tokens`` or ``max_completion_tokens``) is
smaller than the reasoning plus the answer gets the text cut at the budget with
``finish_reason: "length"``. The usage reports ``completion_tokens_details.reasoning_tokens``.
Every request body is kept, so a test sees the budget each call carried.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tests.support.fault_server import FaultConfig


def _budget(body: dict[str, Any]) -> int | None:
    value = body.get("max_completion_tokens", body.get("max_tokens"))
    return int(value) if isinstance(value, int) else None


@dataclass
class ReasoningImitator:
    """``answer(body)`` is the text after the reasoning; ``think_words`` the reasoning's length."""

    answer: Callable[[dict[str, Any]], str]
    think_words: int = 600
    show_think: bool = True  # False: the reasoning is hidden (o-series), only its token count shows
    bodies: list[dict[str, Any]] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def _words(self, body: dict[str, Any]) -> tuple[list[str], int]:
        think = [f"step{i}:" if i % 12 == 0 else "weighing" for i in range(self.think_words)]
        answer = self.answer(body).split(" ")
        if not self.show_think:
            return answer, len(answer) + self.think_words
        return ["<think>", *think, "</think>\n", *answer], len(answer) + self.think_words + 2

    def content(self, body: dict[str, Any]) -> str:
        with self._lock:
            self.bodies.append(body)
        words, total = self._words(body)
        budget = _budget(body)
        if budget is None or budget >= total:
            return " ".join(words)
        hidden = 0 if self.show_think else self.think_words
        return " ".join(words[: max(0, budget - hidden)])

    def finish(self, body: dict[str, Any], completion: dict[str, Any]) -> dict[str, Any]:
        _, total = self._words(body)
        budget = _budget(body)
        cut = budget is not None and budget < total
        used = min(total, budget) if budget is not None else total
        completion["choices"][0]["finish_reason"] = "length" if cut else "stop"
        usage = completion["usage"]
        usage["completion_tokens"] = used
        usage["total_tokens"] = usage["prompt_tokens"] + used
        usage["completion_tokens_details"] = {"reasoning_tokens": min(self.think_words, used)}
        return completion

    def config(self, **faults: Any) -> FaultConfig:
        return FaultConfig(responder=self.content, finisher=self.finish, **faults)

    def budgets(self) -> list[int | None]:
        """The budget each request carried, in arrival order."""
        with self._lock:
            return [_budget(body) for body in self.bodies]
