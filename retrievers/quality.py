"""How well a retriever finds each failed draft's adopted precedent: a measure on the real corpus.

Two figures per retriever, at k=1 over the whole corpus as pool: the targets (the non-adopted drafts)
that get no adopted precedent, and the share of targets whose top adopted precedent is on the target's
own agenda item (a target with none counts as a miss). The share is computed twice: as runs see the
items, and with each record's ``agenda_item`` and ``topic`` withheld from everything the retriever
reads (so from the augmented fields, the region inferred from them, the topic keyword and the index's
text): otherwise a retriever could score by reading the very field the measure compares, and the
measure would be circular. The records' ``region`` comes from the source sheet, not from the agenda
item, and stays.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from nationbias.retrievers.base import Retriever
from nationbias.stores.records import Record


@dataclass(frozen=True)
class PrecedentQuality:
    """One retriever's figures over ``targets`` targets."""

    targets: int
    without_adopted: int  # targets with no adopted precedent at k=1
    on_agenda: int  # targets whose top adopted precedent is on their own agenda item
    best: dict[str, str | None]  # each target's top adopted precedent (None: none found)

    @property
    def share(self) -> float:
        return self.on_agenda / self.targets if self.targets else 0.0


def withhold_agenda(records: Sequence[Record]) -> list[Record]:
    """The records without ``agenda_item`` and ``topic``: what the non-circular measure lets a
    retriever read."""
    return [record.model_copy(update={"agenda_item": None, "topic": None}) for record in records]


def _agenda(record: Record) -> str | None:
    return " ".join(record.agenda_item.split()).casefold() if record.agenda_item else None


def precedent_quality(
    retriever: Retriever, records: Sequence[Record], *, withheld: bool = False
) -> PrecedentQuality:
    """The figures of ``retriever`` with every non-adopted draft of ``records`` as a target.

    ``withheld``: the retriever sees the records through :func:`withhold_agenda`; the agenda items
    compared are always the real ones.
    """
    truth = {record.id: record for record in records}
    pool = withhold_agenda(records) if withheld else list(records)
    targets = [record for record in pool if record.kind == "draft" and not record.adopted]
    best: dict[str, str | None] = {}
    on_agenda = 0
    for target in targets:
        adopted = [p for p in retriever.retrieve(target, pool, 1) if p.pool == "adopted"]
        top = adopted[0].record.id if adopted else None
        best[target.id] = top
        wanted = _agenda(truth[target.id])
        if top is not None and wanted is not None and _agenda(truth[top]) == wanted:
            on_agenda += 1
    return PrecedentQuality(
        targets=len(targets),
        without_adopted=sum(1 for top in best.values() if top is None),
        on_agenda=on_agenda,
        best=best,
    )
