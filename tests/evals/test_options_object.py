"""A test's own options travel as one object: the vote command builds the debiased vote's
``DebiasOptions`` once and every step to the test's ``prepare`` hands that same object on (no ``k`` as a
loose keyword between the CLI and ``prepare``); the library builds it from keywords; study and ablate
cells derive theirs from the test's defaults; and the run config keeps the form runs already store."""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, ClassVar

import pytest
from typer.testing import CliRunner

import nationbias
from nationbias.evals import api
from nationbias.evals.bias_tests import RunRequest, get_test
from nationbias.evals.bias_tests.base import REGISTRY, NoOptions, bias_test, options_from
from nationbias.evals.cli.common import run_bias_test
from nationbias.evals.cli.main import app
from nationbias.evals.cli.run import run_vote_command
from nationbias.evals.errors import UsageError
from nationbias.evals.study import Cell, cell_runs
from nationbias.graphs.debias_options import DebiasOptions
from nationbias.graphs.study.options import RunOptions
from nationbias.stores.domain import DEBIAS, VOTE
from nationbias.stores.errors import InputError
from nationbias.stores.state.runstore import RunStore

FIELDS = {f.name for f in fields(DebiasOptions)}  # k, reflexion, retriever, threshold, recency_halflife


class Stop(Exception):
    """Raised by the spy on ``prepare``: the request reached the test; nothing is opened after it."""


