"""How a run is asked for, beyond its test and its model: one typed object, each default defined once.

:class:`RunOptions` is what the library's ``arun`` (evals/api.py), ``study`` and ``ablate``
(evals/study.py) take, what a test's ``RunRequest`` extends (evals/bias_tests/base.py) and what the CLI's
shared options read their defaults and help from (evals/cli/common.py). Its sample fields become the
run's :class:`~nationbias.graphs.study.sampling.SampleOptions`, stored in the run config.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any, Literal, Self

from nationbias.graphs.model.budget import DEFAULT_REASONING_MAX_TOKENS, DEFAULT_TIMEOUT_S
from nationbias.graphs.progress import DEFAULT_EVERY_S
from nationbias.prompts.registry import DEFAULT_SET
from nationbias.stores.domain import DEFAULT_LANGUAGE, DEFAULT_TEXTS
from nationbias.stores.errors import InputError

if TYPE_CHECKING:
    from nationbias.graphs.model.endpoints import BaseUrls

DEFAULT_CONCURRENCY = 4  # samples in flight at once (graphs/study/runner.py)
DEFAULT_BODY: Literal["unsc"] = "unsc"  # the Security Council, the paper's (graphs/study/sampling.py)
# Who votes when ``--personas`` is not given: the paper's P5 on the Council, a seeded sample of 20 states
# on the Assembly (193 states × every roll call is a large bill for a first look)
BODY_PERSONAS = {"unsc": "p5", "unga": "sample:20"}


def body_personas(personas: str | None, body: str) -> str:
    """The persona spec a run uses: the one given, else its body's default (:data:`BODY_PERSONAS`)."""
    if personas is not None:
        return personas
    return BODY_PERSONAS.get(body.strip().lower(), BODY_PERSONAS[DEFAULT_BODY])


def _help(text: str) -> dict[str, str]:
    """A field's help, as the CLI shows it."""
    return {"help": text}


