"""The whole paper for one or more models, and the debias ablation, as library calls on one event loop.

A study runs every test the registry places in it (a test's ``study``, evals/bias_tests/base.py), a
plugin's too, the plain vote's control beside each Council vote run (``--personas none``), then the
debiased vote once per ablation cell; a test whose study part names its own voters (``personas``) keeps
them whatever ``--personas`` says; every run shares the plan's run options
(graphs/study/options.py). On the General Assembly (``body="unga"``) it runs the tests that run there
(the vote; a test's ``bodies``) on the states ``personas`` names (default: a seeded sample of 20) and
says which tests it leaves out (:func:`left_out`: DirectQA and the Association Test ask about the P5 by
name, whatever the body). Every run's inputs are checked before the first one starts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from nationbias.evals.api import QUIET, Hooks, arun, sync
from nationbias.evals.bias_tests import RunRequest, bias_tests, get_test
from nationbias.evals.bias_tests.base import (
    body_note,
    check_supported,
    is_ablation,
    options_of,
    study_part,
    study_personas,
    test_bodies,
)
from nationbias.evals.errors import UsageError
from nationbias.evals.inputs import check_prompts, check_translate, new_run_id
from nationbias.graphs.study.options import RunOptions, body_personas
from nationbias.graphs.study.personas import is_control
from nationbias.graphs.study.sampling import TARGET_ITEMS, SampleOptions, check_body, check_targets
from nationbias.prompts import PromptSet
from nationbias.prompts.registry import check_language, for_body
from nationbias.stores.corpora.bundled import using_data
from nationbias.stores.domain import CONTROL, DEFAULT_LANGUAGE, slug


def ablated_test() -> str:
    """The test the ablation's cells configure: the one that declares ``ablation`` (the debiased vote)."""
    names = [name for name, test in bias_tests().items() if is_ablation(test)]
    if len(names) != 1:
        raise UsageError(f"the ablation needs one test that declares it, not {names or 'none'}")
    return names[0]


@dataclass(frozen=True)
class Cell:
    """One ablation cell: precedents per pool, reflexion on or off, the retriever."""

    k: int
    reflexion: bool
    retriever: str

    @property
    def slug(self) -> str:
        return f"k{self.k}-{'rf' if self.reflexion else 'norf'}-{self.retriever}"


def paper_cells() -> list[Cell]:
    return [Cell(1, True, "keyword"), Cell(2, True, "keyword"), Cell(1, False, "keyword")]


def study_limits(*, demo: bool = False, body: str | None = None) -> dict[str, int | None]:
    """Each test the registry places in a study, in the study's order, with its limit (``demo``: its
    demo's); ``body``: only the tests that run on it."""
    parts = [(name, part) for name, test in bias_tests().items() if (part := study_part(test)) is not None]
    parts.sort(key=lambda named: named[1].order)  # stable: ties keep the registry's order
    runs_on = (lambda name: True) if body is None else (lambda name: body in test_bodies(get_test(name)))
    return {name: (part.demo if demo else part.limit) for name, part in parts if runs_on(name)}


def left_out(body: str) -> list[str]:
    """The tests of a study that do not run on ``body`` (on the Assembly: DirectQA and the Association
    Test, which ask about the P5 by name whatever the body): a study there says it leaves them out."""
    return [name for name in study_limits() if name not in study_limits(body=body)]


@dataclass(frozen=True, kw_only=True)
class StudyPlan(RunOptions):
    """What a study runs: each test with its limit (in this order), then the ablation's cells, every run
    with these run options. ``limits`` None: every test the registry places in a study that runs on
    ``body``, each with ``limit`` when given, else its own; ``debias_limit`` None: ``limit``."""

    limits: Mapping[str, int | None] | None = None
    debias_limit: int | None = None
    cells: list[Cell] = field(default_factory=paper_cells)
    languages: Sequence[str] = ()  # more languages to ask every test in (the ablation stays in ``language``)

    def other_languages(self) -> list[str]:
        """The grid's languages besides the run's own, each once, checked."""
        others = []
        for code in self.languages:
            check_language(code)
            if code != self.language and code not in others:
                others.append(code)
        return others

    def test_limits(self) -> dict[str, int | None]:
        """Each test to run with its limit; a test named in ``limits`` that does not run on the body fails."""
        body = check_body(self.body)
        if self.limits is not None:
            elsewhere = sorted(t for t in self.limits if body not in test_bodies(get_test(t)))
            if elsewhere:
                raise UsageError(
                    f"the study's tests {elsewhere} do not run on --body {body}: "
                    f"on {body} a study runs {', '.join(study_limits(body=body)) or 'no test'}"
                )
            return dict(self.limits)
        own = study_limits(body=body)
        return own if self.limit is None else dict.fromkeys(own, self.limit)

    def ablation_limit(self) -> int | None:
        return self.limit if self.debias_limit is None else self.debias_limit


