"""What a vote study runs: which body and years, which items (a seeded sample), personas, repeats.

Checked when built, so a bad ``--limit``, ``--repeats`` or persona fails before anything is opened.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Literal

from nationbias.graphs.study.options import DEFAULT_BODY, RunOptions
from nationbias.graphs.study.personas import PersonaError, PersonaPlan, plan_personas
from nationbias.graphs.study.runner import Task
from nationbias.stores.corpus import Corpus
from nationbias.stores.errors import InputError
from nationbias.stores.records import Record

__all__ = [
    "BODIES",
    "PersonaError",
    "SampleOptions",
    "check_body",
    "eligible",
    "load_items",
    "parse_years",
    "persona_plan",
    "select_drafts",
    "skipped_items",
    "vote_tasks",
]


Body = Literal["unsc", "unga"]
BODIES: tuple[Body, ...] = ("unsc", "unga")


def check_body(body: str) -> Body:
    """``body`` as one of :data:`BODIES`, or a clear error."""
    for known in BODIES:
        if body.strip().lower() == known:
            return known
    raise InputError(f"--body {body!r}: choose unsc (the Council) or unga (the Assembly)")


def parse_years(text: str | None) -> tuple[int, int] | None:
    """``2005-2019`` or ``2010`` (inclusive) as a pair; None for no window."""
    if text is None or not str(text).strip():
        return None
    parts = [p.strip() for p in str(text).replace("–", "-").split("-")]
    if len(parts) > 2 or not all(p.isdigit() and len(p) == 4 for p in parts):
        raise InputError(f"--years {text!r}: give a year (2010) or an inclusive range (2005-2019)")
    first, last = int(parts[0]), int(parts[-1])
    if first > last:
        raise InputError(f"--years {text!r}: the window is empty ({first} comes after {last})")
    return first, last


@dataclass(frozen=True)
class SampleOptions:
    """What to run: which body's items (in ``years``; ``limit`` of them, chosen by ``seed``), which
    personas (graphs/study/personas.py) and how many repeats."""

    limit: int | None = RunOptions.limit
    seed: int = RunOptions.seed
    repeats: int = RunOptions.repeats
    personas: str = RunOptions.personas
    body: Body = DEFAULT_BODY
    years: tuple[int, int] | None = None

    @classmethod
    def of(cls, options: RunOptions) -> SampleOptions:
        """The sample a run's options ask for; a bad body or years window fails here."""
        return cls(
            limit=options.limit,
            seed=options.seed,
            repeats=options.repeats,
            personas=options.personas,
            body=check_body(options.body),
            years=parse_years(options.years),
        )

    def __post_init__(self) -> None:
        if self.repeats < 1:
            raise InputError(f"--repeats must be >= 1, got {self.repeats}")
        if self.limit is not None and self.limit < 1:
            raise InputError(f"--limit must be >= 1, got {self.limit}")
        check_body(self.body)


def in_window(record: Record, years: tuple[int, int] | None) -> bool:
    return years is None or years[0] <= record.date.year <= years[1]


def eligible(corpus: Corpus, options: SampleOptions) -> list[Record]:
    """Every item a study of ``options`` could cover: the Council's non-adopted drafts (the paper's
    66), or every Assembly roll call in the window with at least one recorded vote, by date."""
    if options.body == "unga":
        items = [r for r in corpus.records if r.body == "unga" and r.votes and in_window(r, options.years)]
        items.sort(key=lambda r: (r.date, r.id))
    else:
        items = [r for r in corpus.drafts if in_window(r, options.years)]
    if not items:
        window = f" in {options.years[0]}-{options.years[1]}" if options.years else ""
        raise InputError(f"no {options.body} item with a recorded vote{window}: the window is empty")
    return items


def skipped_items(corpus: Corpus, options: SampleOptions) -> int:
    """Assembly roll calls in the window with no recorded vote: skipped and counted, never scored."""
    if options.body != "unga":
        return 0
    return sum(1 for r in corpus.records if r.body == "unga" and not r.votes and in_window(r, options.years))


def select_drafts(corpus: Corpus, options: SampleOptions) -> list[Record]:
    """The study's items (:func:`eligible`), or a seeded sample of ``limit`` of them, in date order."""
    drafts = eligible(corpus, options)
    if options.limit is None or options.limit >= len(drafts):
        return list(drafts)
    chosen = random.Random(options.seed).sample(drafts, options.limit)
    return sorted(chosen, key=lambda r: (r.date, r.id))


def persona_plan(drafts: list[Record], options: SampleOptions) -> PersonaPlan:
    return plan_personas(options.personas, drafts, seed=options.seed)


def vote_tasks(test: str, drafts: list[Record], options: SampleOptions) -> list[Task]:
    plan = persona_plan(drafts, options)
    return [
        Task(test=test, item=draft.id, persona=persona, repeat=repeat)
        for draft in drafts
        for persona in plan.for_item(draft)
        for repeat in range(options.repeats)
    ]


def load_items(options: SampleOptions) -> Corpus:
    """The corpus a study of ``options`` reads: the Council's, or the Assembly's roll calls up to the
    window's end (earlier ones are the debias pool)."""
    if options.body == "unga":
        from nationbias.stores.unga import assembly_corpus

        return assembly_corpus(until=options.years[1] if options.years else None)
    from nationbias.stores.corpus import load_corpus

    return load_corpus()
