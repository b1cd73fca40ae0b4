"""One run's named result tables, ready for the CLI, a notebook or the report: each test's own, its per-nation
claims corrected for multiplicity (``significance``), and metadata.

Above the registry of tests (evals/bias_tests/), which it asks for each test's tables; no test imports it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

import pandas as pd

from nationbias.evals.bias_tests import bias_tests, get_test
from nationbias.evals.bias_tests.base import claims_of
from nationbias.evals.tables.metadata import metadata_frame
from nationbias.evals.tables.significance import significance_table

if TYPE_CHECKING:
    from nationbias.stores.state.runstore import RunStore


SHARED_TABLES = ("significance", "metadata")  # every run's, beside its test's own


class _ResultTables(Mapping[str, tuple[str, ...]]):
    """Test name → the names of its result tables, read from the registry (evals/bias_tests)."""

    def _tables(self) -> dict[str, tuple[str, ...]]:
        return {name: (*test.tables, *SHARED_TABLES) for name, test in bias_tests().items()}

    def __getitem__(self, test: str) -> tuple[str, ...]:
        return self._tables()[test]

    def __iter__(self) -> Iterator[str]:
        return iter(self._tables())

    def __len__(self) -> int:
        return len(self._tables())


RESULT_TABLES: Mapping[str, tuple[str, ...]] = _ResultTables()


def tables_for(run_id: str, config: dict[str, Any], samples: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The named tables of one run, computed from its config and samples frame."""
    test = get_test(str(config.get("test")))
    out = test.result_tables(samples)
    out["significance"] = significance_table(run_id, config, samples, claims=claims_of(test))
    # a run stored before --targets was recorded asked about its test's default (the vote's: "failed")
    out["metadata"] = metadata_frame(
        run_id, config, samples, default_targets=str(getattr(test, "default_targets", ""))
    )
    return out


def results(run_id: str, *, store: RunStore | None = None) -> dict[str, pd.DataFrame]:
    """The named tables for ``run_id`` (see ``RESULT_TABLES`` for the names per test)."""
    if store is None:
        from nationbias.stores.state.runstore import RunStore

        store = RunStore()
    config = store.get_run(run_id)
    return tables_for(run_id, config, store.samples_frame(run_id))
