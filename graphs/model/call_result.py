"""What one model call gives back: the answer as the wire has it, and the result a graph keeps."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from nationbias.graphs.model.answer_shape import (
    answer_cap,
    check_size,
    content_text,
    optional_text,
    shown,
    token_count,
    usage_counts,
)
from nationbias.graphs.model.retry import BrokenAnswer, CallError

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

_THINK = re.compile(r"<think>(.*?)(?:</think>|$)", re.DOTALL | re.IGNORECASE)


class Answer(NamedTuple):
    """One chat completion, whatever the transport."""

    raw: str
    reasoning: str | None  # provider-side reasoning text (``reasoning_content``)
    prompt_tokens: int
    completion_tokens: int
    finish_reason: str | None = None
    reasoning_tokens: int = 0


def answer_from_json(
    data: dict[str, Any], *, max_tokens: int | None = None, raw: str | None = None
) -> Answer:
    """An OpenAI chat-completion document as an :class:`Answer`, every field checked
    (graphs/model/answer_shape.py); a body without one is retried, with ``raw`` (the body as it came)
    kept on the error. ``max_tokens``: the budget the call was sent with, which caps the answer's size."""
    try:
        return _answer(data, max_tokens)
    except CallError as exc:
        if exc.raw is None and raw is not None:
            exc.raw = raw[: answer_cap(max_tokens)]
        raise


def _answer(data: dict[str, Any], max_tokens: int | None) -> Answer:
    try:
        choice = data["choices"][0]
        message = choice["message"]
    except (KeyError, IndexError, TypeError) as exc:
        raise BrokenAnswer(f"no choices[0].message in the response: {str(data)[:200]}") from exc
    if not isinstance(message, dict):
        raise BrokenAnswer(f"choices[0].message is {shown(message)}: not an object")
    text = content_text(message.get("content"))
    reasoning = optional_text(message.get("reasoning_content"), name="choices[0].message.reasoning_content")
    prompt_tokens, completion_tokens, reasoning_tokens = usage_counts(data.get("usage"))
    check_size(text + (reasoning or ""), max_tokens)
    return Answer(
        text,
        reasoning,
        prompt_tokens,
        completion_tokens,
        optional_text(choice.get("finish_reason"), name="choices[0].finish_reason"),
        reasoning_tokens,
    )


@dataclass
class CallResult:
    raw: str | None
    answer: str | None = None  # raw with any <think> block removed
    reasoning: str | None = None
    error: str | None = None
    latency_s: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached: bool = False
    attempts: int = 0
    finish_reason: str | None = None  # "length": the token budget ran out, the answer is cut off
    reasoning_tokens: int = 0
    max_tokens: int | None = None  # the budget this call was sent with (None: the client's default)

    @classmethod
    def from_answer(
        cls, reply: Answer, latency_s: float, attempts: int, max_tokens: int | None
    ) -> CallResult:
        answer, reasoning = split_reasoning(reply.raw, reply.reasoning)
        return cls(
            raw=reply.raw,
            answer=answer,
            reasoning=reasoning,
            latency_s=latency_s,
            prompt_tokens=reply.prompt_tokens,
            completion_tokens=reply.completion_tokens,
            attempts=attempts,
            finish_reason=reply.finish_reason,
            reasoning_tokens=reply.reasoning_tokens,
            max_tokens=max_tokens,
        )

    @classmethod
    def from_cache(cls, hit: dict[str, Any], max_tokens: int | None) -> CallResult:
        """A cached answer, checked as a fresh one is (a :class:`BrokenAnswer` when an older version
        stored one it would now refuse: the caller asks again)."""
        raw = content_text(hit.get("raw"), name="the cached answer")
        answer, reasoning = split_reasoning(raw, optional_text(hit.get("reasoning"), name="its reasoning"))
        return cls(
            raw=raw,
            answer=answer,
            reasoning=reasoning,
            prompt_tokens=token_count(hit.get("prompt_tokens"), name="prompt_tokens"),
            completion_tokens=token_count(hit.get("completion_tokens"), name="completion_tokens"),
            cached=True,
            finish_reason=optional_text(hit.get("finish_reason"), name="finish_reason"),
            reasoning_tokens=token_count(hit.get("reasoning_tokens"), name="reasoning_tokens"),
            max_tokens=max_tokens,
        )

    @property
    def truncated(self) -> bool:
        """Cut off by the token budget: invalid (``truncated``), never parsed from the partial text."""
        return self.finish_reason == "length"

    def budget_record(self) -> dict[str, Any]:
        """What a sample row keeps about the token budget: the cap sent, why the answer ended."""
        return {
            "max_tokens": self.max_tokens,
            "finish_reason": self.finish_reason,
            "reasoning_tokens": self.reasoning_tokens,
        }

    def as_dict(self) -> dict[str, Any]:
        return {
            "raw": self.raw,
            "reasoning": self.reasoning,
            "error": self.error,
            "latency_s": round(self.latency_s, 4),
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cached": self.cached,
            "finish_reason": self.finish_reason,
            "reasoning_tokens": self.reasoning_tokens,
            "max_tokens": self.max_tokens,
        }


def split_reasoning(text: str, extra_reasoning: str | None = None) -> tuple[str, str | None]:
    """Separate ``<think>…</think>`` (DeepSeek-R1, QwQ) from the answer."""
    parts = [m.group(1).strip() for m in _THINK.finditer(text)]
    answer = _THINK.sub("", text).strip()
    if extra_reasoning:
        parts.insert(0, extra_reasoning)
    return answer, ("\n".join(parts) or None)


async def ask_langchain(
    model: BaseChatModel, messages: list[dict[str, str]], kwargs: dict[str, Any]
) -> Answer:
    """One call through a LangChain chat model, as an :class:`Answer`."""
    from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

    roles: dict[str, type[BaseMessage]] = {"system": SystemMessage, "assistant": AIMessage}
    chat = [roles.get(m["role"], HumanMessage)(m["content"]) for m in messages]
    message = await model.ainvoke(chat, **kwargs)
    raw = content_text(message.content, name="the model's content")
    usage = getattr(message, "usage_metadata", None) or {}
    details = usage.get("output_token_details") or {}
    reasoning = message.additional_kwargs.get("reasoning_content")
    check_size(raw, kwargs.get("max_tokens"))
    return Answer(
        raw,
        optional_text(reasoning, name="reasoning_content"),
        token_count(usage.get("input_tokens"), name="usage.input_tokens"),
        token_count(usage.get("output_tokens"), name="usage.output_tokens"),
        message.response_metadata.get("finish_reason"),
        token_count(details.get("reasoning"), name="usage.reasoning_tokens"),
    )
