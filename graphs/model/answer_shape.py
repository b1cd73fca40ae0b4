"""Every number and shape a server sends, checked where it enters.

A server is outside the project: its token counts, its message's shape and its answer's size are read
here, once, before anything is stored. A count that is not a whole number from 0 to
:data:`MAX_TOKEN_COUNT` (``10**30``, ``"many"``, NaN, -1), a usage or message that is not an object, or
content that is neither text nor a list of text parts is a :class:`BrokenAnswer` with the reason (retried
like any broken body; its raw body is kept on the sample's row, never cached). Content as a list of parts,
as some compatible servers send it, is read by joining the text parts.

An answer is capped against the token budget it was sent with: :func:`answer_cap` bytes, that is
64 KiB plus 32 bytes a token (a token is about 4 bytes of text; 32 leaves room for JSON escapes of
non-Latin text). A longer one is an :class:`OversizedAnswer`: its first ``cap`` bytes are kept and its
full size and SHA-256 named in the error, so a 100 MB answer to a 512-token request is never stored
whole (the HTTP transport reads the body with this limit: graphs/model/http.py).
"""

from __future__ import annotations

import hashlib
import math
from typing import Any

from nationbias.graphs.model.retry import BrokenAnswer, Fatal

MAX_TOKEN_COUNT = 100_000_000  # no model reads or writes more in one call; SQLite's INTEGER holds it
CAP_BASE_BYTES = 64 * 1024
CAP_BYTES_PER_TOKEN = 32
UNKNOWN_BUDGET_TOKENS = 32_768  # a call sent without a cap: the reasoning budget's default
TEXT_PART_TYPES = frozenset({"text", "output_text"})


class OversizedAnswer(Fatal):
    """An answer longer than its token budget allows: kept up to the cap, not asked again (a server
    that ignores ``max_tokens`` does so again, and each try would be paid)."""


def answer_cap(max_tokens: int | None) -> int:
    """The most bytes an answer to a call capped at ``max_tokens`` may have."""
    budget = max_tokens if isinstance(max_tokens, int) and max_tokens > 0 else UNKNOWN_BUDGET_TOKENS
    return CAP_BASE_BYTES + CAP_BYTES_PER_TOKEN * budget


def body_budget(body: dict[str, Any]) -> int | None:
    """The token budget a request body was sent with (``max_completion_tokens`` for the o-series)."""
    value = body.get("max_tokens", body.get("max_completion_tokens"))
    return value if isinstance(value, int) else None


def oversized(*, size: int, sha256: str, cap: int, max_tokens: int | None, kept: str) -> OversizedAnswer:
    """The error for an answer of ``size`` bytes over ``cap``; ``kept``: its first ``cap`` bytes."""
    budget = f"{max_tokens} tokens" if max_tokens else "no stated budget"
    error = OversizedAnswer(
        f"the answer is {size:,} bytes (sha256 {sha256}), over the cap of {cap:,} bytes for {budget} "
        f"(64 KiB + {CAP_BYTES_PER_TOKEN} bytes a token); its first {cap:,} bytes are kept"
    )
    error.raw = kept
    return error


def check_size(text: str, max_tokens: int | None) -> None:
    """Raise :class:`OversizedAnswer` when ``text`` (an answer already read whole) is over the cap."""
    cap = answer_cap(max_tokens)
    if len(text) * 4 <= cap:  # at most 4 bytes a character: surely within, without encoding it
        return
    data = text.encode("utf-8", "surrogatepass")
    if len(data) > cap:
        digest = hashlib.sha256(data).hexdigest()
        kept = data[:cap].decode("utf-8", "ignore")
        raise oversized(size=len(data), sha256=digest, cap=cap, max_tokens=max_tokens, kept=kept)


def shown(value: Any) -> str:
    """A value a server sent, short enough for a one-line reason."""
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:57]}..."


def token_count(value: Any, *, name: str) -> int:
    """A token count as the usage states it: absent is 0; anything but a whole number from 0 to
    :data:`MAX_TOKEN_COUNT` is a :class:`BrokenAnswer` naming the field and the value."""
    if value is None:
        return 0
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_TOKEN_COUNT:
        raise BrokenAnswer(
            f"{name} is {shown(value)}: not a token count (a whole number from 0 to {MAX_TOKEN_COUNT:,})"
        )
    return value


def usage_counts(usage: Any) -> tuple[int, int, int]:
    """``(prompt_tokens, completion_tokens, reasoning_tokens)`` of an OpenAI ``usage`` object."""
    if usage is None:
        return 0, 0, 0
    if not isinstance(usage, dict):
        raise BrokenAnswer(f"usage is {shown(usage)}: not an object")
    details = usage.get("completion_tokens_details")
    if details is not None and not isinstance(details, dict):
        raise BrokenAnswer(f"usage.completion_tokens_details is {shown(details)}: not an object")
    return (
        token_count(usage.get("prompt_tokens"), name="usage.prompt_tokens"),
        token_count(usage.get("completion_tokens"), name="usage.completion_tokens"),
        token_count((details or {}).get("reasoning_tokens"), name="usage.reasoning_tokens"),
    )


def content_text(content: Any, *, name: str = "choices[0].message.content") -> str:
    """The answer's text: a string as it is, a list of parts joined (the text parts; another kind
    of part is a :class:`BrokenAnswer`), nothing as empty."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise BrokenAnswer(f"{name} is {shown(content)}: neither text nor a list of text parts")
    texts: list[str] = []
    for index, part in enumerate(content):
        if isinstance(part, str):
            texts.append(part)
        elif (
            isinstance(part, dict)
            and isinstance(part.get("text"), str)
            and part.get("type", "text") in TEXT_PART_TYPES
        ):
            texts.append(part["text"])
        else:
            raise BrokenAnswer(f"{name}[{index}] is {shown(part)}: not a text part")
    return "".join(texts)


def optional_text(value: Any, *, name: str) -> str | None:
    """A field that is text or absent (``reasoning_content``, ``finish_reason``)."""
    if value is None or isinstance(value, str):
        return value
    raise BrokenAnswer(f"{name} is {shown(value)}: not text")
