"""A disk cache for derived tables that are slow to compute and pure in their inputs.

The Assembly's learned baseline fits fifteen yearly models before a report can show it (about a minute
on two cores); its predictions depend only on the data copy, the window, the states and the code that
computes them. Each table is stored once under ``NATIONBIAS_HOME/derived/frames/``, named by a hash of
everything it depends on, written atomically (a crash leaves no half file), and only after the
computation succeeded: an error is never cached.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from nationbias.stores.config.paths import home, writable


def source_digest(paths: Iterable[str | os.PathLike[str]]) -> str:
    """A hash of the code that computes a table: an edit to it is a new key, never a stale hit."""
    digest = hashlib.sha256()
    for path in paths:
        digest.update(Path(path).read_bytes())
    return digest.hexdigest()[:16]


def frame_path(kind: str, key: Mapping[str, Any]) -> Path:
    text = json.dumps(key, sort_keys=True, default=str)
    name = f"{kind}-{hashlib.sha256(text.encode()).hexdigest()[:20]}.pkl"
    return home() / "derived" / "frames" / name


def cached_frame(kind: str, key: Mapping[str, Any], compute: Callable[[], pd.DataFrame]) -> pd.DataFrame:
    """The table stored for ``key``, else ``compute()`` stored and returned."""
    path = frame_path(kind, key)
    if path.exists():
        try:
            frame = pd.read_pickle(path)
            if isinstance(frame, pd.DataFrame):
                return frame
        except Exception:  # a damaged file is recomputed, not trusted
            path.unlink(missing_ok=True)
    frame = compute()
    if not writable(path.parent):  # a read-only home: the table is computed, not kept
        return frame
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=path.parent, suffix=".tmp", delete=False) as handle:
        tmp = Path(handle.name)
    try:
        frame.to_pickle(tmp)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return frame
