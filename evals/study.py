"""The whole paper for one or more models, and the debias ablation, as library calls on one event loop.

A study runs every test the registry places in it (a test's ``study``, evals/bias_tests/base.py), a
plugin's too, then the debiased vote once per ablation cell; every run shares the plan's run options
(graphs/study/options.py)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from nationbias.evals.api import QUIET, Hooks, arun, sync
from nationbias.evals.bias_tests import bias_tests, get_test
from nationbias.evals.bias_tests.base import study_part
from nationbias.evals.errors import UsageError
from nationbias.evals.inputs import check_prompts, new_run_id
from nationbias.graphs.study.options import RunOptions
from nationbias.prompts import PromptSet
from nationbias.stores.domain import DEBIAS, KEYWORD_THRESHOLD, slug

ABLATED = DEBIAS  # the test the ablation's cells configure


@dataclass(frozen=True)
class Cell:
    """One ablation cell: precedents per pool, reflexion on or off, the retriever."""

    k: int
    reflexion: bool
    retriever: str

    @property
    def slug(self) -> str:
        return f"k{self.k}-{'rf' if self.reflexion else 'norf'}-{self.retriever}"


def paper_cells() -> list[Cell]:
    return [Cell(1, True, "keyword"), Cell(2, True, "keyword"), Cell(1, False, "keyword")]


def study_limits(*, demo: bool = False) -> dict[str, int | None]:
    """Each test the registry places in a study, in the study's order, with its limit (``demo``: its
    demo's)."""
    parts = [(name, part) for name, test in bias_tests().items() if (part := study_part(test)) is not None]
    parts.sort(key=lambda named: named[1].order)  # stable: ties keep the registry's order
    return {name: (part.demo if demo else part.limit) for name, part in parts}


@dataclass(frozen=True, kw_only=True)
class StudyPlan(RunOptions):
    """What a study runs: each test with its limit (in this order), then the ablation's cells, every run
    with these run options. ``limits`` None: every test the registry places in a study, each with
    ``limit`` when given, else its own; ``debias_limit`` None: ``limit``."""

    limits: Mapping[str, int | None] | None = None
    debias_limit: int | None = None
    cells: list[Cell] = field(default_factory=paper_cells)

    def test_limits(self) -> dict[str, int | None]:
        if self.limits is not None:
            return dict(self.limits)
        own = study_limits()
        return own if self.limit is None else dict.fromkeys(own, self.limit)

    def ablation_limit(self) -> int | None:
        return self.limit if self.debias_limit is None else self.debias_limit


def judge_for(test: str, judge: str | None, prompts: PromptSet) -> str | None:
    """The judge, for a test that reads its answers with one under these prompts (a structured vote
    needs none)."""
    if judge is None:
        return None
    try:
        get_test(test).check_judge(prompts)
    except UsageError:
        return None
    return judge


async def aablate(
    *,
    model: str,
    cells: list[Cell],
    run_prefix: str | None = None,
    options: RunOptions | None = None,
    hooks: Hooks = QUIET,
    **given: Any,
) -> list[str]:
    """The debiased vote once per cell on the P5, run id ``<prefix>-debias-<cell>``; ``given`` are run
    options over ``options``. Returns the run ids."""
    run, unknown = RunOptions.split(given, base=options)
    if unknown:
        raise UsageError(f"ablate takes no option {sorted(unknown)}: its options are the run's")
    prefix = run_prefix or new_run_id("ablate", model)
    run_ids = []
    for cell in cells:
        summary = await arun(
            ABLATED,
            model=model,
            options=run.updated(personas="p5", run_id=f"{prefix}-{ABLATED}-{cell.slug}"),
            hooks=hooks,
            k=cell.k,
            reflexion=cell.reflexion,
            retriever=cell.retriever,
            threshold=KEYWORD_THRESHOLD,
        )
        run_ids.append(summary.run_id)
    return run_ids


async def astudy(
    *,
    model: str,
    plan: StudyPlan | None = None,
    run_prefix: str | None = None,
    hooks: Hooks = QUIET,
    **given: Any,
) -> list[str]:
    """Every test of the plan (``<prefix>-<test>``), then the ablation, as resumable runs; the ids.
    ``given`` are run options over the plan's (``show_progress=False``)."""
    plan = (plan or StudyPlan()).updated(**given)
    prefix = slug(run_prefix or new_run_id("study", model))
    chosen = check_prompts(plan.prompts, language=plan.language)
    ids = []
    for test, limit in plan.test_limits().items():
        summary = await arun(
            test,
            model=model,
            options=plan.updated(
                judge=judge_for(test, plan.judge, chosen), limit=limit, run_id=f"{prefix}-{test}"
            ),
            hooks=hooks,
        )
        ids.append(summary.run_id)
    ids += await aablate(  # the cells run without a judge
        model=model,
        cells=plan.cells,
        run_prefix=prefix,
        options=plan.updated(judge=None, limit=plan.ablation_limit()),
        hooks=hooks,
    )
    return ids


def study(*, model: str, **options: Any) -> list[str]:
    """:func:`astudy` from sync code (a notebook cell without ``await`` too)."""
    return sync(astudy(model=model, **options))


def ablate(*, model: str, cells: list[Cell], **options: Any) -> list[str]:
    """:func:`aablate` from sync code."""
    return sync(aablate(model=model, cells=cells, **options))
