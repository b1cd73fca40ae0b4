"""The sample browser: ``samples.html`` beside the report, a static page that works from ``file://``.

No server and no fetch: the page's data are scripts (``samples-data.js``, then one
``samples-detail-N.js`` per chunk of samples and ``samples-explained-N.js`` per chunk of precedent-model
explanations, each added as a ``<script>`` when first needed). The page's code and style ship in
``evals/report/browser/``; model text reaches the page through ``textContent`` only.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from nationbias.evals.report.html import section
from nationbias.evals.report.sample_data import BrowserData, Chunk, build, js_call

if TYPE_CHECKING:
    from nationbias.evals.report.context import Run

ASSETS = Path(__file__).with_name("browser")
PAGE = "samples.html"
INDEX = "samples-data.js"
EXPLANATIONS = ("explained.jsonl", "explained-unga.jsonl")  # what the report's "Why" sections write
_STALE = ("samples-detail-*.js", "samples-explained-*.js")

__all__ = ["PAGE", "sample_browser_section", "samples_link", "write_sample_browser"]


def samples_link(*, run_id: str, item: str) -> str:
    """The sample browser opened on one run's samples of one item (``samples.html#run=…&item=…``: the
    page sets its filters from the fragment)."""
    return f"{PAGE}#{urlencode({'run': run_id, 'item': item})}"


def read_explanations(out_dir: Path) -> Iterator[dict[str, Any]]:
    """The precedent-model explanations the report wrote beside the page, if any."""
    for name in EXPLANATIONS:
        path = out_dir / name
        if path.is_file():
            with path.open(encoding="utf-8") as lines:
                for line in lines:
                    if line.strip():
                        yield json.loads(line)


def write_sample_browser(runs: Sequence[Run], *, out_dir: Path) -> BrowserData:
    """Write the page, its code and its data into ``out_dir``; returns what was written."""
    out_dir = Path(out_dir)
    for pattern in _STALE:  # a previous report's chunks in the same folder
        for old in out_dir.glob(pattern):
            old.unlink()

    def write_chunk(n: int, chunk: Chunk) -> None:
        payload = {"n": n, **chunk.payload()}
        (out_dir / f"samples-detail-{n}.js").write_text(js_call("NB.detail", payload), encoding="ascii")

    data = build(runs, read_explanations(out_dir), sink=write_chunk)
    for asset in ("samples.html", "samples.js", "sample-view.js", "samples.css"):
        shutil.copyfile(ASSETS / asset, out_dir / asset)
    (out_dir / INDEX).write_text(js_call("NB.index", data.index), encoding="ascii")
    for n, explained in enumerate(data.explained):
        payload = {"n": n, "pairs": explained}
        (out_dir / f"samples-explained-{n}.js").write_text(js_call("NB.explained", payload), encoding="ascii")
    return data


def sample_browser_section(runs: Sequence[Run], *, out_dir: Path) -> str:
    """Write the browser and return the report's section linking to it (placed first on the page)."""
    data = write_sample_browser(runs, out_dir=out_dir)
    count = data.index["count"]
    text = (
        f'<p class="note"><a id="samples-link" href="{PAGE}"><b>Browse the {count} samples</b></a>: '
        "filter by test, model, nation or state, item, label, correct or wrong, and invalid reason; "
        "open one for its exact prompt, raw answer, parsed label or invalid reason, latency, tokens and "
        "ground truth, a debiased sample's whole trajectory, and the precedent model's explanation "
        "of the same vote.</p>"
    )
    return section("samples", "Samples", [text])
