"""The bias tests, each one registered object (base.py); importing this registers the built-in four.

Their import order is the registry's, and so the report's: the paper's vote tables first.
"""

# isort: off
from nationbias.evals.bias_tests.vote import tests as vote  # noqa: F401  (registers vote and debias)
from nationbias.evals.bias_tests import directqa  # noqa: F401
from nationbias.evals.bias_tests import association  # noqa: F401

# isort: on
from nationbias.evals.bias_tests.base import (
    BiasTest,
    RunContext,
    RunRequest,
    UnknownTestError,
    bias_test,
    bias_tests,
    get_test,
    plugin_tests,
)

__all__ = [
    "BiasTest",
    "RunContext",
    "RunRequest",
    "UnknownTestError",
    "bias_test",
    "bias_tests",
    "get_test",
    "plugin_tests",
]
