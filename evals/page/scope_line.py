"""The report's scope line: what each run covered, read from its test's declared scope (a test's own,
evals/report/scope.py for the built-ins) or its personas, and its repeats."""

from __future__ import annotations

from nationbias.evals.bias_tests.base import scope_of
from nationbias.evals.report.context import Run
from nationbias.evals.report.scope import persona_scope, plural


def run_scope(run: Run) -> str:
    """One run's scope: its items out of how many, and its repeats."""
    declared = scope_of(run.kind)  # the test's own (DirectQA's families, the Association Test's keywords)
    if declared is not None:
        covered = declared(run)
    elif "persona" in run.samples and run.samples["persona"].astype(str).ne("").any():
        covered = persona_scope(run)
    else:
        covered = plural(run.samples["item"].nunique() if len(run.samples) else 0, "item")
    repeats = (run.config.get("sample") or {}).get("repeats")
    if repeats is None and len(run.samples):
        repeats = int(run.samples["repeat"].max()) + 1
    return f"{run.test} ({run.run_id}): {covered}, {plural(int(repeats or 0), 'repeat')}"


def scope_line(runs: list[Run]) -> str:
    """Every run's scope, in the report's order."""
    return "Scope: " + "; ".join(run_scope(run) for run in runs) + "."
