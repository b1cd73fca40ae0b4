"""A study's report read in real Chromium for what a reviewer reads first: the scope line, the confusion
grids (labels at least 12 px, contrast at least 4.5:1), the P5 in the paper's order, headers that wrap
between words only, whole copyable run ids, the section titled by the figures it holds, and the sample
browser's fields (the pair a DirectQA sample asked, a rehearsal by its draft symbol)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pandas as pd

from tests.support.browser import CHROMIUM_ARGS, chromium_or_skip

P5 = ["USA", "GBR", "FRA", "RUS", "CHN"]
READ = """() => {
  const rgb = c => c.match(/[\\d.]+/g).slice(0, 3).map(Number);
  const lum = c => rgb(c).map(v => v / 255).map(v => v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4)
    .reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0);
  const ratio = (a, b) => {
    const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
    return (x + 0.05) / (y + 0.05);
  };
  const broken = [];
  for (const th of document.querySelectorAll('table.data thead th, table.grid thead th')) {
    const walk = document.createTreeWalker(th, NodeFilter.SHOW_TEXT);
    for (let node = walk.nextNode(); node; node = walk.nextNode()) {
      // a name breaks only at a hyphen, or after an underscore when longer than 12 ("data_sha256" never)
      const parts = [...node.data.matchAll(/\\S+/g)].flatMap(w => [...w[0].matchAll(
        w[0].length <= 12 ? /[^\\-–—/]+/g : /[^\\-–—/_]+/g)]
        .map(p => Object.assign([p[0]], {index: w.index + p.index})));
      for (const m of parts) {
        const r = document.createRange();
        r.setStart(node, m.index); r.setEnd(node, m.index + m[0].length);
        if (new Set([...r.getClientRects()].map(x => Math.round(x.top))).size > 1) broken.push(m[0]);
      }
    }
  }
  const table5 = document.querySelector('table[id^="table5-"]');
  return {
    scope: (document.querySelector('#scope') || {}).innerText || '',
    scopeBeforeSections: !!document.querySelector('#scope') &&
      !!(document.querySelector('#scope').compareDocumentPosition(document.querySelector('section')) & 4),
    grids: [...document.querySelectorAll('.grids')].map(g => ({
      id: g.id,
      names: [...g.querySelectorAll('table.grid caption')].map(c => c.innerText),
      shapes: [...g.querySelectorAll('table.grid')].map(t => [t.rows.length, t.rows[1].cells.length]),
      cells: [...g.querySelectorAll('table.grid td, table.grid th')].map(c => {
        const s = getComputedStyle(c);
        let bg = s.backgroundColor;
        if (bg === 'rgba(0, 0, 0, 0)') bg = 'rgb(255, 255, 255)';
        return {px: parseFloat(s.fontSize), contrast: ratio(s.color, bg)};
      }),
    })),
    longRows: document.querySelectorAll('table.data[id^="confusion-"]').length,
    broken,
    ids: [...document.querySelectorAll('.run-id code')].map(c => {
      const s = getComputedStyle(c);
      return {text: c.innerText, select: s.userSelect || s.webkitUserSelect};
    }),
    table5: table5 ? [...table5.tBodies[0].rows].map(r => r.cells[0].innerText) : [],
    directqa: (document.querySelector('#figure2-directqa h2') || {}).innerText || '',
  };
}"""


def _choose(page: Any, name: str, value: str) -> None:
    page.evaluate(
        """([name, value]) => { const s = document.getElementById('filter-' + name);
             const o = [...s.options].find(o => o.text.startsWith(value + ' ('));
             s.value = o.value; s.dispatchEvent(new Event('change')); }""",
        [name, value],
    )


def test_the_report_reads_right_in_chromium(browser_study_report: Path) -> None:
    browser_path = chromium_or_skip()
    report = browser_study_report
    meta = pd.read_csv(report.parent / "run-metadata.csv")

    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=browser_path, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.goto(report.as_uri())
        shown = page.evaluate(READ)

        page.click("#samples-link")
        page.wait_for_selector("#list tbody tr")
        _choose(page, "test", "directqa")
        page.click("#list tbody tr >> nth=0")
        page.wait_for_selector('#detail dd[data-key="pair asked"]')
        pair = page.text_content('#detail dd[data-key="pair asked"]')
        _choose(page, "test", "debias")
        rehearsals: list[str] = []
        for row in range(page.locator("#list tbody tr").count()):
            page.click(f"#list tbody tr >> nth={row}")
            page.wait_for_selector("#detail .sample-id")
            rehearsals += page.eval_on_selector_all(
                ".trajectory .step > h4", "hs => hs.map(h => h.textContent)"
            )
            if rehearsals:
                break
        browser.close()

    assert shown["scopeBeforeSections"], "the scope line comes before every section"
    scope = shown["scope"]
    assert scope.startswith("Scope: ") and "of 66 drafts" in scope and "of 48 keywords" in scope, scope
    assert "of 11 question families" in scope and "2 repeats" in scope, scope

    assert shown["longRows"] == 0, "no long-format confusion rows on the page"
    votes = meta[meta["test"].isin(["vote", "debias"])]
    assert len(shown["grids"]) == len(votes), shown["grids"]
    for grid in shown["grids"]:
        assert grid["names"] == P5, grid["names"]  # one 3 × 3 (+ invalid, error) grid per nation
        assert all(shape == [4, 6] for shape in grid["shapes"]), grid["shapes"]
        small = [c for c in grid["cells"] if c["px"] < 12 or c["contrast"] < 4.5]
        assert not small, small

    assert not shown["broken"], f"header words broken inside: {shown['broken']}"
    ids = {i["text"] for i in shown["ids"]}
    assert set(meta["run_id"]) <= ids, (sorted(meta["run_id"]), sorted(ids))  # whole, not "…"
    assert all(i["select"] == "all" for i in shown["ids"]), shown["ids"]  # one click selects it whole

    assert list(dict.fromkeys(shown["table5"])) == P5, shown["table5"]
    assert shown["directqa"].startswith("Figures 2 and 4"), shown["directqa"]  # general + a function

    assert re.fullmatch(r"\(a\) [A-Z]{3}, \(b\) [A-Z]{3}", pair or ""), pair
    assert rehearsals, "a debiased sample shows its rehearsals"
    for heading in rehearsals:  # the draft's symbol, never a bare resolution number
        assert re.match(r"Rehearsal \d+: S/", heading), heading


def test_the_text_budget_row_reads_in_order_with_its_kinds_in_one_column() -> None:
    """A run's config keeps the counts with sorted keys; the report puts them in reading order and folds
    the five text kinds into one column, so the table stays one screen wide."""
    from nationbias.evals.report.leak import text_budget_row

    stored = {
        "agenda/topic only": 0, "budget": 3000, "targets": 3, "text: UN text": 2, "text: press": 1,
        "text: enriched": 0, "with draft text": 3, "operative sent": "9/9",
    }  # fmt: skip
    row = text_budget_row("m · vote · r1", stored)
    assert list(row) == ["run", "targets", "budget", "texts sent", "with draft text", "operative sent",
                         "agenda/topic only"]  # fmt: skip
    assert row["texts sent"] == "UN text 2 · press 1"
    assert "texts sent" not in text_budget_row("r", {"targets": 1})
