"""Shared fixtures: an isolated NATIONBIAS_HOME, the real (packaged) data, a real llama.cpp HTTP server."""

from __future__ import annotations

import gc
import importlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from nationbias.stores.config.settings import Settings
from tests.support.costs import COST_MARKERS, CostGuard, cost_marks, name_the_groups, shared_group

pytest_plugins = ["tests.support.fixtures"]

# The suite does not depend on the user's environment: a NATIONBIAS_DATA or NATIONBIAS_HOME set in the
# shell (as docs/data.md suggests for another copy of the data) is not the tests' to read. Every
# variable nationbias reads (stores/config/settings.py) is cleared for the session; a test sets its own.
for _variable in [name for name in os.environ if name.upper() in {
    f"{Settings.model_config.get('env_prefix')}{field}".upper() for field in Settings.model_fields
}]:  # fmt: skip
    del os.environ[_variable]
# What the library imports where it is used, not with its modules, so the CLI starts without them
# (tests/evals/test_cli_startup.py). The test process imports them before it freezes its heap.
ON_FIRST_USE = (
    "matplotlib.pyplot", "scipy.stats", "statsmodels.stats.inter_rater", "sklearn.metrics",
    "sklearn.linear_model", "sklearn.model_selection", "sklearn.pipeline", "sklearn.preprocessing",
    "sklearn.feature_extraction.text", "lightgbm", "langgraph.graph",
)  # fmt: skip


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every test by what it costs (tests/support/costs.py): the inner loop leaves these out. And
    its ``xdist_group`` (``-n 2 --dist loadgroup``): tests that share an expensive fixture run in one
    worker, so it is made once. First of the hooks, so xdist's worker finds the groups when it reads
    them in its own ``pytest_collection_modifyitems``; and their names go into the node ids here, as
    xdist's own write no longer does under pytest 9.2 (``name_the_groups``)."""
    for item in items:
        for mark in sorted(cost_marks(item)):
            item.add_marker(mark)
        group = shared_group(item)
        if group:
            item.add_marker(pytest.mark.xdist_group(group))
    if getattr(config.option, "loadgroup", False):  # an xdist worker under --dist loadgroup
        name_the_groups(items)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Everything collection imported (the library, numpy, pandas, sklearn, matplotlib: about 250,000
    objects that live as long as the process) leaves the cyclic collector's view. A full collection
    over them takes about 0.2 s of CPU, and the suite pays it thousands of times: at every automatic
    one, and at every explicit ``gc.collect()`` a library makes (statsmodels' Holm correction calls it
    on each family, 28 times for one report). Objects made later are collected as before.

    The libraries the library imports on first use (:data:`ON_FIRST_USE`) are imported first, so
    they are frozen too, as when importing the library imported them."""
    from nationbias.evals.report.figures import use_agg

    use_agg()  # pyplot on the file backend, as every figure puts it
    for name in ON_FIRST_USE:
        importlib.import_module(name)
    gc.collect()
    gc.freeze()


@pytest.fixture(autouse=True)
def cost_guard(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A test the cost rules left unmarked may start no child process (nor the embedded model's worker)."""
    if any(request.node.get_closest_marker(mark) for mark in COST_MARKERS):
        yield
        return
    guard = CostGuard()
    guard.install(monkeypatch)
    yield
    problem = guard.verdict(request.node.nodeid)
    if problem:
        pytest.fail(problem)


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test writes its state into its own folder."""
    home = tmp_path / "nbhome"
    monkeypatch.setenv("NATIONBIAS_HOME", str(home))
    for var in ("OPENAI_API_KEY", "TOGETHER_API_KEY", "NATIONBIAS_BASE_URL", "NATIONBIAS_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    return home


@pytest.fixture(autouse=True)
def data_overrides_restored() -> Iterator[None]:
    """``--data`` sets NATIONBIAS_DATA for the process: put both overrides back as they were (unset:
    the packaged copy, which every test can read, so no test depends on ``../shared``)."""
    saved = {var: os.environ.get(var) for var in ("NATIONBIAS_DATA", "NATIONBIAS_PAPER")}
    yield
    for var, value in saved.items():
        if value is None:
            os.environ.pop(var, None)
        else:
            os.environ[var] = value


@pytest.fixture(scope="session")
def corpus():  # type: ignore[no-untyped-def]
    from nationbias.stores.corpora.corpus import load_corpus

    return load_corpus()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`python -m llama_cpp.server` serving the embedded GGUF on 127.0.0.1; yields its /v1 base URL."""
    from nationbias.graphs.model.embedded.local_model import smollm2_path

    port = free_port()
    log = tmp_path_factory.mktemp("llama-server") / "server.log"
    with log.open("w") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "llama_cpp.server",
                "--model",
                str(smollm2_path()),
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--n_ctx",
                "4096",
                "--n_threads",
                "1",
                "--model_alias",
                "smollm2",
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        base = f"http://127.0.0.1:{port}/v1"
        try:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                if proc.poll() is not None:
                    raise RuntimeError(f"llama_cpp.server exited: {log.read_text()[-2000:]}")
                try:
                    if httpx.get(f"{base}/models", timeout=1).status_code == 200:
                        break
                except httpx.HTTPError:
                    time.sleep(0.5)
            else:
                raise RuntimeError("llama_cpp.server did not start within 120 s")
            yield base
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
