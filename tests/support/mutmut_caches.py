"""A pytest plugin for mutation testing only (``-p tests.support.mutmut_caches`` in ``[tool.mutmut]``):
before each test, every cache of a mutated module is emptied.

mutmut forks each mutant's worker from its own process, which has run every selected test once. A
``functools`` cache filled then (vote's compiled patterns, the leak audit's outcome hits and its
prompt-context memo) would answer the mutant's tests with what the original computed, so a mutant of
the function behind it could only survive. And in mutmut's stats run, which maps each function to the
tests that call it, a cache hit hides the call: a test that found the cache warm would never be run
against that function's mutants. Emptied before each test, every test computes what it reads.

The caches are found, not listed: a module is mutated when mutmut's trampoline put ``x_<name>__mutmut_<n>``
functions in it, and a cache is anything in its namespace with a ``cache_clear`` (``functools.cache``,
``lru_cache``, and :class:`nationbias.stores.guard.leak`'s memo, which has one for this).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from types import ModuleType

import pytest

MUTATED = "__mutmut_"  # in the name of every mutant mutmut writes into a module


def mutated_modules() -> Iterator[ModuleType]:
    """The loaded modules of the package that mutmut rewrote (none outside a ``mutmut run``)."""
    for name, module in list(sys.modules.items()):
        if name.startswith("nationbias.") and any(MUTATED in attr for attr in vars(module)):
            yield module


def caches(module: ModuleType) -> list[Callable[[], None]]:
    """The ``cache_clear`` of everything in ``module``'s namespace that has one."""
    found = []
    for value in list(vars(module).values()):
        clear = getattr(value, "cache_clear", None)
        if callable(clear) and not isinstance(value, type):  # a class's unbound method is no cache
            found.append(clear)
    return found


def clear_mutated_caches() -> int:
    """Empty every cache of every mutated module; how many there were."""
    cleared = 0
    for module in mutated_modules():
        for clear in caches(module):
            clear()
            cleared += 1
    return cleared


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Before the test's fixtures: mutmut sets ``MUTANT_UNDER_TEST`` in every run it makes ("stats",
    "fail", a mutant's name); without it (a plain pytest run) nothing is cleared."""
    if os.environ.get("MUTANT_UNDER_TEST"):
        clear_mutated_caches()
