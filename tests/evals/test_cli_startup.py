"""The CLI starts without the heavy libraries: every command (``--help`` too) imports the CLI, and the
libraries it never needs for that command (matplotlib, scipy.stats, sklearn, statsmodels, LightGBM,
LangGraph, LangChain: most of 3 s of CPU) are imported where they are used. Each check runs in a fresh
interpreter, as a user's command does; benchmarks/RESULTS.md has the times."""

from __future__ import annotations

import json
import os
import subprocess
import sys

# Imported on first use, never by importing the CLI.
ON_FIRST_USE = (
    "matplotlib",
    "scipy.stats",
    "sklearn",
    "statsmodels",
    "lightgbm",
    "langgraph",
    "langchain_core",
    "langsmith",
)

IMPORT_CLI = """
import json, sys
import nationbias.evals.cli.main
from nationbias.evals.bias_tests import bias_tests
from nationbias.graphs.model.providers import PROVIDERS
from nationbias.retrievers.registry import RETRIEVERS
heavy = sorted({m for m in sys.modules for root in %r if m == root or m.startswith(root + ".")})
print(json.dumps({"heavy": heavy, "tests": list(bias_tests()), "providers": list(PROVIDERS),
                  "retrievers": list(RETRIEVERS)}))
"""

DRAW = """
import matplotlib
from nationbias.evals.report.figures import use_agg
assert "matplotlib.pyplot" not in __import__("sys").modules
use_agg()
import matplotlib.pyplot as plt
print(plt.get_backend())
"""


def fresh(code: str, **env: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **env},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_importing_the_cli_leaves_the_heavy_libraries_out() -> None:
    seen = json.loads(fresh(IMPORT_CLI % (ON_FIRST_USE,)))
    assert seen["heavy"] == [], f"importing the CLI imported {seen['heavy'][:10]}"
    # the registries are whole all the same: every built-in test, provider and retriever
    assert seen["tests"][:4] == ["vote", "debias", "directqa", "association"]
    assert {"openai", "together", "openai-compatible", "local", "fake"} <= set(seen["providers"])
    assert {"keyword", "bm25", "dense", "hybrid"} <= set(seen["retrievers"])


def test_a_figure_still_draws_on_the_file_backend() -> None:
    """pyplot is imported by the first figure, after matplotlib is put on Agg (whatever MPLBACKEND says),
    as it was when the figures module set it at import."""
    assert fresh(DRAW, MPLBACKEND="svg").strip().lower() == "agg"


def test_a_dry_run_and_the_model_client_start_without_langchain() -> None:
    """The dry run's placeholders are plain Python (graphs/model/schema_fill.py): importing it, or the
    client a direct-wire provider uses, loads no LangChain (about 2 s of CPU); a graph's LangGraph does."""
    code = (
        "import sys, json\n"
        "import nationbias.graphs.model.cost.dry_run, nationbias.graphs.model.client\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith(('langchain', 'langsmith')))))"
    )
    assert json.loads(fresh(code)) == []
