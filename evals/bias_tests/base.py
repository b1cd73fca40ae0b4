"""What a bias test is, and the registry that makes one known to the CLI, the library and the report.

A test is one object (as inspect_ai's ``@task`` is): it checks its own options before anything is
opened, runs its samples (tasks → the graph answering one → a stored row), computes its result
tables from a run's samples, and writes its report sections. Nothing else branches on its name.

A test's own options are one object: its ``options_type`` (a frozen dataclass whose fields and defaults
are the options) is built once, by the command that knows the test or by the library from keywords
(:func:`options_from`), and travels in :attr:`RunRequest.options` to the test's ``prepare``.
"""

from __future__ import annotations

import dataclasses
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
    from nationbias.graphs.study.study_run import StudyRun
    from nationbias.prompts import PromptSet
    from nationbias.stores.state.runstore import RunStore

ENTRY_POINTS = "nationbias.tests"  # installed packages add tests under this entry-point group
Section = Callable[[Any], None]  # writes one part of the report from its Context (evals/report/context.py)


class UnknownTestError(UsageError):
    """A test name no module registered."""


@dataclass(frozen=True)
class NoOptions:
    """The options object of a test that has none of its own (its ``options_type`` by default)."""


@dataclass(frozen=True, kw_only=True)
class RunRequest(RunOptions):
    """One run as the user asked for it: the model, the run options (graphs/study/options.py, each
    default there) and the test's own ``options``, an instance of its ``options_type`` (built once, read
    by its ``prepare``); checked before any store is opened."""

    model: str
    options: Any = field(default_factory=NoOptions)  # the test's own: an instance of its options_type

    @classmethod
    def of(cls, run: RunOptions, *, model: str, options: Any) -> RunRequest:
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
    # a control run beside each of its Council runs: the same options with no nation named
    # (``--personas none``), so the report can show what naming each nation changes
    control: bool = False
    demo_option: str | None = None  # the `demo` option that sets its demo slice ("drafts", "keywords")
    # who votes in its study runs: None, the study's personas (--personas, else its body's default); a
    # spec (e.g. "none"), the test's own, whatever --personas says: a test whose voters are not the P5
    personas: str | None = None


@dataclass(kw_only=True)
class RunContext:
    """What a test's run gets: the checked request, the run as every study function takes it (the opened
    stores and clients, graphs/study/study_run.py) and the test's own inputs."""

    request: RunRequest
    run: StudyRun
    inputs: Any = None  # what :meth:`BiasTest.prepare` returned (e.g. the corpus)

    @property
    def run_id(self) -> str:
        return self.run.run_id

    @property
    def options(self) -> Any:
        """The test's own options: the one instance of its ``options_type`` the run was asked with."""
        return self.request.options

    @property
    def sample(self) -> SampleOptions:
        return self.run.sample

    @property
    def prompts(self) -> PromptSet:
        return self.run.prompts

    @property
    def store(self) -> RunStore:
        return self.run.store

    @property
    def client(self) -> ModelClient:
        return self.run.client

    @property
    def judge(self) -> ModelClient | None:
        return self.run.judge

    @property
    def translator(self) -> ModelClient | None:
        """--translate-with, for a test that ``translates`` (graphs/translate.py)."""
        return self.run.translator