@dataclass(frozen=True, kw_only=True)
class RunOptions:
    """Everything a run takes besides the test, the model and the test's own options: which models
    answer (``base_url``, ``judge``), which samples (``limit`` … ``years``) and how it runs."""

    base_url: BaseUrls = field(
        default=None,
        metadata=_help(
            "Base URL of an OpenAI-compatible server (vLLM, Ollama, llama.cpp); repeat it for replicas "
            "of one model: calls are spread over them."
        ),
    )
    judge: str | None = field(
        default=None, metadata=_help("Judge model spec for answers the rules cannot label (default: none).")
    )
    judge_base_url: str | None = field(
        default=None, metadata=_help("Judge server base URL (default: --base-url).")
    )
    limit: int | None = field(default=None, metadata=_help("Only this many items (a seeded sample)."))
    seed: int = field(default=0, metadata=_help("Seed for sampling items and prompt orders."))
    repeats: int = field(default=3, metadata=_help("Independent repeats per sample (paper: 3)."))
    personas: str | None = field(
        default=None,
        metadata=_help(
            "p5; all (every member voting on the item: the 15 seated, or every state present); codes "
            "(USA,RUS; Council members by name; states by ISO3: BRA,NGA,IND); sample:N; group:WEOG "
            "(Assembly); none (the Council vote's control: no nation named). Default: p5 on the Council, "
            "sample:20 (seeded by --seed) on the Assembly."
        ),
    )
    body: str = field(
        default=DEFAULT_BODY,
        metadata=_help("unsc (the Security Council, the paper's) or unga (the General Assembly)."),
    )
    years: str | None = field(
        default=None, metadata=_help("Only items voted in these years: 2010 or 2005-2019 (inclusive).")
    )
    targets: str = field(
        default="failed",
        metadata=_help(
            "The Council's items to vote on: failed (the non-adopted drafts, the paper's 66), adopted (the "
            "adopted resolutions: the false-veto rate, where the record says no one vetoed) or all."
        ),
    )
    texts: str = field(
        default=DEFAULT_TEXTS,
        metadata=_help(
            "Which text of an item the vote prompts show: auto (each target in its best source: the UN's "
            "own text where it exists, else the corpus's; a prompt's precedents all in the target's kind), "
            "un (only items with the UN's own text, as targets and precedents: the 18 failed drafts of "
            "2023-2024) or press (the corpus's texts for every item)."
        ),
    )
    concurrency: int = field(default=DEFAULT_CONCURRENCY, metadata=_help("Samples in flight at once."))
    run_id: str | None = field(
        default=None, metadata=_help("Resume (or name) a run; completed samples are skipped.")
    )
    retry_errors: bool = field(default=False, metadata=_help("Re-run only the samples that failed."))
    no_cache: bool = field(default=False, metadata=_help("Do not read or write the response cache."))
    prompts: str = field(
        default=DEFAULT_SET,
        metadata=_help(
            "Prompt set: structured (JSON answers, default) or paper (Appendix F word for word, free text)."
        ),
    )
    language: str = field(
        default=DEFAULT_LANGUAGE,
        metadata=_help(
            "The language the prompts ask in (the UN's six): ar, zh, en, fr, ru or es. The record's own "
            "text stays English, quoted (or see --translate-with); the translations are not yet reviewed "
            "by a native speaker."
        ),
    )
    translate_with: str | None = field(
        default=None,
        metadata=_help(
            "With --language other than en: translate the record's own text (and a precedent's summary) "
            "into it with this model spec (local:smollm2, openai-compatible:NAME …), once, cached, and "
            "leak-audited in that language. Default: the English text, quoted."
        ),
    )
    translate_base_url: str | None = field(
        default=None, metadata=_help("The translator's server base URL (default: --base-url).")
    )
    reasoning_max_tokens: int = field(
        default=DEFAULT_REASONING_MAX_TOKENS,
        metadata=_help(
            "Token budget of a reasoning model (by name, or once an answer shows reasoning); "
            "o-series: max_completion_tokens."
        ),
    )
    show_progress: bool = field(default=True, metadata=_help("Show the run's progress on stderr."))
    data: str | None = field(default=None, metadata=_help("A data folder (or NATIONBIAS_DATA)."))
    batch: bool = field(
        default=False,
        metadata=_help(
            "Ask through the provider's batch API (half the price), in rounds; blocks until done "
            "(openai:, together:, openai-compatible: servers offering /v1/batches)."
        ),
    )
    batch_offline: bool = field(
        default=False,
        metadata=_help(
            "Batch mode without submitting: record each round for `nationbias batch export`/`import`."
        ),
    )
    timeout: float = field(
        default=DEFAULT_TIMEOUT_S,
        metadata=_help(
            "Seconds a model call may take before it is tried again; an endpoint that accepts the "
            "connection and never answers stops the run within about two of them."
        ),
    )
    progress_every: float = field(
        default=DEFAULT_EVERY_S,
        metadata=_help(
            "When stderr is not a terminal (a log file): a progress line every this many seconds "
            "(and at 25/50/75 %)."
        ),
    )

    @classmethod
    def names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(RunOptions))

    @classmethod
    def default(cls, name: str) -> Any:
        """The one default of option ``name`` (the dataclass keeps it as the class attribute)."""
        return getattr(RunOptions, name)

    @classmethod
    def help(cls, name: str) -> str:
        """The help the CLI shows for option ``name``."""
        return str({f.name: f for f in fields(RunOptions)}[name].metadata["help"])

    def values(self) -> dict[str, Any]:
        """The run options as keywords (shallow: a list of base URLs stays the same list)."""
        return {name: getattr(self, name) for name in RunOptions.names()}

    def updated(self, **changes: Any) -> Self:
        """A copy with ``changes``; a name that is no option of this object (a run option, or a field of a
        subclass such as a study plan's ``languages``) fails, naming it."""
        own = [f.name for f in fields(self)]
        if unknown := sorted(set(changes) - set(own)):
            raise InputError(f"no run option {unknown}: the run options are {own}")
        return replace(self, **changes)

    @classmethod
    def split(
        cls, given: Mapping[str, Any], *, base: RunOptions | None = None
    ) -> tuple[RunOptions, dict[str, Any]]:
        """``given`` keywords as run options over ``base`` (the defaults when None), and the rest."""
        names = set(RunOptions.names())
        ours = {k: v for k, v in given.items() if k in names}
        start = base if base is not None else RunOptions()
        return RunOptions(**{**start.values(), **ours}), {k: v for k, v in given.items() if k not in names}
