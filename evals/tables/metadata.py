"""A run's metadata table: what was run, on what, with which prompts and budget, and how to reproduce it."""

from __future__ import annotations

from typing import Any

import pandas as pd

from nationbias.stores.domain import config_language


def is_embedded(config: dict[str, Any]) -> bool:
    """True for the embedded demo model, whose numbers prove the pipeline, not a finding."""
    return bool(config.get("embedded"))  # graphs/study/run_config.py stores it for every test


def _reasoning(config: dict[str, Any]) -> str | None:
    """Whether the run gave the model the reasoning budget, and why (graphs/model/budget.py)."""
    budget = config.get("budget")
    if not budget:
        return None
    if budget.get("reasoning_by_name"):
        return f"{budget.get('reasoning_max_tokens')} (by name)"
    if config.get("reasoning_learned"):
        return f"{budget.get('reasoning_max_tokens')} (learned)"
    return "no"


def metadata_frame(
    run_id: str, config: dict[str, Any], samples: pd.DataFrame, *, default_targets: str = ""
) -> pd.DataFrame:
    """One row describing the run: enough to tell how to reproduce it. ``default_targets``: what its test
    asked about before ``--targets`` was recorded (the test's ``default_targets``)."""
    versions = config.get("prompt_versions") or {}
    options = config.get("options") or {}
    created = config.get("created")
    if created is None and len(samples):
        created = pd.Timestamp(float(samples["created"].min()), unit="s").isoformat(timespec="seconds")
    return pd.DataFrame(
        [
            {
                "run_id": run_id,
                "test": config.get("test"),
                "body": _body(config),
                "targets": _targets(config, default_targets),
                "model": config.get("model"),
                "embedded": is_embedded(config),
                "prompt_set": config.get("prompt_set") or "structured",
                # the prompts' language ("fr (French, not yet reviewed by a native speaker)") and the
                # record text's ("en (quoted)" in another language than English)
                "language": config.get("language_note") or config_language(config),
                "text_language": config.get("text_language") or "en",
                "reasoning_budget": _reasoning(config),
                "prompt_versions": ", ".join(f"{k}={v}" for k, v in sorted(dict(versions).items()))
                if isinstance(versions, dict)
                else str(versions),
                "data_sha256": config.get("data_sha256"),
                "seed": config.get("seed"),
                "package_version": config.get("package_version"),
                "created": created,
                "options": ", ".join(f"{k}={v}" for k, v in sorted(options.items())),
                "n_samples": len(samples),
                "skipped": ", ".join(f"{k}={v}" for k, v in sorted((config.get("skipped") or {}).items())),
            }
        ]
    )


def _targets(config: dict[str, Any], default: str) -> str:
    """Which of the Council's items a run asked about (``--targets``); a run stored before the option
    asked about its test's ``default`` (the vote's non-adopted drafts); blank for a test or body without
    the choice."""
    if config.get("targets"):
        return str(config["targets"])
    council = (config.get("sample") or {}).get("body", "unsc") == "unsc"
    return default if council else ""


def _body(config: dict[str, Any]) -> str:
    """Which body's items the run covered, and its year window (``unga 2005-2019``)."""
    sample = config.get("sample") or {}
    years = sample.get("years")
    return f"{sample.get('body', 'unsc')}" + (f" {years[0]}-{years[1]}" if years else "")