def judge_for(test: str, judge: str | None, prompts: PromptSet) -> str | None:
    """The judge, for a test that reads its answers with one under these prompts (a structured vote
    needs none)."""
    if judge is None:
        return None
    try:
        get_test(test).check_judge(prompts)
    except UsageError:
        return None
    return judge


def describe(plan: StudyPlan, *, ablation: bool = False) -> str:
    """One line for the user: what a study of ``plan`` (``ablation``: its cells alone) runs, on whom,
    and what it leaves out."""
    body = check_body(plan.body)
    personas = body_personas(plan.personas, body)
    window = f" in {plan.years}" if plan.years else ""
    if body == "unsc" and plan.targets != RunOptions.default("targets"):  # --targets, for the votes
        window += f", the votes on {TARGET_ITEMS[check_targets(plan.targets)]}"
    where = {"unsc": "the Security Council", "unga": "the General Assembly"}[body]
    if ablation:
        return f"ablation on {where}{window}: {len(plan.cells)} debias cell(s); voting personas {personas}"
    tests = ", ".join(map(named, plan.test_limits())) or "no test"
    cells = f"{len(plan.cells)} debias cell(s)"
    line = f"study on {where}{window}: {tests}, then {cells}; voting personas {personas}"
    if plan.limits is None and (left := left_out(body)):
        runs_on = sorted({b for t in left for b in test_bodies(get_test(t))})
        notes = {name: note for name in left if (note := body_note(get_test(name)))}
        why = "".join(
            f" {' and '.join(n for n in notes if notes[n] == note)}: {note};"
            for note in dict.fromkeys(notes.values())
        )
        line += (
            f". Not run on {body}: {', '.join(left)} (they run on {' and '.join(runs_on)} only;"
            f"{why} run them with `study --body "
            f"{runs_on[0]}`, or " + " and ".join(f"`run {t}`" for t in left) + ")"
        )
    return line


def named(test: str) -> str:
    """A test as the plan line names it: with its own voters when its study part declares them (they
    stand whatever ``--personas`` says)."""
    own = study_personas(get_test(test), None)
    if own is None:
        return test
    note = ": no nation named" if is_control(own) else ""
    return f"{test} (voting personas {own}{note})"


@dataclass(frozen=True)
class Planned:
    """One run of a study or an ablation: its test, run options and the test's own options object (an
    instance of its ``options_type``; None: its defaults)."""

    test: str
    options: RunOptions
    own: Any = None


def cell_runs(cells: list[Cell], prefix: str, run: RunOptions) -> list[Planned]:
    """The debiased vote once per cell, run id ``<prefix>-debias-<cell>``, on the personas ``run``
    names (its body's default: the P5 on the Council, a seeded sample of 20 states on the Assembly);
    each cell's options are the ablated test's defaults with the cell's k, reflexion and retriever."""
    options = run.updated(personas=body_personas(run.personas, check_body(run.body)))
    ablated = ablated_test()
    defaults = options_of(get_test(ablated))  # its one options object (DebiasOptions), each cell from it
    return [
        Planned(
            ablated,
            options.updated(run_id=f"{prefix}-{ablated}-{cell.slug}"),
            replace(defaults, k=cell.k, reflexion=cell.reflexion, retriever=cell.retriever),
        )
        for cell in cells
    ]


def check_runs(runs: list[Planned], *, model: str) -> None:
    """Each run's inputs (its body and years, prompts, personas, items, retriever) before any of them
    starts: a bad --personas fails here, not after hours of DirectQA."""
    for planned in runs:
        bias, run = get_test(planned.test), planned.options
        with using_data(run.data):
            check_supported(bias, body=run.body, language=run.language)
            for_body(check_prompts(run.prompts), run.body)
            own = options_of(bias, planned.own)
            bias.prepare(RunRequest.of(run, model=model, options=own), SampleOptions.of(run))


async def start(runs: list[Planned], *, model: str, hooks: Hooks) -> list[str]:
    """The planned runs, in order, once all are checked; their ids."""
    check_runs(runs, model=model)
    ids = []
    for planned in runs:
        summary = await arun(
            planned.test, model=model, options=planned.options, test_options=planned.own, hooks=hooks
        )
        ids.append(summary.run_id)
    return ids


