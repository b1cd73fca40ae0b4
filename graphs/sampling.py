"""What a vote study runs: which drafts (a seeded sample), which personas, how many repeats.

Checked when built, so a bad ``--limit``, ``--repeats`` or persona fails before anything is opened.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from graphs.runner import Task
from stores.corpus import Corpus
from stores.domain import P5, P5_BY_NAME
from stores.errors import InputError
from stores.records import Record


class PersonaError(InputError):
    pass


@dataclass(frozen=True)
class SampleOptions:
    """What to run: which drafts (``limit`` of them, chosen by ``seed``), personas and repeats."""

    limit: int | None = None
    seed: int = 0
    repeats: int = 3
    personas: str = "p5"

    def __post_init__(self) -> None:
        if self.repeats < 1:
            raise InputError(f"--repeats must be >= 1, got {self.repeats}")
        if self.limit is not None and self.limit < 1:
            raise InputError(f"--limit must be >= 1, got {self.limit}")


def select_drafts(corpus: Corpus, options: SampleOptions) -> list[Record]:
    """The non-adopted drafts, or a seeded sample of ``limit`` of them, in date order."""
    drafts = corpus.drafts
    if options.limit is None or options.limit >= len(drafts):
        return list(drafts)
    chosen = random.Random(options.seed).sample(drafts, options.limit)
    return sorted(chosen, key=lambda r: (r.date, r.id))


def personas_for(record: Record, spec: str) -> list[str]:
    """``p5``; ``all`` (the members seated on the draft's date); or comma-separated codes/names."""
    key = spec.strip().lower()
    if key == "p5":
        return list(P5)
    if key == "all":
        return [P5_BY_NAME.get(name, name) for name in sorted(record.votes)]
    wanted = [p.strip() for p in spec.split(",") if p.strip()]
    known = set(P5) | set(record.votes)
    unknown = [p for p in wanted if p.upper() not in P5 and p not in known]
    if unknown:
        raise PersonaError(
            f"unknown persona(s) {unknown}: use p5, all, P5 codes ({', '.join(P5)}) or member names"
        )
    return [p.upper() if p.upper() in P5 else p for p in wanted]


def vote_tasks(test: str, drafts: list[Record], options: SampleOptions) -> list[Task]:
    return [
        Task(test=test, item=draft.id, persona=persona, repeat=repeat)
        for draft in drafts
        for persona in personas_for(draft, options.personas)
        for repeat in range(options.repeats)
    ]
