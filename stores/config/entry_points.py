"""Installed packages' plugins, read from their entry points: one reader for every kind.

A bias test (``nationbias.tests``), a provider (``nationbias.providers``) and a retriever
(``nationbias.retrievers``) from outside the package are each declared by one entry point in the
plugin package's metadata; each registry asks :func:`installed` for its group and, when it needs the
object itself, :func:`load_entry`, so a broken plugin fails with one line naming it and its package.
"""

from __future__ import annotations

from importlib import metadata
from typing import Any

from nationbias.stores.errors import InputError


def installed(group: str) -> list[metadata.EntryPoint]:
    """The entry points installed packages declare under ``group``, one per name (the first found on
    ``sys.path`` wins, as for imports), in the order they were found."""
    seen: dict[str, metadata.EntryPoint] = {}
    for entry in metadata.entry_points(group=group):
        seen.setdefault(entry.name, entry)
    return list(seen.values())


def load_entry(entry: metadata.EntryPoint) -> Any:
    """Import what ``entry`` names; a failure is an :class:`InputError` naming the plugin and its package."""
    try:
        return entry.load()
    except (ImportError, AttributeError) as exc:
        package = entry.dist.name if entry.dist is not None else "an installed package"
        raise InputError(
            f"plugin {entry.name!r} ({entry.group} = {entry.value!r}, from {package}) does not load: {exc}"
        ) from exc
