"""The report of a whole study (CLI, real HTTP model server) read in real Chromium at 1,400 px: nothing
runs off the page, long hashes are shortened with the full value on hover and run ids are whole, the
first screen gives every test's headline, and Tables 1–2 are in the paper's compact layout."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from tests.support.browser import CHROMIUM_ARGS, chromium_or_skip

FIGURE = re.compile(r"^[+-]?\d\.\d{2,3}\s*\[[+-]?\d\.\d{2,3}, [+-]?\d\.\d{2,3}\]$")
SHAPES = """() => {
  const box = e => e.getBoundingClientRect();
  const shown = e => !e.closest('details:not([open])');
  return {
    scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth,
    tables: Array.from(document.querySelectorAll('table')).filter(shown)
      .map(t => ({id: t.id, right: box(t).right})),
    images: Array.from(document.images).map(i => ({src: i.getAttribute('src'), right: box(i).right})),
    first: document.querySelector('section').id,
    run_ids: Array.from(document.querySelectorAll('#run-metadata .run-id code')).map(c => c.innerText),
    titled: Array.from(document.querySelectorAll('#run-metadata [title]'))
      .map(td => ({title: td.title, text: td.innerText})),
    headline: Array.from(document.querySelectorAll('#headline tbody tr')).map(tr => ({
      test: tr.querySelector('th').innerText,
      cells: Array.from(tr.querySelectorAll('td')).map(td => td.innerText.replace(/\\s+/g, ' ').trim())})),
    table1: Array.from(document.querySelectorAll('table[id^="table1-"]')).map(t => ({
      rows: Array.from(t.tBodies[0].rows).map(r => r.cells[0].innerText),
      groups: Array.from(t.tHead.rows[0].cells).map(c => c.innerText)})),
    table2: Array.from(document.querySelectorAll('#table2-models thead th')).map(c => c.innerText),
  };
}"""


def test_report_fits_1400px_and_reads_like_the_paper(browser_study_report: Path) -> None:
    browser_path = chromium_or_skip()
    report = browser_study_report  # run id: tests/support/browser.py's STUDY_RUN_ID, a long one

    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=browser_path, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.goto(report.as_uri())
        for image in page.locator("img").all():
            image.scroll_into_view_if_needed()
        page.wait_for_function("Array.from(document.images).every(i => i.complete && i.naturalWidth > 0)")
        shapes = page.evaluate(SHAPES)
        browser.close()

    assert shapes["scroll"] <= shapes["client"], "the page scrolls sideways"
    too_wide = [t for t in shapes["tables"] + shapes["images"] if t["right"] > 1400]
    assert not too_wide, too_wide
    assert {t["id"] for t in shapes["tables"]} >= {"run-metadata", "headline", "table2-models"}

    meta = pd.read_csv(report.parent / "run-metadata.csv")  # the CSV keeps every value whole
    titled = {c["title"]: c["text"] for c in shapes["titled"]}
    ids = set(shapes["run_ids"])
    for run_id in meta["run_id"]:  # whole, in a <code> one click selects (nothing runs off the page)
        assert run_id in ids and run_id not in titled
    for sha in meta["data_sha256"].dropna():
        assert sha in titled and len(titled[sha]) <= 11, titled.get(sha)

    assert shapes["first"] == "first-screen", "the first screen opens the report"
    headline = {row["test"]: row["cells"] for row in shapes["headline"]}
    assert set(headline) == set(meta["test"]) == {"vote", "debias", "directqa", "association", "attribution"}
    for test, cells in headline.items():
        assert any(FIGURE.match(c) for c in cells), (test, cells)  # the figure with its interval
    assert all("best of" in c for t in ("vote", "debias") for c in headline[t][5:6]), headline
    assert all(row[6].startswith("not in the paper") for row in headline.values())  # not a paper model

    p5, votes = ["USA", "GBR", "FRA", "RUS", "CHN"], ["favour", "against", "abstention"]
    assert shapes["table1"] and all(
        t["rows"] == p5 and t["groups"][1:4] == votes for t in shapes["table1"]
    ), shapes["table1"]
    assert shapes["table2"][2:] == p5, shapes["table2"]  # model, run, then the nations
