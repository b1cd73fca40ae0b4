"""`nationbias ablate | study | demo | report`: the whole paper for one or more models, then a report."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import pandas as pd
import typer

from nationbias.evals.api import sync
from nationbias.evals.cli.common import (
    EMBEDDED_NOTICE,
    RUN,
    SAMPLE,
    UsageError,
    check_prompts,
    cli_errors,
    cli_hooks,
    console,
    err_console,
    given,
    make_client,
    new_run_id,
    shared_options,
)
from nationbias.evals.cli.cost import dry_running
from nationbias.evals.cli.table_output import print_table
from nationbias.evals.page.study import write_study_report
from nationbias.evals.study import Cell, StudyPlan, astudy, demo_limits, describe, paper_cells
from nationbias.evals.study import ablate as ablate_runs
from nationbias.graphs.terminal_text import plain
from nationbias.stores.domain import slug

__all__ = ["Cell", "StudyPlan", "grid_cells", "parse_grid", "register", "write_study_report"]

GRID_HELP = (
    "Grid values may be space- or comma-separated: --k 1 2 --reflexion on off --retriever keyword bm25"
)


def parse_grid(args: list[str]) -> dict[str, list[str]]:
    """``--k 1 2 --reflexion on off`` (click takes one value per option, so we read the rest here)."""
    grid: dict[str, list[str]] = {}
    key: str | None = None
    for token in args:
        if token.startswith("--"):
            key = token[2:]
            if key not in {"k", "reflexion", "retriever"}:
                raise UsageError(
                    f"unknown option {token!r}; the grid options are --k, --reflexion, --retriever"
                )
            grid.setdefault(key, [])
            continue
        if key is None:
            raise UsageError(f"unexpected argument {token!r}")
        grid[key].extend(v for v in token.split(",") if v)
    return grid


def grid_cells(grid: dict[str, list[str]]) -> list[Cell]:
    from nationbias.retrievers import RETRIEVERS

    try:
        ks = [int(v) for v in grid.get("k") or ["1"]]
    except ValueError as exc:
        raise UsageError(f"--k takes whole numbers: {exc}") from None
    if any(k < 0 for k in ks):
        raise UsageError(f"--k must be >= 0, got {min(ks)}")
    flags = {"on": True, "true": True, "off": False, "false": False}
    bad = [v for v in grid.get("reflexion") or [] if v.lower() not in flags]
    if bad:
        raise UsageError(f"--reflexion takes on/off, got {bad}")
    reflexions = [flags[v.lower()] for v in grid.get("reflexion") or ["on"]]
    retrievers = grid.get("retriever") or ["keyword"]
    unknown = [r for r in retrievers if r not in RETRIEVERS]
    if unknown:
        raise UsageError(f"unknown retriever(s) {unknown}: choose from {', '.join(RETRIEVERS)}")
    return [Cell(k, rf, r) for k in dict.fromkeys(ks) for rf in dict.fromkeys(reflexions) for r in retrievers]


def print_demo_tables(prefix: str, ids: list[str]) -> None:
    """Each demo run's own table, for a test that declares one (the plain vote's votes per draft)."""
    from nationbias.evals.bias_tests import bias_tests
    from nationbias.evals.bias_tests.base import demo_table_of
    from nationbias.stores.state.runstore import RunStore

    for name, test in bias_tests().items():
        run_id, table = f"{prefix}-{name}", demo_table_of(test)
        if table is not None and run_id in ids:
            print_table(table(run_id, RunStore().samples_frame(run_id)), console=console)


def register(app: typer.Typer) -> None:
    """Mount the study-level commands on the root app."""

    @app.command(
        "ablate",
        context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
        epilog=GRID_HELP,
    )
    @cli_errors
    @shared_options(
        "ctx", "model", "base_url", *SAMPLE, "personas", "body", "years", "targets", "texts", *RUN
    )
    def ablate(
        ctx: typer.Context,
        model: Annotated[str, typer.Option("--model", "-m", help="Model spec.")] = "local:smollm2",
        **options: Any,
    ) -> None:
        """Table 4: the debiased vote over k × reflexion × retriever, one run id per cell (the Council's
        P5, or with --body unga the Assembly's states: default a seeded sample of 20)."""
        common = given(ablate, locals() | options, drop=("ctx", "run_id"))  # the rest, for the library
        from nationbias.evals.cli.outcome import offer_resume_id
        from nationbias.evals.study import ablated_test
        from nationbias.evals.tables.paper import ablation_table
        from nationbias.stores.state.runstore import RunStore

        cells = grid_cells(parse_grid(list(ctx.args)))
        check_prompts(options["prompts"], language=options["language"])
        make_client(model, base_url=options["base_url"], no_cache=options["no_cache"])
        prefix = options["run_id"] or new_run_id("ablate", model)
        offer_resume_id(prefix)
        run = StudyPlan(**{k: v for k, v in common.items() if k != "model"}, cells=cells)
        console.print(describe(run, ablation=True), highlight=False, soft_wrap=True)
        ids = ablate_runs(cells=cells, run_prefix=prefix, hooks=cli_hooks(), **common)
        if dry_running():
            return  # the dry run's table (evals/cli/cost.py) is the output
        store = RunStore()
        # one row per run, in the grid's order: the pooled table sorts its cells, so ids set beside it
        # afterwards would name the wrong rows
        rows = [
            ablation_table([(store.get_run(i), store.samples_frame(i))], ablated=ablated_test()).assign(
                run_id=i
            )
            for i in ids
        ]
        frame = pd.concat(rows, ignore_index=True)
        frame.insert(0, "run_id", frame.pop("run_id"))
        console.print(frame.to_string(index=False))

    @app.command(
        "study",
        context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
        epilog=GRID_HELP,
    )
    @cli_errors
    @shared_options(
        "ctx", "model", "judge", "base_url", "limit", "repeats", "seed", "personas", "body", "years",
        "targets", "texts", *RUN, "languages", "reasoning_max_tokens",
    )  # fmt: skip
    def study(
        ctx: typer.Context,
        model: Annotated[
            list[str], typer.Option("--model", "-m", help="Model spec; repeat for several models.")
        ],
        judge: Annotated[
            str | None, typer.Option("--judge", help="Judge model for undecided labels.")
        ] = None,
        retry_errors: Annotated[bool, typer.Option("--retry-errors")] = False,
        languages: Annotated[
            str | None,
            typer.Option(
                "--languages",
                help="Ask every test again in these languages too (en,zh,ru): the report shows each "
                "language's effect against --language (default en), with a paired interval.",
            ),
        ] = None,
        **options: Any,
    ) -> None:
        """The whole paper for each model (DirectQA, AT, vote, debias, ablation) and who proposed it
        (attribution, its voters naming no nation), then one report; with --body unga the vote and the
        ablation on the Assembly's states (default: a seeded sample of 20). The ablation is the paper's
        three cells, or the grid given as to `ablate` (--retriever newest)."""
        from nationbias.evals.cli.outcome import offer_resume_id
        from nationbias.graphs.model.budget import check_budget

        cells = grid_cells(parse_grid(list(ctx.args))) if ctx.args else paper_cells()
        grid = tuple(code.strip() for code in (languages or "").split(",") if code.strip())
        for code in grid:
            check_prompts(options["prompts"], language=code)
        check_prompts(options["prompts"], language=options["language"])
        check_budget(options["reasoning_max_tokens"])
        base_url, no_cache = options["base_url"], options["no_cache"]
        for spec in model:
            make_client(spec, base_url=base_url, no_cache=no_cache)  # every key checked before any work
        if judge:
            from nationbias.graphs.model.registry import shared_url

            make_client(judge, base_url=shared_url(judge, base_url), no_cache=no_cache)
        # every test the registry places in a study, each with --limit (the ablation too)
        plan = StudyPlan(
            **given(study, locals() | options, drop=("ctx", "model", "run_id", "languages")),
            languages=grid,
            cells=cells,
        )
        console.print(describe(plan), highlight=False, soft_wrap=True)
        hooks = cli_hooks()
        ids: list[str] = []
        names = [spec.split(":", 1)[-1] for spec in model]
        # Several models share one id (the given --run-id, or a new one): it resumes them all.
        shared = options["run_id"] or (new_run_id("study", "-".join(names)) if len(model) > 1 else None)
        for spec, name in zip(model, names, strict=True):
            prefix = f"{shared}-{name}" if shared and len(model) > 1 else shared
            prefix = slug(prefix or new_run_id("study", spec))
            offer_resume_id(shared or prefix)
            ids += sync(astudy(model=spec, plan=plan, run_prefix=prefix, hooks=hooks))
        if not dry_running():  # a dry run's output is its table (evals/cli/cost.py)
            print(write_study_report(ids))

    @app.command("demo")
    @cli_errors
    @shared_options(
        "drafts", "debias_drafts", "keywords", "repeats", "seed", "run_id", "data", "prompts", repeats=2
    )  # fmt: skip
    def demo(
        drafts: Annotated[int, typer.Option("--drafts", help="Drafts for the vote simulation.")] = 3,
        debias_drafts: Annotated[
            int, typer.Option("--debias-drafts", help="Drafts for debias/ablation.")
        ] = 1,
        keywords: Annotated[int, typer.Option("--keywords", help="Association Test keywords.")] = 3,
        **options: Any,
    ) -> None:
        """The whole study on the embedded model, on a small subset (a few minutes on 2 cores)."""
        from nationbias.evals.cli.outcome import offer_resume_id

        check_prompts(options["prompts"])
        console.print(f"[yellow]nationbias demo: {EMBEDDED_NOTICE}[/]")
        plan = StudyPlan(  # each test's demo slice (its ``study``), drafts and keywords as given
            limits=demo_limits({"drafts": drafts, "keywords": keywords}),
            debias_limit=debias_drafts,
            repeats=options["repeats"],
            seed=options["seed"],
            concurrency=2,
            prompts=options["prompts"],
            cells=[Cell(1, True, "keyword"), Cell(1, False, "keyword")],
            # The embedded model also judges what the labelling rules cannot decide: plumbing, not judgement.
            judge="local:smollm2",
        )
        prefix = slug(options["run_id"] or new_run_id("demo", "smollm2"))
        offer_resume_id(prefix)
        ids = sync(astudy(model="local:smollm2", plan=plan, run_prefix=prefix, hooks=cli_hooks()))
        print_demo_tables(prefix, ids)
        console.print(f"[yellow]{EMBEDDED_NOTICE}[/]")
        print(write_study_report(ids))

    @app.command("report")
    @cli_errors
    def report(
        run_ids: Annotated[list[str], typer.Argument(help="Run ids (see `nationbias runs list`).")],
        out: Annotated[
            Path | None, typer.Option("--out", help="Folder for index.html, PNGs and CSVs.")
        ] = None,
    ) -> None:
        """One self-contained HTML page for the runs given, with CSVs and PNGs beside it."""
        from nationbias.evals.report.reportable import progress_notes, reportable
        from nationbias.stores.state.runstore import RunStore

        store = RunStore()
        ids = reportable(run_ids, store)  # each once; an unknown id or one with no samples fails first
        for note in progress_notes(ids, store):
            err_console.print(plain(note), highlight=False, soft_wrap=True)
        print(write_study_report(ids, out=out))
