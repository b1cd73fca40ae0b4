"""`nationbias baselines`: every non-LLM baseline's scores per member, with bootstrap intervals.

A body (the Council, later the Assembly) is one entry of :data:`BODIES`: a function from a year
window to the predictions frame (:data:`PREDICTION_COLUMNS`). Everything else (scores, intervals,
the CSV files) is computed here the same way for every body, so anyone can rescore the predictions.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import pandas as pd
import typer
from rich.table import Table

from nationbias.evals.cli.common import BodyOpt, DataOpt, UsageError, cli_errors, console
from nationbias.evals.stats.scores import ALL_MEMBERS, METRICS, score_table
from nationbias.graphs.study.sampling import parse_years

if TYPE_CHECKING:
    from nationbias.retrievers import Retriever
    from nationbias.stores.corpora.corpus import Corpus

Years = tuple[int, int] | None
PREDICTION_COLUMNS = ("baseline", "item_id", "date", "member", "truth", "predicted")


@dataclass
class _Council:
    """One corpus's predictions, with the corpus and retriever the learned model's fits are cached on."""

    corpus: Corpus
    retriever: Retriever
    frame: pd.DataFrame


_UNSC: dict[str, _Council] = {}  # by corpus sha256: every prediction computed once per process


def _council() -> _Council:
    from nationbias.evals.baselines.council import METHODS, baseline_predictions
    from nationbias.retrievers import get_retriever
    from nationbias.stores.corpora.corpus import load_corpus

    corpus = load_corpus()
    if corpus.sha256 not in _UNSC:
        dates = {draft.id: draft.date.isoformat() for draft in corpus.drafts}
        retriever = get_retriever("keyword", threshold=0)  # one index, shared by the baselines
        frames = []
        for method in METHODS:
            frame = baseline_predictions(corpus, method=method, retriever=retriever)
            frames.append(pd.DataFrame({
                "baseline": method, "item_id": frame["item"], "date": frame["item"].map(dates),
                "member": frame["persona"], "truth": frame["truth"], "predicted": frame["pred"],
            }))  # fmt: skip
        frame = pd.concat(frames, ignore_index=True)[list(PREDICTION_COLUMNS)]
        _UNSC[corpus.sha256] = _Council(corpus, retriever, frame)
    return _UNSC[corpus.sha256]


def _in_years(frame: pd.DataFrame, years: Years) -> pd.DataFrame:
    if years is not None:
        year = frame["date"].str[:4].astype(int)
        frame = frame[(year >= years[0]) & (year <= years[1])]
    return frame.reset_index(drop=True)


def unsc_predictions(years: Years) -> pd.DataFrame:
    """Every Council baseline's prediction of every P5 vote on the non-adopted drafts in ``years``."""
    return _in_years(_council().frame, years)


def unsc_explanations(years: Years) -> list[dict[str, Any]]:
    """The learned model's account of each of its predictions in ``years`` (precedents, contributions)."""
    from nationbias.evals.baselines.precedent_model import model_for

    council = _council()
    model = model_for(council.corpus, retriever=council.retriever)  # the fits behind the predictions
    rows = _in_years(council.frame[council.frame["baseline"] == "learned"], years)
    return [model.explain(item, member) for item, member in zip(rows["item_id"], rows["member"], strict=True)]


# The bodies with baselines: one line adds a body (its function returns PREDICTION_COLUMNS).
def unga_predictions(years: Years) -> pd.DataFrame:
    """Every Assembly baseline's prediction of every recorded vote in ``years`` (default: UNSim's
    window, 2005–2019; the learned model refits every year, so the whole record takes minutes)."""
    from nationbias.evals.baselines.assembly import METHODS, UNSIM_YEARS, assembly_predictions

    frame = assembly_predictions(years=years or UNSIM_YEARS, methods=METHODS)
    return frame.assign(date=frame["date"].dt.strftime("%Y-%m-%d"))


BODIES: dict[str, Callable[[Years], pd.DataFrame]] = {"unsc": unsc_predictions, "unga": unga_predictions}


def unga_explanations(years: Years) -> Iterable[dict[str, Any]]:
    """The learned Assembly model's account of each of its predictions in ``years`` (default 2005–2019)."""
    from nationbias.evals.baselines.assembly import UNSIM_YEARS
    from nationbias.evals.baselines.assembly_explain import explain_years

    return explain_years(years or UNSIM_YEARS)


# The bodies whose learned baseline explains its predictions (--explain).
EXPLAINERS: dict[str, Callable[[Years], Iterable[dict[str, Any]]]] = {
    "unsc": unsc_explanations,
    "unga": unga_explanations,
}


