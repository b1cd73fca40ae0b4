"""The sample browser at an Assembly study's scale: 10^5 samples through the real writer, the page
loaded from disk in real Chromium in under 3 s, each filter applied and drawn in under 200 ms."""

from __future__ import annotations

import statistics
import time
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from evals.report_context import Run
from evals.sample_browser import write_sample_browser
from tests.evals.test_report_browser import CHROMIUM_ARGS, _chromium_or_skip

ITEMS, STATES = 500, 200  # 10^5 samples: every state on 500 roll calls
SYSTEM = "You are a representative of your government at the United Nations General Assembly. " * 8
VOTES = ("yes", "no", "abstain")


def assembly_frame() -> pd.DataFrame:
    """A vote run's samples as ``RunStore.samples_frame`` reads them, prompts as long as the real ones."""
    rows: list[dict[str, Any]] = []
    for i in range(ITEMS):
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


@pytest.mark.timeout(600)
def test_a_hundred_thousand_samples_load_in_3_s_and_filter_in_200_ms(tmp_path: Path) -> None:
    browser_path = _chromium_or_skip()
    frame = assembly_frame()
    assert len(frame) == 100_000
    started = time.perf_counter()
    run = Run("big", {"test": "vote", "model": "openai-compatible:m"}, frame, {})
    data = write_sample_browser([run], out_dir=tmp_path)
    written_s = time.perf_counter() - started
    index_mb = (tmp_path / "samples-data.js").stat().st_size / 1e6
    details_mb = sum(p.stat().st_size for p in tmp_path.glob("samples-detail-*.js")) / 1e6
    assert data.index["count"] == 100_000

    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=browser_path, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        loads = []
        for _ in range(3):  # the first load also reads the files from disk
            t0 = time.perf_counter()
            page.goto((tmp_path / "samples.html").as_uri())
            page.wait_for_selector("body[data-ready='1']")
            loads.append((time.perf_counter() - t0) * 1000)
        in_page = float(page.get_attribute("body", "data-load-ms") or "nan")
        filters: dict[str, float] = {}
        for name, text in (
            ("persona", "S123"),
            ("status", "invalid"),
            ("item", "A/RES/7"),
            ("outcome", "wrong"),
        ):
            applied, cleared = [], []
            for _ in range(3):  # the median of three: the machine is shared
                applied.append(timed_choice(page, name, text))
                cleared.append(timed_choice(page, name, ""))
            filters[name], filters[f"{name} cleared"] = statistics.median(applied), statistics.median(cleared)
        timed_choice(page, "outcome", "wrong")
        votes = frame["parsed"].map(lambda p: (p or {}).get("vote"))
        truths = frame["extra"].map(lambda e: e["truth"])
        wrong = int((~(frame["status"].eq("ok") & votes.eq(truths))).sum())
        assert page.inner_text("#count") == f"1–100 of {wrong} samples"
        t0 = time.perf_counter()
        page.click("#list tbody tr >> nth=0")
        page.wait_for_selector("#detail h2.sample-id")
        opened_ms = (time.perf_counter() - t0) * 1000
        browser.close()
    print(  # the figures benchmarks/RESULTS.md quotes (pytest -s)
        f"\nsample browser, 100,000 samples: written in {written_s:.1f} s, index {index_mb:.1f} MB, "
        f"details {details_mb:.0f} MB in {len(data.chunks)} files; "
        f"load {', '.join(f'{v:.0f}' for v in loads)} ms "
        f"(in page {in_page:.0f} ms); filters {', '.join(f'{k} {v:.0f}' for k, v in filters.items())} ms; "
        f"open a sample {opened_ms:.0f} ms"
    )
    assert not errors, errors
    assert max(loads) < 3000 and in_page < 3000, (loads, in_page)
    assert max(filters.values()) < 200, filters
