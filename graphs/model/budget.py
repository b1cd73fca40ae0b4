"""Token budgets: short caps for models that answer at once, a large one for models that reason first.

The rule (docs/models.md, "Reasoning models are not cut off"): a model gets the reasoning budget when

1. its name says it reasons (:data:`REASONING_NAME`: the OpenAI o-series and gpt-5, DeepSeek-R1 and
   its distills, ``deepseek-reasoner``, QwQ, any name with "reason" or "think" in it), or
2. any answer in the run shows reasoning: a ``<think>`` part, provider reasoning text, or
   ``reasoning_tokens`` in the usage. From then on every call of that client gets the reasoning
   budget, and a call that the short cap cut off (``finish_reason == "length"``) is asked again
   with it, so detection loses no sample.

The short caps (200 tokens for a vote, 256 for DirectQA, 240 for a reflection) stop a small model
that starts to loop; a reasoning model spends thousands of tokens before its answer, so capping it
there would turn most of its answers into ``truncated``.
"""

from __future__ import annotations

import functools
import re
from typing import Protocol

from nationbias.stores.errors import InputError

# 32k: DeepSeek-R1 rarely thinks longer; o3-mini takes up to 100k (raise it with --reasoning-max-tokens).
DEFAULT_REASONING_MAX_TOKENS = 32768
# A call's timeout (--timeout): how long a server has to answer before the call is tried again; a
# server that accepts connections and never answers stops the run within about two of them.
DEFAULT_TIMEOUT_S = 120.0
# A reasoning call may think for minutes: its timeout is at least this (the client's own if longer).
REASONING_TIMEOUT_S = 900.0

REASONING_NAME = re.compile(
    r"(?:^|[/:])o\d+(?:$|[-_.])"  # OpenAI o1, o3-mini, o4-mini (also "openai/o3" on a router)
    r"|(?:^|[/:])gpt-5(?!.*chat)"  # gpt-5, gpt-5-mini; not gpt-5-chat
    r"|deepseek-r1|deepseek-reasoner|r1-distill|(?:^|[-_/:])r1(?:$|[-_.:])"
    r"|qwq|reason|think",
    re.IGNORECASE,
)


@functools.cache  # asked several times per call, of a handful of names
def is_reasoning_name(model: str) -> bool:
    """True when the model's name says it reasons before it answers (rule 1 above)."""
    return REASONING_NAME.search(model) is not None


class ShowsReasoning(Protocol):
    reasoning: str | None
    reasoning_tokens: int


def shows_reasoning(result: ShowsReasoning) -> bool:
    """Rule 2: the answer carried a ``<think>`` part or provider reasoning, or the usage counted
    reasoning tokens (OpenAI hides the reasoning but reports ``reasoning_tokens``)."""
    return bool(result.reasoning) or result.reasoning_tokens > 0


def check_budget(reasoning_max_tokens: int) -> int:
    """A budget below a short answer's cap would cut reasoning models off sooner, not later."""
    if reasoning_max_tokens < 256:
        raise InputError(f"--reasoning-max-tokens must be >= 256, got {reasoning_max_tokens}")
    return reasoning_max_tokens


def check_timeout(timeout: float) -> float:
    """``--timeout``: a positive, finite number of seconds."""
    if not (0 < timeout < float("inf")):
        raise InputError(f"--timeout must be a positive number of seconds, got {timeout:g}")
    return float(timeout)
