"""Typed records for the UNSC corpus (schema: ``shared/data/DATA.md``)."""

from __future__ import annotations

import datetime as dt
import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

Vote = Literal["Y", "N", "A"]
_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


class Tally(BaseModel):
    yes: int
    no: int
    abstain: int


class Context(BaseModel):
    model_config = ConfigDict(extra="allow")
    text: str
    source: str | None = None
    url: str | None = None
    confidence: str | float | None = None


class DraftText(BaseModel):
    model_config = ConfigDict(extra="allow")
    text: str
    source: str | None = None
    url: str | None = None
    complete: bool | None = None


class PressExcerpt(BaseModel):
    """Reveals the outcome: never bound for a pre-vote prompt."""

    model_config = ConfigDict(extra="allow")
    text: str
    url: str | None = None
    source_type: str | None = None
    reveals_outcome: bool = True


class Statement(BaseModel):
    model_config = ConfigDict(extra="allow")
    member: str
    text: str
    url: str | None = None
    kind: str | None = None
    note: str | None = None


class Record(BaseModel):
    """One item the Security Council (``body="unsc"``) or the General Assembly (``"unga"``) voted on.

    An Assembly record keys ``votes`` by ISO3 code; ``paragraph`` marks a separate vote on part of a draft."""

    model_config = ConfigDict(extra="forbid", frozen=False)

    id: str
    body: Literal["unsc", "unga"] = "unsc"
    kind: Literal["draft", "amendment"]
    paragraph: bool = False
    adopted: bool
    resolution: str | None = None
    date: dt.date
    meeting: str | None = None
    agenda_item: str | None = None
    category: str | None = None
    region: str | None = None
    topic: str | None = None
    sponsors: list[str] = Field(default_factory=list)
    title: str | None = None
    tally: Tally
    votes: dict[str, Vote]
    vetoed_by: list[str] = Field(default_factory=list)
    context: Context | None = None
    draft_text: DraftText | None = None
    press_excerpt: PressExcerpt | None = None
    statements: list[Statement] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)

    @field_validator("date", mode="before")
    @classmethod
    def _iso_date(cls, value: object) -> object:
        """Only ``YYYY-MM-DD``: pydantic would otherwise accept timestamps and datetimes."""
        if isinstance(value, dt.date):
            return value
        if not isinstance(value, str) or not _ISO_DATE.match(value):
            raise ValueError(f"not an ISO date (YYYY-MM-DD): {value!r}")
        return value

    @property
    def is_non_adopted_draft(self) -> bool:
        return self.kind == "draft" and not self.adopted

    @property
    def label(self) -> str:
        """A human name: the resolution number for adopted items, else the draft symbol."""
        return f"resolution {self.resolution}" if self.resolution else f'"{self.id}"'
