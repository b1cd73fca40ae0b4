"""Checking what a user asked for, before anything is opened: model specs, prompt sets, run ids."""

from __future__ import annotations

import secrets
import time
from typing import TYPE_CHECKING, Any

from nationbias.evals.errors import UsageError
from nationbias.graphs.model.budget import DEFAULT_REASONING_MAX_TOKENS, DEFAULT_TIMEOUT_S
from nationbias.stores.domain import slug

if TYPE_CHECKING:
    from nationbias.graphs.model.endpoints import BaseUrls


def new_run_id(test: str, model: str) -> str:
    """``<time>-<test>-<model>-<4 hex>``: unique, sortable, safe as a file name."""
    name = slug(model.split(":", 1)[-1], keep="", limit=32).strip("-")
    return f"{time.strftime('%Y%m%d-%H%M%S')}-{test}-{name}-{secrets.token_hex(2)}"


def check_model(model: str, *, base_url: BaseUrls) -> None:
    """Fail on a bad spec or a missing key or base URL, before anything is opened or written."""
    from nationbias.graphs.model.registry import check_ready, parse_spec

    check_ready(parse_spec(model, base_url=base_url))


def make_client(
    model: str,
    *,
    base_url: BaseUrls,
    no_cache: bool,
    reasoning_max_tokens: int = DEFAULT_REASONING_MAX_TOKENS,
    timeout: float = DEFAULT_TIMEOUT_S,
) -> Any:
    """The model client, failing fast on a bad spec, a missing key or base URL, a bad budget or timeout."""
    from nationbias.graphs.model.budget import check_budget, check_timeout
    from nationbias.graphs.model.client import ModelClient
    from nationbias.graphs.model.cost.dry_run import dry_cache
    from nationbias.graphs.model.registry import GenerationParams
    from nationbias.stores.state.cache import ResponseCache

    check_timeout(timeout)
    check_model(model, base_url=base_url)  # before the cache file is created
    return ModelClient.from_spec(
        model,
        base_url=base_url,
        cache=None
        if no_cache
        else (dry_cache(model) or ResponseCache()),  # a dry run's: graphs/model/cost/dry_run.py
        reasoning_max_tokens=check_budget(reasoning_max_tokens),
        params=GenerationParams(timeout=timeout),
    )


def check_prompts(name: str, *, language: str | None = None) -> Any:
    """The named prompt set in ``language``; an unknown name or language fails (exit 2) before anything
    is opened."""
    from nationbias.prompts import prompt_set

    return prompt_set(name, language=language)


def check_translate(translate_with: str | None, *, language: str, base_url: Any = None) -> None:
    """``--translate-with`` names a model that translates the record's text into ``--language``: with
    English there is nothing to translate into, so the pair is refused, naming both options."""
    if translate_with is None:
        return
    if language == "en":
        raise UsageError(
            f"--translate-with {translate_with} translates the record's text into --language, and --language "
            "is en (the default): choose --language ar, zh, fr, ru or es, or drop --translate-with"
        )
    check_model(translate_with, base_url=base_url)
