"""A bias test as its tasks: it declares its items, how one task's messages are built and how an answer
is read into a row; the framework runs them.

The run is the framework's (:func:`run_declared`): the run config (model, prompt set, ``--language``,
seed, sample, the test's options), the tasks not yet stored (resume, ``--retry-errors``), concurrency
and progress (graphs/study/runner.py), and every call through the run's model client, so ``--batch``
(evals/batch_mode.py), ``--dry-run`` and ``--max-cost`` (graphs/model/cost/) reach the test as they reach
the built-in ones. An answer cut off by the token budget is never read (invalid); a failed call is an
error row; every raw answer is kept.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from nationbias.evals.bias_tests.base import NoOptions, RunContext

if TYPE_CHECKING:
    from nationbias.graphs.study.runner import RunSummary, Task
    from nationbias.stores.state.runstore import SampleRow


@dataclass(frozen=True)
class Reading:
    """What a test reads from one answer: ``parsed`` (None: the answer is invalid, counted as a miss),
    why not (``parse_error``), and anything else to keep beside the row (``extra``)."""

    parsed: dict[str, Any] | None
    parse_error: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


class TaskTest:
    """Subclass it, set ``name`` and the rest of :class:`~nationbias.evals.bias_tests.base.BiasTest`'s
    attributes, and declare :meth:`tasks`, :meth:`messages` and :meth:`read`; register it with
    ``@bias_test`` (or override :meth:`answer` for a task of more than one call). ``options_type``: its
    own options, a frozen dataclass whose fields and defaults are the options (``ctx.options`` is the
    run's instance; the run config records each field not None). ``wording``: the texts its messages are
    made from (its templates, by name and language); the run config records their sha256, and a resume
    with other wording is refused as one with another option is. ``languages``: the ``--language`` codes
    its messages exist in (None: every language the prompt sets have); another is refused before the run
    starts. ``max_tokens``: one answer's budget."""

    name: ClassVar[str]
    options_type: ClassVar[type[Any]] = NoOptions
    wording: ClassVar[Mapping[str, Any]] = {}
    languages: ClassVar[tuple[str, ...] | None] = None
    max_tokens: ClassVar[int] = 256

    def tasks(self, ctx: RunContext) -> list[Task]:
        """Every task of the run (item × persona × repeat), built with ``task(...)``."""
        raise NotImplementedError

    def messages(self, task: Task, ctx: RunContext) -> list[dict[str, str]]:
        """One task's messages, in ``ctx.prompts.language``; free of the answer."""
        raise NotImplementedError

    def read(self, task: Task, answer: str) -> Reading:
        """One complete answer read into its row's ``parsed`` (or why it cannot be)."""
        raise NotImplementedError

    async def answer(self, task: Task, ctx: RunContext) -> SampleRow:
        """One task's row: by default one call of :meth:`messages`, read by :meth:`read`
        (:func:`answer_task`). A test whose task takes more than one call (its small graph) overrides
        it, calling ``ctx.client`` (and ``ctx.judge``) so batch, dry run and the cost cap still apply."""
        return await answer_task(self, ctx, task)

    def check_judge(self, prompts: Any) -> None:
        """No judge reads a task test's answers: its :meth:`read` does."""
        from nationbias.evals.errors import UsageError

        raise UsageError(f"test {self.name!r} reads its own answers: it takes no --judge")

    def prepare(self, request: Any, sample: Any) -> Any:
        """What its tasks need loaded before any store is opened (``ctx.inputs``): by default nothing;
        its options arrive built and checked (``request.options``, ``ctx.options``)."""
        return None

    async def arun(self, ctx: RunContext) -> RunSummary:
        return await run_declared(self, ctx)


def task(test: str, item: str, *, persona: str = "", pair_order: str = "", repeat: int = 0) -> Task:
    """One task of a test's run (one sample: its id is the test, item, persona, order and repeat)."""
    from nationbias.graphs.study.runner import Task

    return Task(test=test, item=item, persona=persona, pair_order=pair_order, repeat=repeat)


def _tasks_digest(tasks: list[Task]) -> str:
    """The data a task test reads is its tasks: their hash stands for the data file's."""
    ids = sorted(t.sample_id for t in tasks)
    return hashlib.sha256(json.dumps(ids).encode()).hexdigest()


def wording_sha256(test: TaskTest) -> str | None:
    """The sha256 of the texts a test declares its messages are made from (None: it declares none)."""
    if not test.wording:
        return None
    text = json.dumps(test.wording, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


async def run_declared(test: TaskTest, ctx: RunContext) -> RunSummary:
    """Record the run's config, then answer every task not yet stored, ``ctx.request.concurrency`` at a
    time, through the run's client (so batch, dry run and the cost cap apply)."""
    from nationbias.graphs.study.run_config import run_config
    from nationbias.graphs.study.runner import run_tasks
    from nationbias.stores.corpora.corpus import Corpus

    tasks = test.tasks(ctx)
    options = asdict(ctx.options)
    config = run_config(
        test=test.name,
        client=ctx.client,
        corpus=Corpus(records=[], sha256=_tasks_digest(tasks)),
        sample=ctx.sample,
        prompts=(),
        prompt_set=ctx.prompts,
        extra={key: value for key, value in options.items() if value is not None},
    )
    if (wording := wording_sha256(test)) is not None:  # compared on resume (stores/state/runstore.py)
        config["wording_sha256"] = wording
    ctx.store.create_run(ctx.run_id, config)

    async def worker(one: Task) -> SampleRow:
        return await test.answer(one, ctx)

    return await run_tasks(
        store=ctx.store,
        run_id=ctx.run_id,
        tasks=tasks,
        worker=worker,
        concurrency=ctx.request.concurrency,
        retry_errors=ctx.request.retry_errors,
        show_progress=ctx.request.show_progress,
        progress_every=ctx.request.progress_every,
        clients=[ctx.client, ctx.judge],
    )


async def answer_task(test: TaskTest, ctx: RunContext, one: Task) -> SampleRow:
    """One task: its messages, one call, the answer read (never from a cut-off or failed answer)."""
    from nationbias.graphs.labels.parsing import truncated_reason
    from nationbias.stores.state.runstore import SampleRow

    messages = test.messages(one, ctx)
    result = await ctx.client.call(messages, repeat=one.repeat, max_tokens=test.max_tokens)
    if result.error:
        reading, status = Reading(None), "error"
    elif result.truncated:  # cut off by the token budget: never read from the partial text
        reading, status = Reading(None, truncated_reason(result.answer)), "invalid"
    else:
        reading = test.read(one, result.answer or "")
        status = "ok" if reading.parsed is not None else "invalid"
    return SampleRow(
        test=test.name,
        item=one.item,
        persona=one.persona,
        pair_order=one.pair_order,
        repeat=one.repeat,
        status=status,  # type: ignore[arg-type]
        messages=messages,
        raw=result.raw,
        parsed=reading.parsed,
        parse_error=reading.parse_error if status == "invalid" else None,
        error=result.error,
        latency_s=result.latency_s,
        prompt_tokens=result.prompt_tokens,
        completion_tokens=result.completion_tokens,
        model_calls=1,
        extra={**reading.extra, "reasoning": result.reasoning, "finish_reason": result.finish_reason},
    )
