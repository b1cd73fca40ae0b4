"""One typed run-options object: its defaults are the library's, `study`'s, `ablate`'s and the CLI's, and a
test's place in `study` and `demo` comes from the registry."""

from __future__ import annotations

import asyncio
import inspect
from dataclasses import fields
from typing import Any, ClassVar

import pytest

import nationbias
from nationbias.evals.bias_tests import get_test
from nationbias.evals.bias_tests.base import REGISTRY, RunRequest, StudyPart, headline_of, study_part
from nationbias.evals.cli.common import RUN_OPTIONS, SHARED
from nationbias.evals.errors import UsageError
from nationbias.evals.study import StudyPlan, aablate, astudy, study_limits
from nationbias.graphs.debias_options import DebiasOptions
from nationbias.graphs.model.budget import DEFAULT_REASONING_MAX_TOKENS, DEFAULT_TIMEOUT_S
from nationbias.graphs.study.options import RunOptions
from nationbias.graphs.study.sampling import SampleOptions
from nationbias.prompts import DEFAULT_SET
from nationbias.stores.errors import InputError


def test_the_cli_takes_each_run_option_with_its_one_default_and_help() -> None:
    assert set(RUN_OPTIONS) == set(RunOptions.names()) - {"show_progress"}  # the CLI always shows it
    for name in RUN_OPTIONS:
        param = SHARED[name]
        assert param.default == getattr(RunOptions(), name), name
        (option,) = param.annotation.__metadata__
        assert option.help == RunOptions.help(name) and option.help, name
    assert RunOptions().prompts == DEFAULT_SET  # the registry's default set, not a copy of its name
    assert RunOptions().reasoning_max_tokens == DEFAULT_REASONING_MAX_TOKENS
    assert RunOptions().timeout == DEFAULT_TIMEOUT_S


def test_request_plan_and_sample_build_from_the_run_options() -> None:
    options = RunOptions(limit=2, repeats=1, personas="USA", body="UNGA", years="2005-2010", concurrency=8)
    request = RunRequest.of(options, model="fake:hash", options=DebiasOptions(k=2))
    assert (
        request.values() == options.values()
        and request.model == "fake:hash"
        and request.options == DebiasOptions(k=2)
    )
    sample = SampleOptions.of(options)
    assert (sample.limit, sample.repeats, sample.personas, sample.body, sample.years) == (
        2,
        1,
        "USA",
        "unga",
        (2005, 2010),
    )
    default = SampleOptions()  # the sample's defaults are the run options'
    assert all(
        getattr(default, f.name) == getattr(RunOptions(), f.name)
        for f in fields(default)
        if f.name not in ("years", "personas")
    )
    # no --personas: the body's default (the P5 on the Council, a seeded sample of 20 on the Assembly)
    assert RunOptions().personas is None and default.personas == "p5"
    assert SampleOptions.of(RunOptions()).personas == "p5"
    assert SampleOptions.of(RunOptions(body="unga")).personas == "sample:20"
    assert SampleOptions.of(RunOptions(body="unga", personas="p5")).personas == "p5"  # as given
    plan = StudyPlan(repeats=1)  # the README's call: a plan is run options plus what the study adds
    assert isinstance(plan, RunOptions) and plan.repeats == 1 and plan.concurrency == RunOptions().concurrency
    with pytest.raises(InputError, match=r"no run option \['repets'\]"):
        plan.updated(repets=2)


def test_the_library_calls_share_the_options_not_their_own_copies() -> None:
    for call in (nationbias.arun, astudy, aablate):
        params = inspect.signature(call).parameters
        assert not set(params) & set(RunOptions.names()), call.__name__  # none re-declared
        assert any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())


def test_ablate_refuses_an_option_that_is_no_run_option() -> None:
    with pytest.raises(UsageError, match=r"ablate takes no option \['k'\]"):
        asyncio.run(aablate(model="fake:hash", cells=[], k=2))


def test_a_plan_runs_the_registry_tests_in_their_study_order() -> None:
    every = {"directqa": None, "association": None, "vote": None, "attribution": None}  # debias: the cells
    assert study_limits() == every
    assert study_limits(demo=True) == {"directqa": 1, "association": 3, "vote": 3, "attribution": 1}
    assert StudyPlan(limit=2).test_limits() == dict.fromkeys(every, 2)
    assert StudyPlan(limits={"vote": 1}).test_limits() == {"vote": 1}
    assert (
        StudyPlan(limit=2).ablation_limit() == 2 and StudyPlan(limit=2, debias_limit=1).ablation_limit() == 1
    )


class _Plain:
    """A registered test that declares neither a study place nor a headline."""

    name = "plain"
    options: ClassVar[dict[str, Any]] = {}
    tables = ("answers",)
    agreement_table = None
    invalid_table = None
    sections = ()

    def check_judge(self, prompts: Any) -> None: ...
    def prepare(self, request: Any, sample: Any) -> Any: ...
    async def arun(self, ctx: Any) -> Any: ...
    def result_tables(self, samples: Any) -> Any: ...


def test_a_test_without_a_place_joins_the_study_after_the_papers_tests(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(REGISTRY, "plain", _Plain())
    assert study_part(get_test("plain")) == StudyPart() and headline_of(get_test("plain")) is None
    assert list(study_limits()) == ["directqa", "association", "vote", "attribution", "plain"]
    assert study_limits(demo=True)["plain"] == 1
    broken = _Plain()
    broken.study = 3  # type: ignore[attr-defined]
    monkeypatch.setitem(REGISTRY, "plain", broken)
    with pytest.raises(TypeError, match="not a StudyPart"):
        study_limits()
    for name in ("vote", "directqa", "association"):
        assert headline_of(get_test(name)) is not None, name
