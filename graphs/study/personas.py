"""Who votes in a study: ``--personas`` read once against the items the study covers.

A spec is ``p5``; ``all`` (every member recorded as voting on each item: the 15 seated that day on the
Council, every state present in the Assembly); a comma-separated list of P5 codes, Council member
names or (Assembly) ISO3 codes; ``group:NAME`` (a UN regional group, Assembly only); or ``sample:N``
(N members drawn with the run's seed from those who voted on any covered item); or ``none``, the plain
vote's control on the Council: each draft voted once by "a member of the Security Council", no nation
named (``CONTROL``), its answer scored against every member's record. A name that matches
no member of the covered items is an error before any call; a named member with no recorded vote on
an item is skipped there and counted (absent, or not yet a member), never scored.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from nationbias.stores.corpora.regions import GROUPS, regional_group
from nationbias.stores.domain import CONTROL, P5, P5_BY_NAME
from nationbias.stores.errors import InputError
from nationbias.stores.records import Record


class PersonaError(InputError):
    pass


DEBIAS_HAS_NO_CONTROL = (
    "--personas none is the plain vote's control: the debiased vote reflects on each persona's own recorded"
    " votes, so it has no control without a nation; run it with p5 or named members"
)


def persona_code(record: Record, name: str) -> str:
    """A voter's persona: the P5 code for a permanent member's Council name, else the key as recorded."""
    return P5_BY_NAME.get(name, name) if record.body == "unsc" else name


def voters(record: Record) -> list[str]:
    """The personas recorded as voting on ``record``, in a stable order (P5 first)."""
    codes = [persona_code(record, name) for name in record.votes]
    return sorted(codes, key=lambda c: (c not in P5, P5.index(c) if c in P5 else 0, c))


@dataclass(frozen=True)
class PersonaPlan:
    """The spec resolved against the covered items: ``chosen`` is None for "whoever voted"."""

    spec: str
    chosen: tuple[str, ...] | None

    def for_item(self, record: Record) -> list[str]:
        """The personas asked about ``record``: the chosen ones that voted on it (P5: always asked; the
        control: once, no nation named)."""
        if self.chosen == (CONTROL,):
            return [CONTROL]
        present = voters(record)
        if self.chosen is None:
            return present
        if self.spec.strip().lower() == "p5" and record.body == "unsc":
            return list(P5)  # the paper's design: every permanent member votes on every draft
        seated = set(present)
        return [code for code in self.chosen if code in seated]

    def skipped(self, records: Sequence[Record]) -> int:
        """(item, persona) pairs named by the spec with no recorded vote: skipped, never scored."""
        if self.chosen is None or self.chosen == (CONTROL,):
            return 0
        return sum(len(self.chosen) - len(self.for_item(r)) for r in records)


def plan_personas(spec: str, records: Sequence[Record], *, seed: int = 0) -> PersonaPlan:
    """Check ``spec`` against ``records`` (the study's items) and resolve it once."""
    key = spec.strip().lower()
    body = records[0].body if records else "unsc"
    known = sorted({code for record in records for code in voters(record)})
    if key == "all":
        return PersonaPlan(spec, None)
    if key == "p5":
        return PersonaPlan(spec, tuple(P5))
    if key == CONTROL:
        if body != "unsc":
            raise PersonaError(
                "--personas none (the control: no nation named) is for the Council's vote; the Assembly has"
                " no control prompt"
            )
        return PersonaPlan(spec, (CONTROL,))
    if key.startswith("sample:"):
        count = key.removeprefix("sample:")
        if not count.isdigit() or int(count) < 1:
            raise PersonaError(f"--personas {spec!r}: sample:N needs a whole number N >= 1")
        n = min(int(count), len(known))
        return PersonaPlan(spec, tuple(sorted(random.Random(seed).sample(known, n))))
    if key.startswith("group:"):
        return PersonaPlan(spec, _group(spec, body, known))
    wanted = [p.strip() for p in spec.split(",") if p.strip()]
    if not wanted:
        raise PersonaError("--personas is empty: use p5, all, none, sample:N, group:NAME or a list of codes")
    chosen = [p.upper() if p.upper() in P5 or body == "unga" else p for p in wanted]
    unknown = [w for w, c in zip(wanted, chosen, strict=True) if c not in P5 and c not in known]
    if unknown:
        what = "ISO3 codes of states" if body == "unga" else "P5 codes or names of members"
        raise PersonaError(
            f"unknown persona(s) {unknown}: no vote of theirs is recorded on the items covered; use p5, "
            f"all, sample:N{', group:NAME' if body == 'unga' else ''} or {what} (e.g. {', '.join(known[:4])})"
        )
    return PersonaPlan(spec, tuple(dict.fromkeys(chosen)))


def _group(spec: str, body: str, known: list[str]) -> tuple[str, ...]:
    name = spec.split(":", 1)[1].strip()
    match = next((g for g in GROUPS if g.lower() == name.lower()), None)
    if body != "unga" or match is None:
        where = "" if body == "unga" else " (groups are for the Assembly, whose voters are ISO3 codes)"
        raise PersonaError(f"unknown group {name!r} in --personas{where}: choose from {', '.join(GROUPS)}")
    return tuple(code for code in known if regional_group(code) == match)


def is_control(spec: str | None) -> bool:
    """Whether a ``--personas`` spec is the control (``none``)."""
    return spec is not None and spec.strip().lower() == CONTROL
