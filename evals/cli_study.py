"""`nationbias ablate | study | demo | report`: the whole paper for one or more models, then a report."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import typer

from evals.cli_common import (
    EMBEDDED_NOTICE,
    REASONING_MAX_TOKENS,
    BaseUrlOpt,
    ConcurrencyOpt,
    DataOpt,
    FailOnErrorOpt,
    LimitOpt,
    NoCacheOpt,
    PromptsOpt,
    ReasoningMaxTokensOpt,
    RepeatsOpt,
    RetryErrorsOpt,
    RunIdOpt,
    SeedOpt,
    UsageError,
    apply_data,
    cli_errors,
    console,
    make_client,
)

GRID_HELP = (
    "Grid values may be space- or comma-separated: --k 1 2 --reflexion on off --retriever keyword bm25"
)


@dataclass(frozen=True)
class Cell:
    k: int
    reflexion: bool
    retriever: str

    @property
    def slug(self) -> str:
        return f"k{self.k}-{'rf' if self.reflexion else 'norf'}-{self.retriever}"


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
    from retrievers import RETRIEVERS

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


@dataclass
class StudyPlan:
    """Subset sizes: the full paper by default, a small slice for the demo."""

    directqa_families: int | None = None
    keywords: int | None = None
    drafts: int | None = None
    debias_drafts: int | None = None
    repeats: int = 3
    seed: int = 0
    concurrency: int = 4
    prompts: str = "structured"  # the prompt set (prompts/registry.py)
    reasoning_max_tokens: int = REASONING_MAX_TOKENS
    cells: list[Cell] = field(
        default_factory=lambda: [
            Cell(1, True, "keyword"),
            Cell(2, True, "keyword"),
            Cell(1, False, "keyword"),
        ]
    )


def run_ablation(
    *,
    model: str,
    base_url: str | None,
    cells: list[Cell],
    run_prefix: str,
    limit: int | None,
    seed: int,
    repeats: int,
    concurrency: int,
    no_cache: bool,
    retry_errors: bool = False,
    prompts: str = "structured",
    reasoning_max_tokens: int = REASONING_MAX_TOKENS,
) -> list[str]:
    from evals.cli_run import run_vote_command

    run_ids = []
    for cell in cells:
        run_ids.append(
            run_vote_command(
                model=model,
                base_url=base_url,
                debias=True,
                k=cell.k,
                reflexion=cell.reflexion,
                retriever=cell.retriever,
                threshold=3.0,
                limit=limit,
                seed=seed,
                repeats=repeats,
                personas="p5",
                concurrency=concurrency,
                run_id=f"{run_prefix}-debias-{cell.slug}",
                retry_errors=retry_errors,
                no_cache=no_cache,
                prompts=prompts,
                reasoning_max_tokens=reasoning_max_tokens,
            )
        )
    return run_ids


def run_study(
    *,
    model: str,
    base_url: str | None,
    judge: str | None,
    plan: StudyPlan,
    run_prefix: str,
    no_cache: bool,
    retry_errors: bool = False,
) -> list[str]:
    """DirectQA, Association Test, vote, debiased vote and the ablation, as resumable runs."""
    from evals.cli_run import run_association_command, run_directqa_command, run_vote_command
    from prompts import prompt_set

    vote_judge = judge if prompt_set(plan.prompts).free_text else None  # structured votes need none
    common: dict[str, Any] = dict(
        seed=plan.seed,
        repeats=plan.repeats,
        concurrency=plan.concurrency,
        no_cache=no_cache,
        retry_errors=retry_errors,
        prompts=plan.prompts,
        reasoning_max_tokens=plan.reasoning_max_tokens,
    )
    ids = [
        run_directqa_command(
            model=model,
            judge=judge,
            base_url=base_url,
            limit=plan.directqa_families,
            run_id=f"{run_prefix}-directqa",
            **common,
        ),
        run_association_command(
            model=model,
            judge=judge,
            base_url=base_url,
            limit=plan.keywords,
            run_id=f"{run_prefix}-association",
            **common,
        ),
        run_vote_command(
            model=model,
            base_url=base_url,
            debias=False,
            k=0,
            reflexion=False,
            retriever="keyword",
            threshold=3.0,
            limit=plan.drafts,
            personas="p5",
            run_id=f"{run_prefix}-vote",
            judge=vote_judge,
            **common,
        ),
    ]
    ids += run_ablation(
        model=model,
        base_url=base_url,
        cells=plan.cells,
        run_prefix=run_prefix,
        limit=plan.debias_drafts,
        seed=plan.seed,
        repeats=plan.repeats,
        concurrency=plan.concurrency,
        no_cache=no_cache,
        retry_errors=retry_errors,
        prompts=plan.prompts,
        reasoning_max_tokens=plan.reasoning_max_tokens,
    )
    return ids


def write_study_report(run_ids: list[str], *, out: Path | None = None) -> Path:
    """The HTML report, with the non-LLM baselines scored on the drafts the runs covered."""
    from evals.baselines import baseline_f1
    from evals.report import write_report
    from stores.corpus import load_corpus
    from stores.paths import home
    from stores.runstore import RunStore

    store = RunStore()
    configs = {rid: store.get_run(rid) for rid in run_ids}
    vote_runs = [rid for rid, cfg in configs.items() if cfg.get("test") in ("vote", "debias")]
    baselines = None
    if vote_runs:
        items = set(store.samples_frame(vote_runs[0])["item"])
        baselines = baseline_f1(load_corpus(), items=items)
    out = out or home() / "reports" / f"{time.strftime('%Y%m%d-%H%M%S')}-{run_ids[0][:40]}"
    return write_report(run_ids, out_dir=out, store=store, baselines=baselines)


def print_vote_table(run_id: str) -> None:
    """Vote per persona against the real vote, one line per draft."""
    from rich.table import Table

    from stores.runstore import RunStore

    frame = RunStore().samples_frame(run_id)
    frame = frame[frame["repeat"] == 0]
    table = Table("draft", "persona", "simulated vote", "real vote", title=f"{run_id} ({EMBEDDED_NOTICE})")
    for record in frame.sort_values(["item", "persona"]).to_dict(orient="records"):
        parsed, extra = record["parsed"], record["extra"] or {}
        vote = (
            parsed["vote"]
            if isinstance(parsed, dict)
            else f"[red]{record['status']}: {record['parse_error']}"
        )
        table.add_row(str(record["item"]), str(record["persona"]), str(vote), str(extra.get("truth")))
    console.print(table)


def register(app: typer.Typer) -> None:
    """Mount the study-level commands on the root app."""

    @app.command(
        "ablate",
        context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
        epilog=GRID_HELP,
    )
    @cli_errors
    def ablate(
        ctx: typer.Context,
        model: Annotated[str, typer.Option("--model", "-m", help="Model spec.")] = "local:smollm2",
        base_url: BaseUrlOpt = None,
        limit: LimitOpt = None,
        seed: SeedOpt = 0,
        repeats: RepeatsOpt = 3,
        concurrency: ConcurrencyOpt = 4,
        run_id: RunIdOpt = None,
        retry_errors: RetryErrorsOpt = False,
        no_cache: NoCacheOpt = False,
        fail_on_error: FailOnErrorOpt = "0",
        data: DataOpt = None,
    ) -> None:
        """Table 4: the debiased vote over k × reflexion × retriever, one run id per cell."""
        from evals.cli_common import new_run_id
        from evals.cli_outcome import offer_resume_id
        from evals.tables import ablation_table
        from stores.runstore import RunStore

        apply_data(data)
        cells = grid_cells(parse_grid(list(ctx.args)))
        make_client(model, base_url=base_url, no_cache=no_cache)
        prefix = run_id or new_run_id("ablate", model)
        offer_resume_id(prefix)
        ids = run_ablation(
            model=model,
            base_url=base_url,
            cells=cells,
            run_prefix=prefix,
            limit=limit,
            seed=seed,
            repeats=repeats,
            concurrency=concurrency,
            no_cache=no_cache,
            retry_errors=retry_errors,
        )
        store = RunStore()
        frame = ablation_table([(store.get_run(i), store.samples_frame(i)) for i in ids])
        frame.insert(0, "run_id", ids)
        console.print(frame.to_string(index=False))

    @app.command("study")
    @cli_errors
    def study(
        model: Annotated[
            list[str], typer.Option("--model", "-m", help="Model spec; repeat for several models.")
        ],
        judge: Annotated[
            str | None, typer.Option("--judge", help="Judge model for undecided labels.")
        ] = None,
        base_url: BaseUrlOpt = None,
        limit: LimitOpt = None,
        repeats: RepeatsOpt = 3,
        seed: SeedOpt = 0,
        concurrency: ConcurrencyOpt = 4,
        run_id: RunIdOpt = None,
        retry_errors: Annotated[bool, typer.Option("--retry-errors")] = False,
        no_cache: NoCacheOpt = False,
        fail_on_error: FailOnErrorOpt = "0",
        data: DataOpt = None,
        prompts: PromptsOpt = "structured",
        reasoning_max_tokens: ReasoningMaxTokensOpt = REASONING_MAX_TOKENS,
    ) -> None:
        """The whole paper for each model (DirectQA, AT, vote, debias, ablation), then one report."""
        from evals.cli_common import check_prompts, new_run_id
        from evals.cli_outcome import offer_resume_id
        from graphs.budget import check_budget

        apply_data(data)
        check_prompts(prompts)
        check_budget(reasoning_max_tokens)
        for spec in model:
            make_client(spec, base_url=base_url, no_cache=no_cache)  # every key checked before any work
        if judge:
            make_client(judge, base_url=base_url, no_cache=no_cache)
        plan = StudyPlan(
            directqa_families=limit,
            keywords=limit,
            drafts=limit,
            debias_drafts=limit,
            repeats=repeats,
            seed=seed,
            concurrency=concurrency,
            prompts=prompts,
            reasoning_max_tokens=reasoning_max_tokens,
        )
        ids: list[str] = []
        for spec in model:
            prefix = f"{run_id}-{spec.split(':', 1)[-1]}" if run_id and len(model) > 1 else run_id
            prefix = prefix or new_run_id("study", spec)
            offer_resume_id(run_id or _safe(prefix))  # several models share the --run-id given
            ids += run_study(
                model=spec,
                base_url=base_url,
                judge=judge,
                plan=plan,
                run_prefix=_safe(prefix),
                no_cache=no_cache,
                retry_errors=retry_errors,
            )
        print(write_study_report(ids))

    @app.command("demo")
    @cli_errors
    def demo(
        drafts: Annotated[int, typer.Option("--drafts", help="Drafts for the vote simulation.")] = 3,
        debias_drafts: Annotated[
            int, typer.Option("--debias-drafts", help="Drafts for debias/ablation.")
        ] = 1,
        keywords: Annotated[int, typer.Option("--keywords", help="Association Test keywords.")] = 3,
        repeats: RepeatsOpt = 2,
        seed: SeedOpt = 0,
        run_id: RunIdOpt = None,
        data: DataOpt = None,
    ) -> None:
        """The whole study on the embedded model, on a small subset (a few minutes on 2 cores)."""
        from evals.cli_common import new_run_id
        from evals.cli_outcome import offer_resume_id

        apply_data(data)
        console.print(f"[yellow]nationbias demo: {EMBEDDED_NOTICE}[/]")
        plan = StudyPlan(
            directqa_families=1,
            keywords=keywords,
            drafts=drafts,
            debias_drafts=debias_drafts,
            repeats=repeats,
            seed=seed,
            concurrency=2,
            cells=[Cell(1, True, "keyword"), Cell(1, False, "keyword")],
        )
        prefix = _safe(run_id or new_run_id("demo", "smollm2"))
        offer_resume_id(prefix)
        # The embedded model also judges what the labelling rules cannot decide: plumbing, not judgement.
        ids = run_study(
            model="local:smollm2",
            base_url=None,
            judge="local:smollm2",
            plan=plan,
            run_prefix=prefix,
            no_cache=False,
        )
        print_vote_table(f"{prefix}-vote")
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
        from stores.runstore import RunStore

        store = RunStore()
        for rid in run_ids:
            store.get_run(rid)  # an unknown id fails before any work
        print(write_study_report(list(run_ids), out=out))


def _safe(run_id: str) -> str:
    return "".join(c if c.isalnum() or c in "._-" else "-" for c in run_id)[:100]