@pytest.fixture
def seen(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    """What ``arun`` was called with and the request each ``prepare`` of the debiased vote received."""
    record: dict[str, Any] = {"arun": [], "requests": []}
    real_arun = api.arun

    async def arun(test: str, **kwargs: Any) -> Any:
        record["arun"].append(kwargs)
        return await real_arun(test, **kwargs)

    def prepare(request: RunRequest, sample: Any) -> Any:
        record["requests"].append(request)
        raise Stop

    monkeypatch.setattr(api, "arun", arun)
    monkeypatch.setattr(get_test(DEBIAS), "prepare", prepare)
    yield record


def test_the_vote_command_builds_one_debias_options_that_reaches_prepare(
    seen: dict[str, Any], isolated_home: Path
) -> None:
    out = CliRunner().invoke(
        app,
        ["run", "vote", "--debias", "--k", "3", "--no-reflexion", "--retriever", "bm25", "-m", "fake:hash"],
    )
    assert isinstance(out.exception, Stop), out.output
    (kwargs,) = seen["arun"]
    assert not FIELDS & set(kwargs)  # no k (nor any other of its options) as a loose keyword
    built = kwargs["test_options"]
    assert built == DebiasOptions(k=3, reflexion=False, retriever="bm25")
    (request,) = seen["requests"]
    assert request.options is built  # the very object the command built: never rebuilt on the way
    assert not (isolated_home / "runs.sqlite").exists()  # refused nothing, opened nothing


def test_the_plain_vote_has_no_options_of_its_own(
    seen: dict[str, Any], isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    requests: list[RunRequest] = []

    def prepare(request: RunRequest, sample: Any) -> Any:
        requests.append(request)
        raise Stop

    monkeypatch.setattr(get_test(VOTE), "prepare", prepare)
    with pytest.raises(Stop):
        run_vote_command(debias=False, k=5, model="fake:hash", show_progress=False)
    (kwargs,) = seen["arun"]
    assert kwargs["test_options"] is None and not FIELDS & set(kwargs)  # --k is not the plain vote's
    assert requests[0].options == NoOptions()


def test_no_step_between_the_cli_and_prepare_declares_k() -> None:
    for step in (api.arun, api.run, run_bias_test, run_vote_command):
        assert not FIELDS & set(inspect.signature(step).parameters), step.__name__
    assert get_test(DEBIAS).options_type is DebiasOptions  # type: ignore[attr-defined]


def test_the_library_builds_the_object_once_from_keywords(seen: dict[str, Any], isolated_home: Path) -> None:
    with pytest.raises(Stop):
        nationbias.run(DEBIAS, model="fake:hash", k=3, recency_halflife=5.0)
    (request,) = seen["requests"]
    assert request.options == DebiasOptions(k=3, recency_halflife=5.0)
    given = DebiasOptions(k=2)
    with pytest.raises(Stop):
        nationbias.run(DEBIAS, model="fake:hash", test_options=given)
    assert seen["requests"][-1].options is given


def test_bad_options_fail_in_one_line_before_any_store(isolated_home: Path) -> None:
    with pytest.raises(UsageError, match=r"takes no option \['kk'\]: its options are \['k', 'recency"):
        nationbias.run(DEBIAS, model="fake:hash", kk=3)
    with pytest.raises(InputError, match="k must be >= 0, got -1"):
        nationbias.run(DEBIAS, model="fake:hash", k=-1)
    with pytest.raises(UsageError, match="takes its options as DebiasOptions, not dict"):
        nationbias.run(DEBIAS, model="fake:hash", test_options={"k": 2})
    with pytest.raises(UsageError, match=r"give \['k'\] in it, not beside it"):
        nationbias.run(DEBIAS, model="fake:hash", test_options=DebiasOptions(), k=2)
    out = CliRunner().invoke(app, ["run", "vote", "--debias", "--k", "-1", "-m", "fake:hash"])
    assert out.exit_code == 2 and "k must be >= 0, got -1" in out.output
    assert not (isolated_home / "runs.sqlite").exists()


def test_ablation_cells_derive_their_options_from_the_one_object(
    seen: dict[str, Any], isolated_home: Path
) -> None:
    cells = [Cell(2, False, "bm25"), Cell(0, True, "keyword")]
    planned = cell_runs(cells, "ab", RunOptions())
    assert [p.own for p in planned] == [
        DebiasOptions(k=2, reflexion=False, retriever="bm25"),
        DebiasOptions(k=0, reflexion=True, retriever="keyword"),
    ]  # each the test's defaults (threshold, recency) with the cell's three
    with pytest.raises(Stop):
        nationbias.ablate(model="fake:hash", cells=cells, run_prefix="ab", show_progress=False)
    assert seen["requests"][0].options == planned[0].own  # checked before any run starts


def test_a_debias_run_config_keeps_the_options_form_runs_store_and_resumes(isolated_home: Path) -> None:
    run = {"model": "fake:hash", "limit": 1, "repeats": 1, "personas": "USA", "show_progress": False}
    first = nationbias.run(DEBIAS, **run, k=0, reflexion=False, run_id="deb")
    assert first.done == 1
    # the form a run stored before the options were one object: every field by name, the recency
    # preference settled for the body; a run stored so resumes (nothing asked twice)
    assert RunStore().get_run("deb")["options"] == {
        "k": 0,
        "reflexion": False,
        "retriever": "keyword",
        "threshold": 3.0,
        "recency_halflife": 0.0,
        "texts": "auto",  # the run's --texts, recorded beside them (graphs/study/simulate.py)
    }
    again = nationbias.run(DEBIAS, **run, test_options=DebiasOptions(k=0, reflexion=False), run_id="deb")
    assert (again.done, again.skipped) == (0, 1)
    with pytest.raises(InputError, match="run 'deb' was started with k=0, not 1: use a new --run-id"):
        nationbias.run(DEBIAS, **run, k=1, reflexion=False, run_id="deb")


@dataclass
class Loose:
    question: str | None = None


class _Declared:
    tables = ()
    agreement_table = None
    invalid_table = None
    sections = ()

    def check_judge(self, prompts: Any) -> None: ...
    def prepare(self, request: Any, sample: Any) -> Any: ...
    async def arun(self, ctx: Any) -> Any: ...
    def result_tables(self, samples: Any) -> dict[str, Any]:
        return {}


def test_a_test_declaring_its_options_the_old_way_is_refused_when_registered() -> None:
    class OldForm(_Declared):
        name = "old-form"
        options: ClassVar[dict[str, Any]] = {
            "question": None
        }  # a mapping of names and defaults: the form before options_type

    class NotFrozen(_Declared):
        name = "not-frozen"
        options_type = Loose

    with pytest.raises(
        TypeError, match="declares its options as a mapping `options`: declare `options_type`"
    ):
        bias_test(OldForm)
    with pytest.raises(TypeError, match=r"options_type .* is not a frozen dataclass"):
        bias_test(NotFrozen)
    assert "old-form" not in REGISTRY and "not-frozen" not in REGISTRY
    with pytest.raises(UsageError, match=r"test 'vote' takes no option \['k'\]: its options are \[\]"):
        options_from(get_test(VOTE), {"k": 2})