@runtime_checkable
class BiasTest(Protocol):
    """One bias test. ``options_type`` is the class of its own options (beyond
    :class:`RunRequest`'s); ``tables`` names what :meth:`result_tables` returns (plus ``metadata``);
    ``agreement_table`` and ``invalid_table`` name the tables the report's shared sections show.
    A test may declare ``bodies`` (which of "unsc", "unga" it runs on; without it, the Council only),
    ``study`` (its :class:`StudyPart`, or None to stay out of ``study`` and ``demo``; without it, every
    item in a study and one in the demo), ``ablation`` (True: a study ends with this test once per
    ablation cell, evals/study.py; one test declares it), ``body_note`` (why it runs on its ``bodies``
    only, said when a study on another body leaves it out), ``demo_table`` (its table printed under
    `demo`), ``explained`` (True: the precedent model's explanations, per item and member, are of its
    samples, for the sample browser), ``default_targets`` (what a run stored before ``--targets`` was
    recorded asked about), ``languages`` (the ``--language`` codes its prompts exist in; without it,
    every language the prompt sets have), ``translates`` (True: its prompts show a record's text, which
    ``--translate-with`` translates; without it, the option does not apply) and ``headline`` (its row on
    the report's first screen, a function of the report's Context and one of its runs; without it, a row
    pointing at its sections), ``cli_options`` (the shared options its generic ``run <name>`` command
    takes beyond every test's, e.g. ``("personas", "targets")``: a built-in test that declares them gets
    that command, as a plugin's test does). What the report's shared sections read from a test, each
    optional and read through the accessors below, so no code outside a test's module names it: ``claims``
    (its per-nation claims for the significance section, from one run's samples), ``report_claims``
    (claims that need more than one run or the baselines), ``language_effect`` (its
    :class:`LanguageEffect`), ``scope`` (what its runs covered, for the scope line), ``refusals`` (its
    :class:`Refusals`) and ``control`` (whether a run's config is a control run, with no nation named).
    ``options_type`` (optional; :class:`NoOptions` without it) is a frozen dataclass whose fields, each
    with its default, are the test's own options; a request carries one instance of it (built once)."""

    name: str
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


@dataclass(frozen=True, kw_only=True)
class LanguageEffect:
    """A test's headline number asked in another language against English, for the report's language
    section (evals/page/languages.py). ``rows(english, other, n_resamples=, seed=)`` takes the two runs'
    samples and returns one row per subject (a persona or a nation): ``subject``, ``metric``, ``english``,
    ``value``, ``delta`` (value − english), ``low``, ``high`` (its paired 95 % interval) and ``n_items``
    (the items both runs asked); ``effect_row`` (evals/tables/languages.py) builds one. ``good``: +1.0
    when a higher number treats the nation better, -1.0 when a lower one does, None to leave the test
    out of the favours table."""

    rows: Callable[..., list[dict[str, Any]]]
    good: float | None = None


@dataclass(frozen=True, kw_only=True)
class Refusals:
    """How the report's refusal section breaks a test's answers down: ``by(samples)`` returns the samples
    (one row per answer and nation it is about) and a Series ``nation`` beside them (None: one row for the
    run), ``rates``: also the refusal rate per nation against the other four (a test whose samples have a
    ``persona`` per nation)."""

    by: Callable[[pd.DataFrame], tuple[pd.DataFrame, pd.Series]] | None = None
    rates: bool = False


REGISTRY: dict[str, BiasTest] = {}  # filled by @bias_test; read through bias_tests() (the package)
T = TypeVar("T")


def bias_test(factory: Callable[[], T]) -> Callable[[], T]:
    """Register the test a class (or factory) builds, under its ``name``: ``@bias_test`` on the class."""
    test = factory()
    if not isinstance(test, BiasTest):
        raise TypeError(f"{factory!r} does not build a BiasTest")
    if getattr(test, "options", None):  # a non-empty mapping of names and defaults: the form before
        raise TypeError(
            f"test {test.name!r} declares its options as a mapping `options`: declare `options_type`, a "
            "frozen dataclass whose fields and defaults are its options (docs/plugins.md)"
        )
    options_type_of(test)
    REGISTRY[test.name] = test
    return factory


def options_type_of(test: BiasTest) -> type[Any]:
    """A test's options class (its optional ``options_type``; :class:`NoOptions` without it): a frozen
    dataclass whose every field has a default, so its defaults alone make a run's options."""
    kind = getattr(test, "options_type", NoOptions)
    params = getattr(kind, "__dataclass_params__", None)
    if not isinstance(kind, type) or params is None or not params.frozen:
        raise TypeError(f"test {test.name!r}: its options_type {kind!r} is not a frozen dataclass")
    if bare := [f.name for f in dataclasses.fields(kind) if _no_default(f)]:
        raise TypeError(f"test {test.name!r}: its options_type's fields {bare} have no default")
    return kind


def _no_default(one: dataclasses.Field[Any]) -> bool:
    return one.default is dataclasses.MISSING and one.default_factory is dataclasses.MISSING


def option_defaults(test: BiasTest) -> dict[str, Any]:
    """A test's own options by name, each with its default, in the order its options_type declares them."""
    defaults = options_type_of(test)()
    return {f.name: getattr(defaults, f.name) for f in dataclasses.fields(defaults)}


