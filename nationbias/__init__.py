"""nationbias as a library: one import gives the whole API (the folders below stay where they are).

    import nationbias
    summary = nationbias.run("vote", model="local:smollm2", limit=1, repeats=1)
    nationbias.results(summary.run_id)["weighted_f1"]
    nationbias.report(summary.run_id)

Each call has an ``a``-prefixed coroutine to ``await`` in a running loop (a notebook); the sync
ones work there too.
"""

from nationbias.evals.api import Hooks, arun, report, results, run
from nationbias.evals.bias_tests import BiasTest, RunContext, RunRequest, bias_test, bias_tests, get_test
from nationbias.evals.results import RESULT_TABLES
from nationbias.evals.study import Cell, StudyPlan, aablate, ablate, astudy, study
from nationbias.graphs.model.registry import get_chat_model
from nationbias.retrievers import RETRIEVERS, get_retriever
from nationbias.stores.bundled import using_data

__all__ = [
    "RESULT_TABLES",
    "RETRIEVERS",
    "BiasTest",
    "Cell",
    "Hooks",
    "RunContext",
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