def _print_table(table: pd.DataFrame, body: str) -> None:
    """Every row for the Council; for the Assembly (193 states) the pooled rows, the states in the CSV."""
    many = table["member"].nunique() > 16
    if many:
        table = table[table["member"] == ALL_MEMBERS]
    shown = Table("baseline", "member", "n", *METRICS, title=f"{body}: non-LLM baselines (95% bootstrap CI)")
    for row in table.itertuples(index=False):
        cells = [f"{getattr(row, m):.3f} [{getattr(row, m + '_low'):.2f},{getattr(row, m + '_high'):.2f}]"
                 for m in METRICS]  # fmt: skip
        shown.add_row(str(row.baseline), str(row.member), str(row.n), *cells)
    console.print(shown)
    if many:
        from nationbias.evals.baselines.assembly import UNSIM

        console.print("UNSim (published, 2005–2019): " + ", ".join(f"{k} {v:.3f}" for k, v in UNSIM.items())
                      + "; per state: --format csv")  # fmt: skip
        return
    members = table[table["member"] != ALL_MEMBERS]
    means = members.groupby("baseline", sort=False)["weighted_f1"].mean()
    console.print("mean weighted F1 over members: " + ", ".join(f"{b} {v:.3f}" for b, v in means.items()))


YearsOpt = Annotated[
    str | None, typer.Option("--years", help="A year or a range, e.g. 2013-2024 (unga default: 2005-2019).")
]
FormatOpt = Annotated[str, typer.Option("--format", help="table (default) or csv (to stdout).")]
PredictionsOpt = Annotated[
    Path | None, typer.Option("--predictions", help="Also write every prediction to this CSV file.")
]
ExplainOpt = Annotated[
    Path | None,
    typer.Option("--explain", help="Write the learned model's precedents and contributions (JSON lines)."),
]
ResamplesOpt = Annotated[int, typer.Option("--resamples", help="Bootstrap resamples per interval.")]
GroupsOpt = Annotated[
    str | None,
    typer.Option(
        "--groups", help="Score groups and their gap to the rest: regions, p5, or a CSV (code,group)."
    ),
]


def _print_groups(table: pd.DataFrame, body: str) -> None:
    shown = Table("baseline", "group", "members", "votes", "accuracy", "rest", "gap [95% CI]",
                  title=f"{body}: each group against the rest (paired bootstrap over items)")  # fmt: skip
    for r in table.itertuples(index=False):
        gap = f"{r.accuracy_gap:+.3f} [{r.accuracy_gap_low:+.3f},{r.accuracy_gap_high:+.3f}]"
        shown.add_row(str(r.baseline), str(r.group), str(r.members), str(r.votes), f"{r.accuracy:.3f}",
                      f"{r.accuracy_rest:.3f}", gap)  # fmt: skip
    console.print(shown)
    console.print("weighted F1 and its gap: --format csv")


def register(app: typer.Typer) -> None:
    """Add `nationbias baselines` to ``app``."""

    @app.command("baselines")
    @cli_errors
    def baselines(
        body: BodyOpt = "unsc",
        years: YearsOpt = None,
        fmt: FormatOpt = "table",
        predictions: PredictionsOpt = None,
        explain: ExplainOpt = None,
        resamples: ResamplesOpt = 2000,
        groups: GroupsOpt = None,
        data: DataOpt = None,
    ) -> None:
        """Every non-LLM baseline × member: accuracy, weighted F1, F1 per vote, with 95% bootstrap CIs."""
        name = body.strip().lower()
        if name not in BODIES:
            raise UsageError(f"--body: unknown body {body!r}; valid: {', '.join(BODIES)}")
        if fmt not in ("table", "csv"):
            raise UsageError(f"--format takes table or csv, got {fmt!r}")
        if resamples < 1:
            raise UsageError(f"--resamples must be at least 1, got {resamples}")
        if explain is not None and name not in EXPLAINERS:
            raise UsageError(f"--explain: no explained baseline for {name} yet")
        window = parse_years(years)
        frame = BODIES[name](window)
        if frame.empty:
            raise UsageError(f"--years {years}: no {name} items in that window")
        if predictions is not None:
            frame.to_csv(predictions, index=False, columns=["baseline", "item_id", "date", "member",
                                                            "predicted", "truth"])  # fmt: skip
        if explain is not None:  # line by line (the Assembly's are many), then renamed: never half a file
            partial = explain.with_name(explain.name + ".partial")
            with partial.open("w", encoding="utf-8") as out:
                for entry in EXPLAINERS[name](window):
                    out.write(json.dumps(entry, ensure_ascii=False) + "\n")
            partial.replace(explain)
        if groups is not None:
            from nationbias.evals.stats.groups import group_gaps, load_groups

            by_group = group_gaps(frame, load_groups(groups, frame["member"].unique()), n_resamples=resamples)
            if fmt == "csv":
                by_group.to_csv(sys.stdout, index=False, float_format="%.4f")
            else:
                _print_groups(by_group, name)
            return
        table = score_table(frame, n_resamples=resamples)
        if fmt == "csv":
            table.to_csv(sys.stdout, index=False, float_format="%.4f")
        else:
            _print_table(table, name)
