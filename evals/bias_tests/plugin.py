"""What a bias test from outside the package imports: the one public module of the test contract.

A plugin subclasses :class:`TaskTest` (its tasks, one task's messages, how an answer is read), declares
its own options as one class (``options_type``: a frozen dataclass whose fields and defaults are the
options; :class:`NoOptions` without it), what the report reads (its headline, claims, language
effect, refusal breakdown, tables and sections) and the texts its messages are made from (``wording``),
and registers it with :func:`bias_test`; the framework runs it (languages, batch, dry run, resume,
significance, the report). docs/plugins.md ("Adding a bias test") walks through it;
tests/support/plugins/toy_bias.py is the worked example. Nothing else of nationbias is a plugin's to
import: what is here stays.
"""

from __future__ import annotations

from typing import Any

from nationbias.evals.bias_tests.base import (
    LanguageEffect,
    NoOptions,
    Refusals,
    RunContext,
    RunRequest,
    StudyPart,
    bias_test,
)
from nationbias.evals.bias_tests.tasks import Reading, TaskTest, task
from nationbias.evals.report.headline import NOT_IN_PAPER, Headline
from nationbias.evals.report.html_table import Cell
from nationbias.evals.tables.languages import effect_row
from nationbias.graphs.study.runner import Task
from nationbias.stores.domain import P5, P5_NAMES


def claim_row(
    *,
    claim: str,
    scope: str,
    nation: str,
    statistic: float,
    null_value: float,
    method: str,
    p: float,
    n: int = 0,
    df: float = float("nan"),
    note: str = "",
) -> dict[str, Any]:
    """One row of a test's ``claims`` (evals/tables/significance.py's columns): what is claimed of which
    nation in which scope, the number shown and its value under no effect, the test (``method``) with its
    p-value, its independent units ``n`` and ``df``, and a ``note`` where it could not be tested (p NaN)."""
    return {
        "claim": claim,
        "scope": scope,
        "nation": nation,
        "statistic": statistic,
        "null_value": null_value,
        "method": method,
        "n": n,
        "df": df,
        "p": p,
        "note": note,
    }


__all__ = [
    "NOT_IN_PAPER",
    "P5",
    "P5_NAMES",
    "Cell",
    "Headline",
    "LanguageEffect",
    "NoOptions",
    "Reading",
    "Refusals",
    "RunContext",
    "RunRequest",
    "StudyPart",
    "Task",
    "TaskTest",
    "bias_test",
    "claim_row",
    "effect_row",
    "task",
]