async def aablate(
    *,
    model: str,
    cells: list[Cell],
    run_prefix: str | None = None,
    options: RunOptions | None = None,
    hooks: Hooks = QUIET,
    **given: Any,
) -> list[str]:
    """The debiased vote once per cell, run id ``<prefix>-debias-<cell>``, on the body and personas the
    options name (default: the Council's P5; ``body="unga"``: a seeded sample of 20 states); ``given``
    are run options over ``options``. Returns the run ids."""
    run, unknown = RunOptions.split(given, base=options)
    if unknown:
        raise UsageError(f"ablate takes no option {sorted(unknown)}: its options are the run's")
    prefix = run_prefix or new_run_id("ablate", model)
    return await start(cell_runs(cells, prefix, run), model=model, hooks=hooks)


def study_runs(plan: StudyPlan, prefix: str) -> list[Planned]:
    """Every run of a study, in order: each test of the plan (``<prefix>-<test>``), then the cells
    (with the judge when their prompts need one: a free-text final vote the rules cannot read)."""
    plan = plan.updated(personas=body_personas(plan.personas, check_body(plan.body)))
    translate = plan.translate_with  # --translate-with: for the runs in a language other than English
    if translate is not None and plan.language == DEFAULT_LANGUAGE:
        others = [code for code in plan.other_languages() if code != DEFAULT_LANGUAGE]
        check_translate(translate, language=others[0] if others else DEFAULT_LANGUAGE)  # none: refused
        plan = plan.updated(translate_with=None)
    chosen = for_body(check_prompts(plan.prompts, language=plan.language), plan.body)
    tests = [
        Planned(
            test,
            plan.updated(
                judge=judge_for(test, plan.judge, chosen),
                limit=limit,
                run_id=f"{prefix}-{test}",
                personas=study_personas(get_test(test), plan.personas),  # a test's own voters, if it has them
            ),
        )
        for test, limit in plan.test_limits().items()
    ]
    for language in plan.other_languages():  # the same tests asked again (``<prefix>-<language>-<test>``)
        tests += [
            Planned(
                t.test,
                t.options.updated(
                    language=language,
                    run_id=f"{prefix}-{language}-{t.test}",
                    translate_with=translate if language != DEFAULT_LANGUAGE else None,
                ),
            )
            for t in tests
            if t.options.language == plan.language
        ]
    cells = plan.updated(judge=judge_for(ablated_test(), plan.judge, chosen), limit=plan.ablation_limit())
    return tests + control_runs(tests) + cell_runs(plan.cells, prefix, RunOptions(**cells.values()))


def control_runs(tests: list[Planned]) -> list[Planned]:
    """A control beside each Council run of a test whose study part declares one (the plain vote's,
    ``<run id>-control``): the same drafts, options and prompts, voted once per draft by "a member of the
    Security Council", no nation named (``--personas none``), so the report can show what naming each
    nation changes."""
    return [
        Planned(t.test, t.options.updated(personas=CONTROL, run_id=f"{t.options.run_id}-control"))
        for t in tests
        if _has_control(t.test) and t.options.body == "unsc" and not is_control(t.options.personas)
    ]


def _has_control(test: str) -> bool:
    part = study_part(get_test(test))
    return part is not None and part.control


def demo_limits(given: Mapping[str, int]) -> dict[str, int | None]:
    """Each test's demo slice, ``given`` over it by the demo option a test's study part names
    (``{"drafts": 3}``: the plain vote's)."""
    limits = study_limits(demo=True)
    for name, test in bias_tests().items():
        part = study_part(test)
        option = part.demo_option if part is not None else None
        if option is not None and option in given and name in limits:
            limits[name] = given[option]
    return limits


async def astudy(
    *,
    model: str,
    plan: StudyPlan | None = None,
    run_prefix: str | None = None,
    hooks: Hooks = QUIET,
    **given: Any,
) -> list[str]:
    """Every test of the plan that runs on its body (``<prefix>-<test>``), then the ablation, as
    resumable runs; the ids. ``given`` are run options over the plan's (``show_progress=False``)."""
    plan = (plan or StudyPlan()).updated(**given)
    prefix = slug(run_prefix or new_run_id("study", model))
    return await start(study_runs(plan, prefix), model=model, hooks=hooks)


def study(*, model: str, **options: Any) -> list[str]:
    """:func:`astudy` from sync code (a notebook cell without ``await`` too)."""
    return sync(astudy(model=model, **options))


def ablate(*, model: str, cells: list[Cell], **options: Any) -> list[str]:
    """:func:`aablate` from sync code."""
    return sync(aablate(model=model, cells=cells, **options))
