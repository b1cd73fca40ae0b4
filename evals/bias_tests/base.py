"""What a bias test is, and the registry that makes one known to the CLI, the library and the report.

A test is one object (as inspect_ai's ``@task`` is): it checks its own options before anything is
opened, runs its samples (tasks → the graph answering one → a stored row), computes its result
tables from a run's samples, and writes its report sections. Nothing else branches on its name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

from nationbias.evals.errors import UsageError
from nationbias.graphs.study.options import RunOptions

if TYPE_CHECKING:
    import pandas as pd

    from nationbias.evals.report.context import Context, Run
    from nationbias.evals.report.headline import Headline
    from nationbias.graphs.model.client import ModelClient
    from nationbias.graphs.study.runner import RunSummary
    from nationbias.graphs.study.sampling import SampleOptions
    from nationbias.prompts import PromptSet
    from nationbias.stores.state.runstore import RunStore

ENTRY_POINTS = "nationbias.tests"  # installed packages add tests under this entry-point group
Section = Callable[[Any], None]  # writes one part of the report from its Context (evals/report/context.py)


class UnknownTestError(UsageError):
    """A test name no module registered."""


@dataclass(frozen=True, kw_only=True)
class RunRequest(RunOptions):
    """One run as the user asked for it: the model, the run options (graphs/study/options.py, each
    default there) and the test's own ``options``; checked before any store is opened."""

    model: str
    options: Mapping[str, Any] = field(default_factory=dict)  # the test's own (its ``options``)

    @classmethod
    def of(cls, run: RunOptions, *, model: str, options: Mapping[str, Any]) -> RunRequest:
        return cls(model=model, options=options, **run.values())


@dataclass(frozen=True, kw_only=True)
class StudyPart:
    """A test's place in ``study`` and ``demo`` (evals/study.py): ``limit`` items in a study (None:
    every item, as the paper), ``demo`` items in the demo's small slice, and ``order``: a study runs
    its tests by it, lower first, ties in the registry's order (the paper's explicit tests, 0, before
    its vote, 1; a test that sets none, after them)."""

    limit: int | None = None
    demo: int = 1
    order: int = 2


@dataclass(kw_only=True)
class RunContext:
    """What a test's run gets: the checked request, its inputs, and the opened stores and clients."""

    request: RunRequest
    run_id: str
    sample: SampleOptions
    prompts: PromptSet
    store: RunStore
    client: ModelClient
    judge: ModelClient | None = None
    translator: ModelClient | None = (
        None  # --translate-with, for a test that ``translates`` (graphs/translate.py)
    )
    inputs: Any = None  # what :meth:`BiasTest.prepare` returned (e.g. the corpus)

    def study_kwargs(self) -> dict[str, Any]:
        """What every study function (graphs/study/simulate.py, graphs/study/explicit.py) takes from the
        run."""
        return {
            "client": self.client,
            "judge": self.judge,
            "store": self.store,
            "run_id": self.run_id,
            "sample": self.sample,
            "concurrency": self.request.concurrency,
            "retry_errors": self.request.retry_errors,
            "show_progress": self.request.show_progress,
            "progress_every": self.request.progress_every,
            "prompts": self.prompts,
        }


@runtime_checkable
class BiasTest(Protocol):
    """One bias test. ``options`` are its own keyword options with their defaults (beyond
    :class:`RunRequest`'s); ``tables`` names what :meth:`result_tables` returns (plus ``metadata``);
    ``agreement_table`` and ``invalid_table`` name the tables the report's shared sections show.
    A test may declare ``bodies`` (which of "unsc", "unga" it runs on; without it, the Council only),
    ``study`` (its :class:`StudyPart`, or None to stay out of ``study`` and ``demo``; without it, every
    item in a study and one in the demo), ``translates`` (True: its prompts show a record's text, which
    ``--translate-with`` translates; without it, the option does not apply) and ``headline`` (its row on
    the report's first screen, a function of the report's Context and one of its runs; without it, a row
    pointing at its sections)."""

    name: str
    options: Mapping[str, Any]
    tables: tuple[str, ...]
    agreement_table: str | None
    invalid_table: str | None
    sections: tuple[Section, ...]

    def check_judge(self, prompts: PromptSet) -> None:
        """Raise if a judge makes no sense with this prompt set."""

    def prepare(self, request: RunRequest, sample: SampleOptions) -> Any:
        """Check the test's own inputs and load them; called before any store is opened."""

    async def arun(self, ctx: RunContext) -> RunSummary:
        """Record the run's config, then answer every sample (graphs/runner.run_tasks)."""

    def result_tables(self, samples: pd.DataFrame) -> dict[str, pd.DataFrame]:
        """The named tables of one run, from its samples frame (``metadata`` is added for it)."""


REGISTRY: dict[str, BiasTest] = {}  # filled by @bias_test; read through bias_tests() (the package)
T = TypeVar("T")


def bias_test(factory: Callable[[], T]) -> Callable[[], T]:
    """Register the test a class (or factory) builds, under its ``name``: ``@bias_test`` on the class."""
    test = factory()
    if not isinstance(test, BiasTest):
        raise TypeError(f"{factory!r} does not build a BiasTest")
    REGISTRY[test.name] = test
    return factory


def test_bodies(test: BiasTest) -> tuple[str, ...]:
    """The bodies a test runs on (its optional ``bodies``; the Council by default)."""
    return tuple(getattr(test, "bodies", ("unsc",)))


def study_part(test: BiasTest) -> StudyPart | None:
    """A test's place in ``study`` and ``demo`` (its optional ``study``; every item by default)."""
    part = getattr(test, "study", StudyPart())
    if part is not None and not isinstance(part, StudyPart):
        raise TypeError(f"test {test.name!r}: its study is {part!r}, not a StudyPart or None")
    return part


def headline_of(test: BiasTest) -> Callable[[Context, Run], Headline] | None:
    """A test's headline on the report's first screen (its optional ``headline``), or None."""
    return getattr(test, "headline", None)
