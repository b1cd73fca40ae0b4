"""`nationbias batch export|import` and `nationbias runs status|resume`: batch runs from the shell.

Export and import are how a round runs on machines nationbias never talks to: vLLM's offline batch
runner (``python -m vllm.entrypoints.openai.run_batch``) reads and writes OpenAI's batch formats.
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import typer

from nationbias.evals.cli.common import cli_errors, console, err_console
from nationbias.graphs.terminal_text import plain
from nationbias.stores.errors import InputError

batch_app = typer.Typer(help="Run a batch round elsewhere: export its requests, import the results.")


def _store(run_id: str, *, plain: str = "") -> Any:
    """The batch store of ``run_id``; for a run made without ``--batch``, an error saying what it is
    (its counts from the run store) and ``plain``: what to do instead."""
    from nationbias.stores.state.batches import BatchStore
    from nationbias.stores.state.runstore import RunNotFoundError, RunStore, check_run_id

    check_run_id(run_id)
    store = BatchStore()
    if store.argv(run_id) is False:
        try:
            RunStore().get_run(run_id)
        except RunNotFoundError as missing:  # no such run at all: say that
            raise InputError(f"run {run_id!r} has no batch rounds: {missing}") from None
        counts = RunStore().runs_frame().set_index("run_id").loc[run_id]
        raise InputError(
            f"run {run_id!r} is a plain run, not a batch run (no --batch or --batch-offline): no rounds; "
            f"ok {counts['ok']} · invalid {counts['invalid']} · error {counts['error']} stored"
            + (f". {plain}" if plain else "")
        )
    return store


@batch_app.command("export")
@cli_errors
def batch_export(
    run_id: str,
    round_: Annotated[int, typer.Option("--round", help="The round whose pending requests to write.")],
) -> None:
    """A round's pending requests in OpenAI's batch input format, to stdout."""
    from nationbias.graphs.study.batch_rounds import input_lines

    store = _store(run_id)
    rounds = sorted({row.round for row in store.rounds(run_id)})
    if round_ not in rounds:
        raise InputError(f"run {run_id!r} has no round {round_}: its rounds are {rounds or 'none yet'}")
    pending = [r for r in store.requests(run_id, round_) if r["status"] == "pending"]
    if not pending:
        err_console.print(f"round {round_} of {run_id} has no pending request", highlight=False)
        return
    sys.stdout.buffer.write(input_lines(pending))
    sys.stdout.flush()


@batch_app.command("import")
@cli_errors
def batch_import(
    run_id: str,
    results: Annotated[
        Path, typer.Argument(help="A batch output file (OpenAI's format; vLLM run_batch's -o).")
    ],
) -> None:
    """Ingest a results file into the response cache: the whole file is checked before anything is written."""
    from nationbias.graphs.model.batch.ingest import ingest, parse_output
    from nationbias.stores.state.cache import ResponseCache

    store = _store(run_id)
    try:
        text = results.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read {results}: {exc}") from None
    requests = {r["custom_id"]: r for r in store.requests(run_id)}
    lines = parse_output(text, source=str(results), known=requests)
    outcomes = ingest(
        lines, store=store, cache=ResponseCache(), run_id=run_id, requests=requests, final=False
    )
    ok = sum(o.ok for o in outcomes)
    console.print(
        f"imported {ok} answer(s), {len(outcomes) - ok} failed line(s) (asked again next round) into "
        f"{run_id}; continue with: nationbias runs resume {run_id}",
        highlight=False,
    )


def _when(stamp: float | None) -> str:
    return datetime.fromtimestamp(stamp, UTC).strftime("%Y-%m-%d %H:%M:%S") if stamp else "-"


def runs_status(run_id: str) -> None:
    """Each round of a batch run: its batch, state, counts, and the estimated cost saved."""
    from nationbias.evals.batch_cost import saved
    from nationbias.graphs.model.batch.calls import Endpoint

    store = _store(run_id)
    for row in store.rounds(run_id):
        state = row.state + (f" ({row.server_state})" if row.server_state else "")
        pending = row.requests - row.done - row.failed
        console.print(
            plain(
                f"round {row.round} · {Endpoint.from_group(row.grp).model} · batch {row.batch_id or '-'} · "
                f"{state} · {row.requests} requests: {row.done} done, {row.failed} failed, "
                f"{pending} pending · submitted {_when(row.submitted)} · ended {_when(row.completed)}"
            ),
            highlight=False,
            soft_wrap=True,
        )
    tokens: dict[str, list[int]] = {}
    for request in store.requests(run_id):
        if request["status"] == "done":
            endpoint = Endpoint.from_group(request["grp"])
            count = tokens.setdefault(f"{endpoint.provider}:{endpoint.model}", [0, 0])
            count[0] += request["prompt_tokens"] or 0
            count[1] += request["completion_tokens"] or 0
    for model, (prompt, completion) in tokens.items():
        estimate = saved(model, prompt_tokens=prompt, completion_tokens=completion)
        line = f"estimated cost saved on {model}: {estimate} · {prompt} in, {completion} out tokens"
        console.print(line, highlight=False, soft_wrap=True)
    for request in store.requests(run_id):
        if request["status"] == "failed":
            console.print(
                plain(f"  failed {request['custom_id'][:16]}… ×{request['attempts']}: {request['reason']}"),
                highlight=False,
                soft_wrap=True,
            )


def runs_resume(run_id: str, *, root: typer.Typer) -> None:
    """Run the stored command of a batch run again: it settles its open batches, then goes on."""
    store = _store(
        run_id,
        plain="Its command is not stored: rerun the command its summary line printed after `resume:` "
        f"(the same command with --run-id {run_id}), which skips the samples already done",
    )
    argv = store.argv(run_id)
    if not argv:
        raise InputError(f"run {run_id!r} was started from the library: call it again with run_id={run_id!r}")
    console.print(f"resuming: {' '.join(argv)}", highlight=False)
    root(args=list(argv[1:]), prog_name="nationbias")


def register(root: typer.Typer, runs_app: typer.Typer) -> None:
    """Mount `batch …` on the root app and `runs status|resume` on `runs`."""
    root.add_typer(batch_app, name="batch")
    runs_app.command("status")(cli_errors(runs_status))

    def resume(run_id: str) -> None:  # the root app runs the stored command (no import of cli/main.py)
        runs_resume(run_id, root=root)

    resume.__doc__ = runs_resume.__doc__
    runs_app.command("resume")(cli_errors(resume))
