"""nationbias as a library: one import gives the whole API; the one name the package installs.

    import nationbias
    summary = nationbias.run("vote", model="local:smollm2", limit=1, repeats=1)
    nationbias.results(summary.run_id)["weighted_f1"]
    nationbias.report(summary.run_id)

Each call has an ``a``-prefixed coroutine to ``await`` in a running loop (a notebook); the sync
ones work there too.

The card's folders are its subpackages: ``nationbias.graphs``, ``.retrievers``, ``.prompts``, ``.stores`` and
``.evals`` (in the repository they stay at the top, and ``nationbias/<folder>`` links to each). The API
below is imported on first use, so ``python -m nationbias.stores.corpora.bundled`` or the embedded model's
worker process loads only what it needs.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nationbias.evals.api import Hooks, arun, report, results, run
    from nationbias.evals.bias_tests import BiasTest, RunContext, RunRequest, bias_test, bias_tests, get_test
    from nationbias.evals.results import RESULT_TABLES
    from nationbias.evals.study import Cell, StudyPlan, aablate, ablate, astudy, study
    from nationbias.graphs.model.registry import get_chat_model
    from nationbias.graphs.study.options import RunOptions
    from nationbias.retrievers import RETRIEVERS, get_retriever
    from nationbias.stores.corpora.bundled import using_data

__all__ = [
    "RESULT_TABLES",
    "RETRIEVERS",
    "BiasTest",
    "Cell",
    "Hooks",
    "RunContext",
    "RunOptions",
    "RunRequest",
    "StudyPlan",
    "aablate",
    "ablate",
    "arun",
    "astudy",
    "bias_test",
    "bias_tests",
    "get_chat_model",
    "get_retriever",
    "get_test",
    "report",
    "results",
    "run",
    "study",
    "using_data",
]

_HOMES = {
    "Hooks": "nationbias.evals.api",
    "arun": "nationbias.evals.api",
    "report": "nationbias.evals.api",
    "results": "nationbias.evals.api",
    "run": "nationbias.evals.api",
    "BiasTest": "nationbias.evals.bias_tests",
    "RunContext": "nationbias.evals.bias_tests",
    "RunRequest": "nationbias.evals.bias_tests",
    "bias_test": "nationbias.evals.bias_tests",
    "bias_tests": "nationbias.evals.bias_tests",
    "get_test": "nationbias.evals.bias_tests",
    "RESULT_TABLES": "nationbias.evals.results",
    "Cell": "nationbias.evals.study",
    "StudyPlan": "nationbias.evals.study",
    "aablate": "nationbias.evals.study",
    "ablate": "nationbias.evals.study",
    "astudy": "nationbias.evals.study",
    "study": "nationbias.evals.study",
    "get_chat_model": "nationbias.graphs.model.registry",
    "RunOptions": "nationbias.graphs.study.options",
    "RETRIEVERS": "nationbias.retrievers",
    "get_retriever": "nationbias.retrievers",
    "using_data": "nationbias.stores.corpora.bundled",
}


def __getattr__(name: str) -> Any:
    """The API's names, imported on first use (PEP 562)."""
    if name not in _HOMES:
        raise AttributeError(f"module 'nationbias' has no attribute {name!r}")
    value = getattr(importlib.import_module(_HOMES[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
