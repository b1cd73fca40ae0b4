"""Snippets the cost rules must judge, as a test would write them: never run, never named by a test.

``tests/support/test_costs.py`` loads them by name (a test that named one would itself earn its marks).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from nationbias.evals.page.writer import write_report
from nationbias.evals.style_audit import style_audit
from nationbias.stores.corpora.corpus import Corpus
from nationbias.stores.corpora.unga import assembly_votes
from nationbias.stores.state.runstore import RunStore


def style_audit_fixture(corpus: Corpus) -> Any:
    return style_audit(corpus)


def report_command(runner: Any, app: Any, out: Path) -> Any:
    return runner.invoke(app, ["report", "spend", "--out", str(out)])


def study_command(runner: Any, app: Any, base: list[str]) -> Any:
    return runner.invoke(app, ["study", *base, "--languages", "en,fr", "--run-id", "st"])


def assembly_report(store: RunStore, out: Path) -> Path:
    store.create_run("ga", {"test": "vote", "sample": {"body": "unga", "personas": "all"}})
    return write_report(["ga"], out_dir=out, store=store, n_resamples=20)


def council_report(store: RunStore, out: Path) -> Path:
    store.create_run("v", {"test": "vote", "model": "fake:hash"})
    return write_report(["v"], out_dir=out, store=store, n_resamples=20)


def assembly_reader() -> Any:
    return assembly_votes((2012, 2012))


def council_reader(corpus: Corpus) -> Any:
    return corpus.drafts[-1]


def learned_baseline_imported_in_the_test() -> Any:
    import nationbias.evals.baselines.assembly as baselines

    return baselines.run_predictions(items=["UNGA-3"], personas=["USA"])


def learned_baseline_imported_by_name() -> Any:
    from nationbias.evals.baselines.assembly import run_predictions

    return run_predictions(items=["UNGA-3"], personas=["USA"])


def a_cheap_module_imported_in_the_test() -> Any:
    import nationbias.stores.corpora.countries as countries

    return countries.is_iso3("USA")
