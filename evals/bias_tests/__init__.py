"""The bias tests, each one registered object (base.py); importing this registers the built-in five.

The registry is read here (:func:`bias_tests`, :func:`get_test`), above the tests it imports, so no test
module imports the package back.

Their import order is the registry's, and so the report's: the paper's vote tables first.
"""

# isort: off
from nationbias.evals.bias_tests.vote import tests as vote  # noqa: F401  (registers vote and debias)
from nationbias.evals.bias_tests import directqa  # noqa: F401
from nationbias.evals.bias_tests import association  # noqa: F401
from nationbias.evals.bias_tests import attribution  # noqa: F401

# isort: on
from nationbias.evals.bias_tests.base import (
    ENTRY_POINTS,
    REGISTRY,
    BiasTest,
    RunContext,
    RunRequest,
    StudyPart,
    UnknownTestError,
    bias_test,
)
from nationbias.stores.config.entry_points import installed, load_entry

__all__ = [
    "BiasTest",
    "RunContext",
    "RunRequest",
    "StudyPart",
    "UnknownTestError",
    "bias_test",
    "bias_tests",
    "get_test",
    "plugin_tests",
]

_PLUGINS: list[str] = []  # the tests entry points added (the CLI gives each a generic `run` command)
_PLUGINS_LOADED = False


def _load_plugins() -> None:
    """Import every module installed under the ``nationbias.tests`` entry-point group, once."""
    global _PLUGINS_LOADED
    if _PLUGINS_LOADED:
        return
    _PLUGINS_LOADED = True
    for entry in installed(ENTRY_POINTS):
        before = set(REGISTRY)
        load_entry(entry)  # the module registers its test with @bias_test
        _PLUGINS.extend(name for name in REGISTRY if name not in before)


def bias_tests() -> dict[str, BiasTest]:
    """Every registered test, built-in ones first, in the report's order."""
    _load_plugins()
    return dict(REGISTRY)


def get_test(name: str) -> BiasTest:
    tests = bias_tests()
    if name not in tests:
        raise UnknownTestError(f"unknown test {name!r}: choose from {', '.join(tests)}")
    return tests[name]


def plugin_tests() -> list[str]:
    """The names of the tests installed packages added (not the built-in ones)."""
    bias_tests()
    return list(_PLUGINS)
