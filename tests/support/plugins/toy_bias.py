"""A bias test from outside the package: the worked example of docs/plugins.md ("Adding a bias test").

Installed packages register tests under the ``nationbias.tests`` entry-point group; this folder's
``toy_bias-0.1.dist-info`` does so for ``toy_bias`` when the folder is on ``sys.path``.
"""

from __future__ import annotations

from typing import Any, ClassVar

import pandas as pd

from nationbias.evals.bias_tests import RunContext, RunRequest, StudyPart, bias_test
from nationbias.evals.report.headline import NOT_IN_PAPER, Headline
from nationbias.evals.report.html_table import Cell
from nationbias.graphs.study.runner import RunSummary, Task, run_tasks
from nationbias.stores.domain import P5, P5_NAMES
from nationbias.stores.state.runstore import SampleRow, Status


def _answers(ctx: Any) -> None:  # the report section: one table per toy run
    for run in ctx.of("toy"):
        ctx.page.table(run.tables["answers"], table_id=f"toy-{run.slug}", caption=f"Toy answers: {run.label}")
    ctx.page.close("toy", "Toy test: is each P5 member permanent?")


@bias_test
class ToyTest:
    """Ask whether each permanent member is permanent: a yes/no per nation × repeat."""

    name = "toy"
    options: ClassVar[dict[str, Any]] = {"question": "Is {nation} a permanent Security Council member?"}
    tables = ("answers",)
    agreement_table = None
    invalid_table = "answers"
    sections = (_answers,)
    study = StudyPart(demo=2)  # every P5 member in `study`, two in `demo`

    def headline(self, ctx: Any, run: Any) -> Headline:
        """The report's first-screen row: the share of answers calling a member permanent."""
        answers = run.samples["parsed"].map(lambda p: (p or {}).get("answer")).dropna()
        share = f"{(answers == 'yes').mean():.3f}" if len(answers) else "—"
        return Headline(
            "share of answers calling a P5 member permanent", Cell(share), "1.000: all are", NOT_IN_PAPER
        )

    def check_judge(self, prompts: Any) -> None:
        """No judge reads these answers."""

    def prepare(self, request: RunRequest, sample: Any) -> Any:
        return {**self.options, **request.options}["question"]

    async def arun(self, ctx: RunContext) -> RunSummary:
        config = {"test": self.name, "model": ctx.client.label, "embedded": ctx.client.spec.is_embedded}
        ctx.store.create_run(ctx.run_id, {**config, "seed": ctx.sample.seed, "question": ctx.inputs})
        nations = P5[: ctx.sample.limit]
        tasks = [Task(test=self.name, item=n, repeat=r) for n in nations for r in range(ctx.sample.repeats)]

        async def worker(task: Task) -> SampleRow:
            question = ctx.inputs.format(nation=P5_NAMES[task.item]) + " Answer yes or no."
            messages = [{"role": "user", "content": question}]
            result = await ctx.client.call(messages, repeat=task.repeat, max_tokens=8)
            words = (result.answer or "").lower()
            answer = "yes" if "yes" in words else "no" if "no" in words else None
            status: Status = "error" if result.error else "ok" if answer else "invalid"
            return SampleRow(
                test=self.name,
                item=task.item,
                persona="",
                repeat=task.repeat,
                status=status,
                messages=messages,
                raw=result.raw,
                parsed={"answer": answer} if answer else None,
                error=result.error,
            )

        return await run_tasks(
            store=ctx.store,
            run_id=ctx.run_id,
            tasks=tasks,
            worker=worker,
            concurrency=ctx.request.concurrency,
            show_progress=ctx.request.show_progress,
            clients=[ctx.client, ctx.judge],
        )

    def result_tables(self, samples: pd.DataFrame) -> dict[str, pd.DataFrame]:
        answer = samples["parsed"].map(lambda p: (p or {}).get("answer")).fillna(samples["status"])
        counts = pd.crosstab(samples["item"], answer).reset_index().rename(columns={"item": "nation"})
        return {"answers": counts}
