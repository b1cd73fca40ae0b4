"""The run context (graphs/study/study_run.py) is the one place a study function's run options are
declared: every ``run_*_study`` takes it as its first argument, beside its own test's inputs only."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import FrozenInstanceError, fields
from typing import Any

import pytest

from nationbias.graphs.study import explicit, simulate
from nationbias.graphs.study.study_run import StudyRun


def _study_functions() -> dict[str, Callable[..., Any]]:
    found = {
        name: fn
        for module in (simulate, explicit)
        for name, fn in vars(module).items()
        if name.startswith("run_") and name.endswith("_study") and inspect.iscoroutinefunction(fn)
    }
    assert set(found) == {"run_vote_study", "run_debias_study", "run_directqa_study", "run_association_study"}
    return found


def test_no_study_function_declares_a_run_context_field_again() -> None:
    run_fields = {f.name for f in fields(StudyRun)}
    for name, fn in _study_functions().items():
        params = list(inspect.signature(fn).parameters.values())
        first, rest = params[0], params[1:]
        assert first.name == "run" and first.annotation in (StudyRun, "StudyRun"), name
        assert first.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD, name
        again = {p.name for p in rest} & run_fields
        assert not again, f"{name} declares {sorted(again)} again: they are StudyRun's"
        assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in rest), name


def test_the_run_context_is_frozen() -> None:
    run = StudyRun(client=None, store=None, run_id="r", sample=None)  # type: ignore[arg-type]
    with pytest.raises(FrozenInstanceError):
        run.run_id = "other"  # type: ignore[misc]
