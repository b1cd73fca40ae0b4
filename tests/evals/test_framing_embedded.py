"""DirectQA asked both ways on the embedded llama.cpp model, through the CLI and the library, and its
report sections (the framing table, the adjusted p-values) as real Chromium renders them.

The 135M model's answers are meaningless: this proves the plumbing (every question asked twice, every
raw answer kept, the framing table built from what was stored and drawn on the page), never a finding.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from typer.testing import CliRunner

import nationbias
from nationbias.evals.cli.main import app
from nationbias.stores.domain import P5
from nationbias.stores.state.runstore import RunStore
from tests.support.browser import CHROMIUM_ARGS, chromium_or_skip
from tests.support.embedded_runs import copy_home

ARGS = ["--model", "local:smollm2", "--limit", "1", "--repeats", "1", "--framing", "both"]


def test_both_framings_on_the_embedded_model_from_the_cli_and_the_library(
    tmp_path: Path, embedded_directqa: Path, isolated_home: Path
) -> None:
    # the paper's framing asks the 20 questions the session's real run asked (tests/support/embedded_runs.py):
    # answered from its cache; the 20 mirrored ones are this test's own calls to the embedded model
    copy_home(embedded_directqa, isolated_home, only=("cache.sqlite",))
    done = CliRunner().invoke(app, ["run", "directqa", *ARGS, "--run-id", "fe"])
    assert done.exit_code == 0, done.output
    samples = RunStore().samples_frame("fe")
    mirrored = samples["item"].str.startswith("responsible:")
    assert len(samples) == 40 and mirrored.sum() == 20  # the 20 ordered pairs, each asked both ways
    assert samples["raw"].map(bool).all() and samples["status"].ne("error").all()
    sent = samples["messages"].map(lambda m: m[-1]["content"])
    assert sent[mirrored].str.contains("more responsible").all()
    assert not sent[mirrored].str.contains("irresponsible").any()

    # The library, the same questions: answered from the response cache the CLI run filled.
    summary = nationbias.run(
        "directqa",
        model="local:smollm2",
        limit=1,
        repeats=1,
        framing="both",
        run_id="fe-lib",
        show_progress=False,
    )
    assert summary.total == 40 and summary.error == 0
    again = RunStore().samples_frame("fe-lib")
    assert again.set_index("sample_id")["raw"].sort_index().tolist() == (
        samples.set_index("sample_id")["raw"].sort_index().tolist()
    )
    table = nationbias.results("fe")["framing"]
    assert set(table["nation"]) == set(P5)

    out = tmp_path / "report"
    shown = CliRunner().invoke(app, ["report", "fe", "--out", str(out)])
    assert shown.exit_code == 0, shown.output
    written = pd.read_csv(out / "framing-fe.csv")
    assert set(written["nation"]) == set(P5)

    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_or_skip(), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1300, "height": 900})
        page.goto((out / "index.html").as_uri())
        framing = page.locator('table[id^="framing-fe"]')
        framing.scroll_into_view_if_needed()
        rows = framing.evaluate("t => t.rows.length")
        height = framing.evaluate("t => t.getBoundingClientRect().height")
        cells = framing.evaluate("t => Array.from(t.tBodies[0].rows).map(r => r.cells[0].innerText.trim())")
        section = page.locator('section[id="figure2-directqa"]').inner_text()
        significance = page.eval_on_selector_all(
            'table[id^="significance"]', "els => els.map(e => [e.id, e.rows.length])"
        )
        banner = page.get_by_text("proves the pipeline, not a finding").count()
        browser.close()
    assert rows == 1 + len(P5) and height > 0, (rows, height)
    assert len(cells) == len(P5)
    assert "--framing both" in section and "which is more responsible?" in section
    assert "significance-summary" in {name for name, _ in significance}  # the survivors' table: if any
    assert all(count > 1 for _, count in significance), significance  # the adjusted p-values, drawn
    assert banner >= 1  # the embedded demo model's answers are labelled as such on the page
