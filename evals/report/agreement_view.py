"""The agreement table as the report shows it: "undefined" and why where κ or χ² is not defined, and the
deterministic setting that makes agreement trivial, said beside.

At temperature 0 a deterministic model gives every repeat the same answer, and repeats answered from the
response cache are one answer read again: κ and χ² then measure the setting, not the model's stability.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from nationbias.evals.report.context import Run


def _cached(extra: Any) -> bool:
    return isinstance(extra, dict) and bool(extra.get("cached"))


def determinism_note(run: Run) -> str | None:
    """A sentence naming the run's deterministic setting, or None when its repeats could differ."""
    params = run.config.get("params") or {}
    parts = []
    temperature = params.get("temperature")
    if temperature is not None and float(temperature) == 0.0:
        parts.append(
            "temperature 0: a deterministic model answers every repeat alike, so agreement is perfect by"
            " construction"
        )
    samples: pd.DataFrame = run.samples
    if len(samples) and "repeat" in samples and samples["repeat"].nunique() > 1:
        cached = samples["extra"].map(_cached)
        if bool(cached.all()):
            parts.append("every answer was read from the response cache, not asked again")
        elif bool(cached.any()):
            parts.append(f"{int(cached.sum())} of {len(samples)} answers were read from the response cache")
    if not parts:
        return None
    return f"Deterministic setting in {run.run_id}: " + "; ".join(parts) + "."


UNDEFINED = "undefined"


def shown_agreement(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with each statistic that is not defined shown as "undefined (why)" and each verdict not
    made as "not tested", so no empty cell reads as a pass or a number."""
    out = table.copy().astype(object)
    pairs = (("fleiss_kappa", "kappa_undefined"), ("chi2", "chi2_undefined"), ("friedman_chi2", "undefined"))
    for value, reason in pairs:
        if value in out and reason in out:
            why = out[reason].fillna("").astype(str)
            out[value] = [f"{UNDEFINED} ({w})" if w else v for v, w in zip(out[value], why, strict=True)]
            out = out.drop(columns=[reason])
    for verdict in ("kappa_pass", "chi2_pass", "passes"):
        if verdict in out:
            out[verdict] = ["not tested" if v is None or pd.isna(v) else v for v in out[verdict]]
    return out.rename(columns=HEADERS)


# The table's columns as the page heads them: short, so sixteen columns fit one screen (the CSV keeps
# the names code reads).
HEADERS = {
    "n_items": "items",
    "n_keywords": "keywords",
    "n_repeats": "repeats",
    "n_invalid": "invalid",
    "percent_agreement": "% agree",
    "fleiss_kappa": "κ",
    "kappa_pass": "κ > 0.40",
    "chi2": "χ²",
    "friedman_chi2": "Friedman χ²",
    "chi2_pass": "χ² < critical",
    "paper_threshold": "paper's χ²",
    "n_neutral": "neutral",
    "neutral_by_run": "neutral by run",
}
