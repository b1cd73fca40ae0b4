"""Where a record's text really came from, said in a prompt's words.

A press-derived ``context`` is not always a UN press release: many are copies of one on another
site, news reports, government or reference pages (DATA.md; the record's ``notes`` and URL say
which). A prompt that calls them all "the UN press release" tells the model something untrue, so
the label is read from the record: the ``source_type=…`` the curation notes give, else the URL's
site, else what a note says the text was taken from. The words are the same whether the item was
adopted or not: they name a source, never an outcome.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit

from nationbias.stores.records import Record

SourceKind = Literal[
    "un_text",
    "un_document",
    "un_press",
    "press_copy",
    "un_news",
    "un_other",
    "news",
    "gov",
    "wiki",
    "web",
    "unknown",
]

SOURCE_PHRASES: dict[str, str] = {
    "un_text": "the UN's official document",
    "un_document": "a copy of the UN document",
    "un_press": "a UN press release",
    "press_copy": "a UN press release (copy)",
    "un_news": "a UN News story",
    "un_other": "another UN web page",
    "news": "a news report",
    "gov": "a government web page",
    "wiki": "a reference web page",
    "web": "a web page that is not a UN page",
    "unknown": "a source the record does not name",
}

_UN_PRESS = re.compile(r"^(?:press\.un\.org|(?:www\.)?un\.org/(?:press|en/press))")
_UN_OTHER_HOST = re.compile(r"(?:^|\.)(?:un\.org|unmissions\.org|unmultimedia\.org|un\.int|unic\.org\.in)$")
_NOTE_TYPE = re.compile(r"^context:.*?\bsource_type=(\w+)")
_PRESS_COPY_NOTE = re.compile(
    r"^context:.*(?:press text\b.*\bcopy|reproduc\w+ (?:of )?(?:the )?UN|copy of (?:the )?UN press|"
    r"verbatim (?:mirror|reproduction) of UN press)",
    re.IGNORECASE,
)
_FROM_NOTE = re.compile(
    r"\b[Cc]ontext (?:for [^.;]*? )?from (?!an? )"
    r"([\w][\w .&/'-]{1,30}?(?: \(([\w .&/'-]{2,30})\))?)(?:[.;]|$)"
)
# a personal blog's host copies others' texts: it names no publisher ("nolga1125.blogspot.com")
_MIRROR_HOST = re.compile(r"(?:^|\.)(?:blogspot|wordpress|tumblr|livejournal)\.[a-z.]+$")
_NEWS_NOTE = re.compile(
    r"\b(?:Reuters|AP|AFP|Xinhua|TASS|IANS|Global Times|CNBC|i24news|Republic World|news report)\b"
)
_TYPES = {"press": "un_press", "press_copy": "press_copy", "news": "news", "gov": "gov", "wiki": "wiki"}


@dataclass(frozen=True)
class TextSource:
    """Where a text came from: ``kind`` (see :data:`SOURCE_PHRASES`), the site, and a named outlet."""

    kind: SourceKind
    site: str | None = None
    outlet: str | None = None

    @property
    def phrase(self) -> str:
        """ "a news report (tag24 (AFP))", "a UN press release": what a prompt says after "from"."""
        base = SOURCE_PHRASES[self.kind]
        # a copy's site is a mirror (a blogspot page), not a publisher: the phrase names the UN's release
        unnamed = ("un_text", "un_document", "un_press", "un_news", "press_copy")
        site = self.site if self.kind not in unnamed and not _MIRROR_HOST.search(self.site or "") else None
        named = self.outlet or site
        return f"{base} ({named})" if named else base


def site_of(url: str | None) -> str | None:
    """The site of a URL without "www.": "tag24.com"."""
    if not url:
        return None
    host = urlsplit(url if "//" in url else f"//{url}").hostname or ""
    return host.removeprefix("www.") or None


def _outlet(found: re.Match[str]) -> str:
    """ "Xinhua copy" → "Xinhua"; a note's aside in brackets is kept only when it names an agency."""
    name = re.sub(r"\s+(?:copy|summary|report)$", "", found.group(1).strip())
    aside = found.group(2)
    if aside and not _NEWS_NOTE.search(aside):
        name = name.replace(f"({aside})", "").strip()
    return name


def context_source(record: Record) -> TextSource:
    """Where ``record.context`` came from, read from its notes and URL (never from its text)."""
    if record.context is None:
        return TextSource("unknown")
    url = record.context.url or ""
    site = site_of(url)
    notes = [n for n in record.notes if n.startswith("context:")]
    bare = re.sub(r"^https?://", "", url)
    outlet = next((_outlet(m) for n in notes if (m := _FROM_NOTE.search(n))), None)
    if outlet and site and outlet.lower() in site:
        outlet = None  # "sharesproject.nl summary" read up to its dot: the site says it whole
    for note in notes:
        typed = _NOTE_TYPE.match(note)
        if typed and typed.group(1) in _TYPES:
            return TextSource(_TYPES[typed.group(1)], site, outlet)  # type: ignore[arg-type]
        if typed and typed.group(1) == "un_other":
            return TextSource("un_other", site)
    if outlet and not (site and _UN_OTHER_HOST.search(site)):
        named_news = any(_NEWS_NOTE.search(n) for n in notes)
        return TextSource("news" if named_news else "web", site, outlet)
    if _UN_PRESS.match(bare):
        return TextSource("un_press", site)
    if site == "news.un.org":
        return TextSource("un_news", site)
    if site == "reliefweb.int" or any(_PRESS_COPY_NOTE.match(n) for n in notes):
        return TextSource("press_copy", site)
    if site and _UN_OTHER_HOST.search(site):
        return TextSource("un_other", site)
    if any(_NEWS_NOTE.search(n) for n in notes):
        return TextSource("news", site, outlet)
    return TextSource("web", site, outlet)


def draft_text_source(record: Record) -> TextSource:
    """Where ``record.draft_text`` came from: a complete UN document copy or a page that quotes it."""
    draft = record.draft_text
    if draft is None:
        return TextSource("unknown")
    site = site_of(draft.url)
    if draft.complete:
        return TextSource("un_document", site)
    return TextSource("un_other" if site and _UN_OTHER_HOST.search(site) else "web", site)
