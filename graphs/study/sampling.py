"""What a vote study runs: which body, years and targets, which items (a seeded sample), personas, repeats.

Checked when built, so a bad ``--limit``, ``--repeats`` or persona fails before anything is opened.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Literal

from nationbias.graphs.study.options import BODY_PERSONAS, DEFAULT_BODY, RunOptions, body_personas
from nationbias.graphs.study.personas import PersonaError, PersonaPlan, plan_personas
from nationbias.graphs.study.runner import Task
from nationbias.stores.corpora.corpus import Corpus
from nationbias.stores.errors import InputError
from nationbias.stores.records import Record
from nationbias.stores.text.un_prompt import DEFAULT_TEXTS, TextsMode, check_texts, with_un_text

__all__ = [
    "BODIES",
    "TARGETS",
    "TARGET_ITEMS",
    "PersonaError",
    "SampleOptions",
    "check_body",
    "check_targets",
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


Targets = Literal["failed", "adopted", "all"]
# The Council's items a vote study asks about: the non-adopted drafts (the paper's 66: where a veto or too
# few votes stopped the text), the adopted resolutions (where the record says no one vetoed: the
# false-veto rate, evals/tables/targets.py), or both.
TARGETS: tuple[Targets, ...] = ("failed", "adopted", "all")
DEFAULT_TARGETS: Targets = "failed"


def check_targets(targets: str, *, body: str = DEFAULT_BODY) -> Targets:
    """``targets`` as one of :data:`TARGETS`, or a clear error; the Assembly has no failed drafts to
    choose between, so anything but the default is refused there."""
    for known in TARGETS:
        if str(targets).strip().lower() == known:
            if body == "unga" and known != DEFAULT_TARGETS:
                raise InputError(
                    f"--targets {targets}: the Council's items only (--body unsc); the Assembly's vote "
                    "covers every roll call with a recorded vote"
                )
            return known
    raise InputError(
        f"--targets {targets!r}: choose failed (the non-adopted drafts, the paper's 66), adopted (the "
        "adopted resolutions) or all"
    )


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
    personas: str = BODY_PERSONAS[DEFAULT_BODY]  # a run's options: its body's default (SampleOptions.of)
    body: Body = DEFAULT_BODY
    years: tuple[int, int] | None = None
    targets: Targets = DEFAULT_TARGETS
    texts: TextsMode = DEFAULT_TEXTS  # --texts un: only the items with the UN's own text

    @classmethod
    def of(cls, options: RunOptions) -> SampleOptions:
        """The sample a run's options ask for; a bad body or years window fails here."""
        body = check_body(options.body)
        return cls(
            limit=options.limit,
            seed=options.seed,
            repeats=options.repeats,
            personas=body_personas(options.personas, body),
            body=body,
            years=parse_years(options.years),
            targets=check_targets(options.targets, body=body),
            texts=check_texts(options.texts),
        )

    def __post_init__(self) -> None:
        if self.repeats < 1:
            raise InputError(f"--repeats must be >= 1, got {self.repeats}")
        if self.limit is not None and self.limit < 1:
            raise InputError(f"--limit must be >= 1, got {self.limit}")
        check_body(self.body)
        check_targets(self.targets, body=self.body)
        if check_texts(self.texts) == "un" and self.body == "unga":
            raise InputError(
                "--texts un: the UN's own texts are the Council's drafts'; use it with --body unsc"
            )


def window_text(years: tuple[int, int]) -> str:
    """``2010`` or ``2005-2019``, as the user writes ``--years``."""
    return str(years[0]) if years[0] == years[1] else f"{years[0]}-{years[1]}"


def in_window(record: Record, years: tuple[int, int] | None) -> bool:
    return years is None or years[0] <= record.date.year <= years[1]


BODY_ITEMS = {
    "unsc": "the Council's non-adopted drafts",
    "unga": "the Assembly's roll calls with a recorded vote",
}
TARGET_ITEMS = {
    "failed": BODY_ITEMS["unsc"],
    "adopted": "the Council's adopted resolutions",
    "all": "the Council's adopted resolutions and non-adopted drafts",
}


def council_targets(corpus: Corpus, targets: Targets) -> list[Record]:
    """The Council's items ``targets`` names, by date: the non-adopted drafts, the adopted resolutions,
    or both."""
    if targets == "failed":
        return list(corpus.drafts)
    adopted = list(corpus.adopted)
    if targets == "adopted":
        return adopted
    return sorted([*corpus.drafts, *adopted], key=lambda r: (r.date, r.id))


def eligible(corpus: Corpus, options: SampleOptions) -> list[Record]:
    """Every item a study of ``options`` could cover: the Council's items its ``targets`` name (by
    default the non-adopted drafts, the paper's 66), or every Assembly roll call in the window with at
    least one recorded vote, by date. A window reaching past the record's first or last year is an
    error naming the record's years: a study never covers less than it was asked for without saying so."""
    if options.body == "unga":
        every = [r for r in corpus.records if r.body == "unga" and r.votes]
    else:
        every = council_targets(corpus, options.targets)
        if options.texts == "un":
            every = with_un_text(every)
    items = [r for r in every if in_window(r, options.years)]
    if options.body == "unga":
        items.sort(key=lambda r: (r.date, r.id))
    if options.years is not None and every:
        first, last = min(r.date.year for r in every), max(r.date.year for r in every)
        edges = ([f"start in {first}"] if options.years[0] < first else []) + (
            [f"end in {last}"] if options.years[1] > last else []  # the corpus ends with the window or before
        )
        what = BODY_ITEMS["unga"] if options.body == "unga" else TARGET_ITEMS[options.targets]
        if edges:
            hint = f" (e.g. {max(first, options.years[0])}-{min(last, options.years[1])})" if items else ""
            raise InputError(
                f"--years {window_text(options.years)} reaches outside the record: "
                f"{what} {' and '.join(edges)}; give a window inside it{hint}"
            )
    if not items:
        window = f" in {window_text(options.years)}" if options.years else ""
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
        from nationbias.stores.corpora.unga import assembly_corpus

        return assembly_corpus(until=options.years[1] if options.years else None)
    from nationbias.stores.corpora.corpus import load_corpus

    return load_corpus()
