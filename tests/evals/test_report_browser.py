"""The whole study through the CLI against a real HTTP model server, then its report in real Chromium
(the study is made once for the report tests: tests/evals/conftest.py).

The page is loaded from disk in headless Chromium (Debian's package, installed by .ci/run); the test
asks the browser what it rendered and does not parse the HTML.
"""

from __future__ import annotations

from pathlib import Path

from tests.support.browser import CHROMIUM_ARGS, chromium_or_skip


def test_study_report_renders_every_table_and_image(browser_study_report: Path) -> None:
    browser_path = chromium_or_skip()
    report = browser_study_report
    pngs = {p.name for p in report.parent.glob("*.png")}
    csvs = {p.name for p in report.parent.glob("*.csv")}
    assert pngs and csvs

    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=browser_path, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1300, "height": 900})
        page.goto(report.as_uri())
        for image in page.locator("img").all():  # images load lazily: bring each into view
            image.scroll_into_view_if_needed()
        page.wait_for_function("Array.from(document.images).every(i => i.complete)")
        images = page.eval_on_selector_all(
            "img", "els => els.map(e => ({src: e.getAttribute('src'), w: e.naturalWidth, alt: e.alt}))"
        )
        tables = page.eval_on_selector_all(
            "table",
            "els => els.map(e => ({id: e.id, rows: e.rows.length, h: e.getBoundingClientRect().height,"
            " csvs: Array.from(e.querySelectorAll('caption a')).map(a => a.getAttribute('href')),"
            " folded: !!e.closest('details:not([open])')}))",
        )
        page.locator("details.why-item > summary").first.click()  # open a draft, then its first member
        why = page.locator("details.why").first
        why.locator("summary").first.click()
        why_text = why.inner_text()
        opened = [
            (box or {}).get("height", 0)
            for box in (why.bounding_box(), why.locator("summary").first.bounding_box())
        ]
        banner = page.get_by_text("proves the pipeline, not a finding").count()
        browser.close()

    assert {i["src"] for i in images} == pngs, "every figure on disk is on the page"
    assert all(i["w"] > 0 and i["alt"] for i in images), [i for i in images if not i["w"]]
    assert tables and all(t["rows"] > 1 and (t["h"] > 0 or t["folded"]) for t in tables), [
        t for t in tables if t["rows"] <= 1 or not (t["h"] or t["folded"])
    ]
    assert "the precedent model predicted" in why_text and opened[0] > 2 * opened[1] > 0, opened  # it opened
    assert "Σ weight × value" in why_text or "Fallback, no contributions" in why_text, why_text
    linked = {csv for t in tables for csv in t["csvs"]}  # a table gathering several runs links each one's
    assert linked <= csvs and len(linked) >= len(csvs) - 1, csvs - linked
    for table in (
        "table1",
        "table2",
        "table3",
        "table4",
        "irres",
        "ats",
        "agreement",
        "invalid",
        "significance-summary",
    ):
        assert any(t["id"].startswith(table) for t in tables), f"no {table} table rendered"
    for figure in ("votes-", "confusion-", "directqa-", "ats-", "weighted-f1"):
        assert any(i["src"].startswith(figure) for i in images), f"no {figure} figure rendered"
    assert banner == 0, "no embedded model in this study: no demo banner"
