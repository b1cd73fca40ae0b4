"""The whole paper for one or more models, and the debias ablation, as library calls on one event loop."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from nationbias.evals.api import QUIET, Hooks, arun, sync
from nationbias.evals.errors import UsageError
from nationbias.evals.inputs import REASONING_MAX_TOKENS, TIMEOUT_S, check_prompts, new_run_id
from nationbias.stores.domain import KEYWORD_THRESHOLD, slug

if TYPE_CHECKING:
    from nationbias.graphs.model.endpoints import BaseUrls

ABLATED = "debias"  # the test the ablation's cells configure


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


@dataclass
class StudyPlan:
    """What a study runs: each test with its limit (in this order), then the ablation's cells.
    The full paper by default; a small slice for the demo."""

    limits: dict[str, int | None] = field(
        default_factory=lambda: {"directqa": None, "association": None, "vote": None}
    )
    debias_limit: int | None = None
    repeats: int = 3
    seed: int = 0
    concurrency: int = 4
    prompts: str = "structured"  # the prompt set (prompts/registry.py)
    reasoning_max_tokens: int = REASONING_MAX_TOKENS
    cells: list[Cell] = field(default_factory=paper_cells)


async def aablate(
    *,
    model: str,
    cells: list[Cell],
    run_prefix: str | None = None,
    base_url: BaseUrls = None,
    limit: int | None = None,
    seed: int = 0,
    repeats: int = 3,
    concurrency: int = 4,
    no_cache: bool = False,
    retry_errors: bool = False,
    prompts: str = "structured",
    reasoning_max_tokens: int = REASONING_MAX_TOKENS,
    show_progress: bool = True,
    hooks: Hooks = QUIET,
    batch: bool = False,
    batch_offline: bool = False,
    timeout: float = TIMEOUT_S,
    progress_every: float = 30.0,
) -> list[str]:
    """The debiased vote once per cell, run id ``<prefix>-debias-<cell>``; returns the run ids."""
    shared = {key: value for key, value in locals().items() if key not in ("cells", "run_prefix")}
    prefix = run_prefix or new_run_id("ablate", model)
    run_ids = []
    for cell in cells:
        summary = await arun(
            ABLATED,
            k=cell.k,
            reflexion=cell.reflexion,
            retriever=cell.retriever,
            threshold=KEYWORD_THRESHOLD,
            personas="p5",
            run_id=f"{prefix}-{ABLATED}-{cell.slug}",
            **shared,
        )
        run_ids.append(summary.run_id)
    return run_ids


async def astudy(
    *,
    model: str,
    plan: StudyPlan | None = None,
    run_prefix: str | None = None,
    base_url: BaseUrls = None,
    judge: str | None = None,
    no_cache: bool = False,
    retry_errors: bool = False,
    show_progress: bool = True,
    hooks: Hooks = QUIET,
    batch: bool = False,
    batch_offline: bool = False,
    timeout: float = TIMEOUT_S,
    progress_every: float = 30.0,
) -> list[str]:
    """Every test of the plan (``<prefix>-<test>``), then the ablation, as resumable runs; the ids."""
    from nationbias.evals.bias_tests import get_test

    plan = plan or StudyPlan()
    prefix = slug(run_prefix or new_run_id("study", model))
    chosen = check_prompts(plan.prompts)
    common: dict[str, Any] = dict(
        base_url=base_url,
        seed=plan.seed,
        repeats=plan.repeats,
        concurrency=plan.concurrency,
        no_cache=no_cache,
        retry_errors=retry_errors,
        prompts=plan.prompts,
        reasoning_max_tokens=plan.reasoning_max_tokens,
        show_progress=show_progress,
        hooks=hooks,
        batch=batch,
        batch_offline=batch_offline,
        timeout=timeout,
        progress_every=progress_every,
    )
    ids = []
    for test, limit in plan.limits.items():
        try:
            get_test(test).check_judge(chosen)
            test_judge = judge
        except UsageError:  # e.g. structured votes need no judge
            test_judge = None
        summary = await arun(
            test, model=model, judge=test_judge, limit=limit, run_id=f"{prefix}-{test}", **common
        )
        ids.append(summary.run_id)
    common.pop("base_url")
    ids += await aablate(
        model=model,
        base_url=base_url,
        cells=plan.cells,
        run_prefix=prefix,
        limit=plan.debias_limit,
        **common,
    )
    return ids


def study(*, model: str, **options: Any) -> list[str]:
    """:func:`astudy` from sync code (a notebook cell without ``await`` too)."""
    return sync(astudy(model=model, **options))


def ablate(*, model: str, cells: list[Cell], **options: Any) -> list[str]:
    """:func:`aablate` from sync code."""
    return sync(aablate(model=model, cells=cells, **options))
