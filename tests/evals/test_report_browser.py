"""The whole study through the CLI against a real HTTP model server, then its report in real Chromium
(the study is made once for the report tests: tests/evals/conftest.py).

The page is loaded from disk in headless Chromium (Debian's package, installed by .ci/run); the test
asks the browser what it rendered and does not parse the HTML.
"""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from nationbias.evals.cli.main import app
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
            " csvs: Array.from(e.querySelectorAll('caption a')).map(a => a.getAttribute('href'))"
            "   .concat(Array.from((e.closest('.grids') || e).querySelectorAll('.grids-caption a'))"
            "   .map(a => a.getAttribute('href'))),"
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
    assert any(t["id"].startswith("confusion-") and t["rows"] == 4 for t in tables), "the confusion grids"
    for figure in ("votes-", "directqa-", "ats-", "weighted-f1"):
        assert any(i["src"].startswith(figure) for i in images), f"no {figure} figure rendered"
    assert banner == 0, "no embedded model in this study: no demo banner"


def test_an_assembly_study_report_shows_its_states_groups_and_baselines(fault_server) -> None:  # type: ignore[no-untyped-def]
    """`study --body unga` with the default personas (a seeded sample of 20 states): the Assembly's
    sections, the state and group figures and the Assembly baselines render; no Council-only table."""
    browser_path = chromium_or_skip()
    server = fault_server()
    result = CliRunner().invoke(
        app,
        [
            "study", "--model", "openai-compatible:fault-model", "--base-url", server.base_url,
            "--body", "unga", "--years", "2019", "--limit", "1", "--repeats", "1", "--concurrency", "8",
            "--run-id", "ga",
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert (
        "study on the General Assembly in 2019: vote, then 3 debias cell(s); voting personas sample:20"
        in result.output
    )
    assert "Not run on unga: directqa, association" in result.output
    report = Path(result.output.strip().splitlines()[-1])
    pngs = {p.name for p in report.parent.glob("*.png")}

    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=browser_path, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1300, "height": 900})
        page.goto(report.as_uri())
        for image in page.locator("img").all():
            image.scroll_into_view_if_needed()
        page.wait_for_function("Array.from(document.images).every(i => i.complete)")
        images = page.eval_on_selector_all(
            "img", "els => els.map(e => ({src: e.getAttribute('src'), w: e.naturalWidth, alt: e.alt}))"
        )
        tables = page.eval_on_selector_all("table", "els => els.map(e => ({id: e.id, rows: e.rows.length}))")
        headings = page.eval_on_selector_all("h2", "els => els.map(e => e.innerText)")
        table2 = page.locator("#table2 table").first.inner_text()
        assembly = page.locator("#assembly").inner_text()
        browser.close()

    assert {i["src"] for i in images} == pngs and all(i["w"] > 0 and i["alt"] for i in images)
    assert any(h.startswith("The General Assembly") for h in headings), headings
    assert any(h.startswith("Groups of states") for h in headings), headings
    for figure in (
        "states-ga-vote",
        "group-issue-ga-vote",
        "votes-ga-vote",
        "confusion-ga-vote",
        "weighted-f1",
    ):
        assert any(i["src"].startswith(figure) for i in images), f"no {figure} figure rendered"
    ids = [t["id"] for t in tables]
    for table in ("table2", "table4", "assembly-states-ga-vote", "assembly-anchor-ga-vote", "groups-ga-vote"):
        assert any(i.startswith(table) for i in ids), f"no {table} table rendered"
    assert not any(i.startswith(("irres", "ats")) for i in ids), ids  # DirectQA and the AT did not run
    assert all(t["rows"] > 1 for t in tables if t["id"].startswith(("table2", "table4", "assembly-"))), tables
    for baseline in ("same_title", "bloc", "model"):  # the Assembly's baselines beside the model
        assert f"baseline: {baseline}" in table2, table2[:400]
    members = [line.split("\t")[0] for line in table2.splitlines()]
    assert sum(len(m) == 3 and m.isupper() for m in members) == 20, members  # the 20 sampled states
    assert "UNSim (published" in assembly, assembly[:400]  # the published anchor beside the run
