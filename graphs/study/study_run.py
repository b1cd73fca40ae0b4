"""One run of a study as every ``run_*_study`` (graphs/study/simulate.py, graphs/study/explicit.py) takes
it: the opened model clients and run store, the run's id, its samples and how it runs.

The library (evals/api.py) builds it once per run; a study function takes it as its one argument
beside its own test's inputs, so no run option is declared twice. The vote tests' text kind
(``--texts``), targets (``--targets``) and control (``--personas none``) are in :attr:`sample`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from nationbias.graphs.progress import DEFAULT_EVERY_S
from nationbias.graphs.study.options import DEFAULT_CONCURRENCY
from nationbias.graphs.study.runner import RunSummary, Task, Worker, run_tasks
from nationbias.prompts import PromptSet, prompt_set

if TYPE_CHECKING:
    from nationbias.graphs.model.client import ModelClient
    from nationbias.graphs.study.sampling import SampleOptions
    from nationbias.stores.state.runstore import RunStore
    from nationbias.stores.state.sqlite import GroupCommit


@dataclass(frozen=True, kw_only=True)
class StudyRun:
    """What a study function reads from its run; the test's own inputs come beside it."""

    client: ModelClient
    store: RunStore
    run_id: str
    sample: SampleOptions
    prompts: PromptSet = field(default_factory=prompt_set)
    judge: ModelClient | None = None  # reads the answers the rules cannot label
    translator: ModelClient | None = None  # --translate-with, for a test whose prompts show a record's text
    concurrency: int = DEFAULT_CONCURRENCY
    retry_errors: bool = False
    show_progress: bool = True
    progress_every: float = DEFAULT_EVERY_S


async def run_study_tasks(
    run: StudyRun,
    tasks: list[Task],
    worker: Worker,
    *,
    description: str,
    commits: Iterable[GroupCommit] = (),
) -> RunSummary:
    """The study's tasks through the runner (graphs/study/runner.py), as ``run`` says to run them."""
    return await run_tasks(
        store=run.store,
        run_id=run.run_id,
        tasks=tasks,
        worker=worker,
        concurrency=run.concurrency,
        retry_errors=run.retry_errors,
        description=f"{description} · {run.client.label}",
        show_progress=run.show_progress,
        progress_every=run.progress_every,
        clients=[run.client, run.judge],
        commits=commits,
    )