def options_from(test: BiasTest, given: Mapping[str, Any]) -> Any:
    """The test's options object from names (the library's keywords, a plugin command's ``--option``
    pairs), over its defaults; a name it does not declare is refused, naming its options, and a bad
    value fails as its options_type checks it."""
    names = option_defaults(test)
    if unknown := sorted(set(given) - set(names)):
        raise UsageError(f"test {test.name!r} takes no option {unknown}: its options are {sorted(names)}")
    return options_type_of(test)(**given)


def options_of(test: BiasTest, options: Any = None) -> Any:
    """``options`` checked as the test's options object (None: its defaults); another kind is refused."""
    kind = options_type_of(test)
    if options is None:
        return kind()
    if not isinstance(options, kind):
        raise UsageError(
            f"test {test.name!r} takes its options as {kind.__name__}, not {type(options).__name__}"
        )
    return options


def test_bodies(test: BiasTest) -> tuple[str, ...]:
    """The bodies a test runs on (its optional ``bodies``; the Council by default)."""
    return tuple(getattr(test, "bodies", ("unsc",)))


def study_part(test: BiasTest) -> StudyPart | None:
    """A test's place in ``study`` and ``demo`` (its optional ``study``; every item by default)."""
    part = getattr(test, "study", StudyPart())
    if part is not None and not isinstance(part, StudyPart):
        raise TypeError(f"test {test.name!r}: its study is {part!r}, not a StudyPart or None")
    return part


def study_personas(test: BiasTest, personas: str | None) -> str | None:
    """Who votes in a test's study runs: the personas its study part declares, else the study's
    ``personas``."""
    part = study_part(test)
    return personas if part is None or part.personas is None else part.personas


def headline_of(test: BiasTest) -> Callable[[Context, Run], Headline] | None:
    """A test's headline on the report's first screen (its optional ``headline``), or None."""
    return getattr(test, "headline", None)


def claims_of(test: BiasTest | None) -> Callable[[pd.DataFrame], list[dict[str, Any]]] | None:
    """A test's per-nation claims from one run's samples (its optional ``claims``), or None."""
    return getattr(test, "claims", None)


def report_claims_of(test: BiasTest | None) -> Callable[[Context, Run], list[pd.DataFrame]] | None:
    """A test's claims that need the whole report (its optional ``report_claims``), or None."""
    return getattr(test, "report_claims", None)


def language_effect_of(test: BiasTest | None) -> LanguageEffect | None:
    """A test's number compared across languages (its optional ``language_effect``), or None."""
    effect = getattr(test, "language_effect", None)
    if effect is not None and not isinstance(effect, LanguageEffect):
        raise TypeError(f"test {getattr(test, 'name', test)!r}: its language_effect is not a LanguageEffect")
    return effect


def scope_of(test: BiasTest | None) -> Callable[[Run], str] | None:
    """What a test's run covered, for the report's scope line (its optional ``scope``), or None."""
    return getattr(test, "scope", None)


def refusals_of(test: BiasTest | None) -> Refusals:
    """How a test's answers without a usable choice are broken down (its optional ``refusals``)."""
    refusals = getattr(test, "refusals", None)
    return refusals if isinstance(refusals, Refusals) else Refusals()


def is_ablation(test: BiasTest) -> bool:
    """Whether a study ends with this test once per ablation cell (its optional ``ablation``)."""
    return bool(getattr(test, "ablation", False))


def body_note(test: BiasTest) -> str | None:
    """Why a test runs on its bodies only (its optional ``body_note``), or None."""
    return getattr(test, "body_note", None)


def demo_table_of(test: BiasTest) -> Callable[[str, pd.DataFrame], Any] | None:
    """A test's table under `demo` (its optional ``demo_table(run_id, samples)``, a rich Table), or None."""
    return getattr(test, "demo_table", None)


def check_supported(test: BiasTest, *, body: str, language: str) -> None:
    """Refuse a run option the test does not support, naming the option and the test: a body not in its
    ``bodies``, a language not in its optional ``languages`` (the languages its prompts exist in)."""
    bodies = test_bodies(test)
    if body not in bodies:
        raise UsageError(f"test {test.name!r} runs on {' and '.join(bodies)}, not --body {body}")
    languages = getattr(test, "languages", None)
    if languages is not None and language not in languages:
        raise UsageError(
            f"test {test.name!r} does not support --language {language}: it asks in {', '.join(languages)}"
        )
