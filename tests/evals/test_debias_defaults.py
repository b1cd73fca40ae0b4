"""The debiased vote's defaults are written once (graphs/debias_options.py): the CLI's options and the
registered test's (what ``nationbias.run`` fills in) are the same values."""

from __future__ import annotations

import inspect

from nationbias.evals.bias_tests import get_test
from nationbias.evals.bias_tests.base import option_defaults
from nationbias.evals.cli.data import audit
from nationbias.evals.cli.run import run_vote
from nationbias.graphs.debias_options import DebiasOptions
from nationbias.stores.domain import DEBIAS


def _defaults(command: object) -> dict[str, object]:
    return {name: p.default for name, p in inspect.signature(command).parameters.items()}  # type: ignore[arg-type]


def test_the_cli_and_the_library_take_the_debias_defaults_from_one_place() -> None:
    defaults = DebiasOptions.defaults()
    assert defaults == {
        "k": 1,
        "reflexion": True,
        "retriever": "keyword",
        "threshold": 3.0,
        "recency_halflife": None,
    }
    assert option_defaults(get_test(DEBIAS)) == defaults  # what the library's run fills in
    cli = _defaults(run_vote)
    assert {name: cli[name] for name in defaults} == defaults
    assert DebiasOptions(**defaults) == DebiasOptions()
    data_audit = _defaults(audit)
    assert (data_audit["k"], data_audit["threshold"]) == (defaults["k"], defaults["threshold"])
