"""The sample browser at an Assembly study's scale: 10^5 synthetic vote samples through the real writer
(evals/report/sample_browser.py), ``samples.html`` loaded from disk in real Chromium, each filter timed.

Targets: the page ready in under 3 s, each filter applied and drawn in under 200 ms. They are
judged here, not in the test suite (tests/evals/test_sample_browser_scale.py checks the same page works).
"""

from __future__ import annotations

import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import pandas as pd

from benchmarks.common import Section

CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip
LOAD_TARGET_MS, FILTER_TARGET_MS = 3000.0, 200.0
FILTERS = (("persona", "S123"), ("status", "invalid"), ("item", "A/RES/7"), ("outcome", "wrong"))
ITEMS, STATES = 500, 200  # 10^5 samples: every state on 500 roll calls
SYSTEM = "You are a representative of your government at the United Nations General Assembly. " * 8
VOTES = ("yes", "no", "abstain")


def assembly_frame(*, items: int = ITEMS) -> pd.DataFrame:
    """A vote run's samples as ``RunStore.samples_frame`` reads them, prompts as long as the real ones."""
    rows: list[dict[str, Any]] = []
    for i in range(items):
        item, text = f"A/RES/{i}", f"Roll call {i}: the draft resolution on agenda item {i}. " * 20
        for s in range(STATES):
            state, n = f"S{s:03d}", i * STATES + s
            status = "invalid" if n % 10 == 0 else "error" if n % 53 == 0 else "ok"
            vote, truth = VOTES[n % 3], VOTES[(n // 3) % 3]
            rows.append({
                "run_id": "big", "sample_id": f"vote|{item}|{state}||r0", "test": "vote", "item": item,
                "persona": state, "pair_order": "", "repeat": 0, "status": status,
                "messages": [{"role": "system", "content": SYSTEM},
                             {"role": "user", "content": f"You represent {state}. {text} How do you vote?"}],
                "raw": f'{{"vote": "{vote}", "rationale": "consistent with {state}\'s record"}}',
                "parsed": {"vote": vote} if status == "ok" else None,
                "parse_error": ("two_options", "refusal", "no_json")[n % 3] if status == "invalid" else None,
                "error": "HTTP 500" if status == "error" else None, "latency_s": 0.5 + (n % 7) / 10,
                "prompt_tokens": 420, "completion_tokens": 21, "model_calls": 1,
                "extra": {"truth": truth, "date": "2019-12-18", "cached": False}, "created": 0.0,
            })  # fmt: skip
    return pd.DataFrame(rows)


def timed_choice(page: Any, name: str, text: str) -> float:
    """Milliseconds from the filter's change to the list laid out again."""
    return float(
        page.evaluate(
            """([name, text]) => { const s = document.getElementById('filter-' + name);
                 const o = [...s.options].find(o => text ? o.text.startsWith(text + ' (') : o.value === '-1');
                 const t0 = performance.now(); s.value = o.value; s.dispatchEvent(new Event('change'));
                 document.body.offsetHeight; return performance.now() - t0; }""",
            [name, text],
        )
    )


def measure(out_dir: Path, *, chromium: str, frame: pd.DataFrame | None = None) -> dict[str, Any]:
    """Write the browser for ``frame`` (default: 10^5 samples) and time it in Chromium: loads (ms, the
    first reads the files from disk), the in-page load, each filter's median of three, opening a sample,
    the listed count with the "wrong" filter on, and any page errors."""
    from playwright.sync_api import sync_playwright

    from nationbias.evals.bias_tests import get_test
    from nationbias.evals.report.context import Run
    from nationbias.evals.report.sample_browser import write_sample_browser

    frame = assembly_frame() if frame is None else frame
    started = time.perf_counter()
    run = Run("big", {"test": "vote", "model": "openai-compatible:m"}, frame, {}, kind=get_test("vote"))
    data = write_sample_browser([run], out_dir=out_dir)
    figures: dict[str, Any] = {"written_s": time.perf_counter() - started, "count": data.index["count"]}
    figures["index_mb"] = (out_dir / "samples-data.js").stat().st_size / 1e6
    figures["details_mb"] = sum(p.stat().st_size for p in out_dir.glob("samples-detail-*.js")) / 1e6
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        loads = []
        for _ in range(3):
            t0 = time.perf_counter()
            page.goto((out_dir / "samples.html").as_uri())
            page.wait_for_selector("body[data-ready='1']")
            loads.append((time.perf_counter() - t0) * 1000)
        filters: dict[str, float] = {}
        for name, text in FILTERS:
            applied, cleared = [], []
            for _ in range(3):  # the median of three: the machine is shared
                applied.append(timed_choice(page, name, text))
                cleared.append(timed_choice(page, name, ""))
            filters[name], filters[f"{name} cleared"] = statistics.median(applied), statistics.median(cleared)
        timed_choice(page, "outcome", "wrong")
        figures["wrong_listed"] = page.inner_text("#count")
        t0 = time.perf_counter()
        page.click("#list tbody tr >> nth=0")
        page.wait_for_selector("#detail h2.sample-id")
        figures["open_ms"] = (time.perf_counter() - t0) * 1000
        figures["in_page_ms"] = float(page.get_attribute("body", "data-load-ms") or "nan")
        browser.close()
    figures.update(loads=loads, filters=filters, errors=errors)
    return figures


def run(quick: bool = False) -> Section:
    section = Section("sample_browser", "The sample browser at an Assembly study's scale (10^5 samples)")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        section.notes.append("chromium is not installed: apt-get install chromium")
        return section
    frame = assembly_frame(items=50 if quick else ITEMS)
    with tempfile.TemporaryDirectory(prefix="nb-bench-browser-") as folder:
        f = measure(Path(folder), chromium=chromium, frame=frame)
    load = max(max(f["loads"]), f["in_page_ms"])
    section.add(f"page ready ({f['count']:,} samples, worst of 3 loads)", f"{load:.0f} ms",
                f"< {LOAD_TARGET_MS:.0f} ms", load < LOAD_TARGET_MS)  # fmt: skip
    for name, ms in f["filters"].items():
        section.add(f"filter {name} (median of 3)", f"{ms:.0f} ms", f"< {FILTER_TARGET_MS:.0f} ms",
                    ms < FILTER_TARGET_MS)  # fmt: skip
    section.add("open a sample", f"{f['open_ms']:.0f} ms")
    section.notes.append(
        f"written in {f['written_s']:.1f} s; index {f['index_mb']:.1f} MB, details {f['details_mb']:.0f} MB"
        + (f"; page errors: {f['errors']}" if f["errors"] else "")
    )
    return section
