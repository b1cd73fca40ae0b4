"""`study --languages`: every test asked again in another UN language, and the report's language section
(the effect against English with its paired interval), from the library and the CLI, drawn in Chromium."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

import nationbias
from nationbias.evals.cli.main import app
from nationbias.stores.state.runstore import RunStore
from tests.support.browser import CHROMIUM_ARGS, chromium_or_skip


def test_the_library_runs_each_test_in_each_language() -> None:
    ids = nationbias.study(
        model="fake:hash", languages=("zh", "en", "zh"), limits={"directqa": 1, "vote": 1}, limit=1,
        repeats=1, cells=[], run_prefix="lib", show_progress=False,
    )  # fmt: skip
    # each vote's control (no nation named) beside it, in the same language
    assert ids == [
        "lib-directqa",
        "lib-vote",
        "lib-zh-directqa",
        "lib-zh-vote",
        "lib-vote-control",
        "lib-zh-vote-control",
    ]
    store = RunStore()
    assert [store.get_run(i)["language"] for i in ids] == ["en", "en", "zh", "zh", "en", "zh"]
    assert store.get_run("lib-zh-vote-control")["sample"]["personas"] == "none"


def test_the_cli_grid_and_its_report_section_in_chromium(tmp_path: Path) -> None:
    args = ["study", "--model", "fake:hash", "--languages", "en,ru", "--limit", "1", "--repeats", "1"]
    done = CliRunner().invoke(app, [*args, "--run-id", "grid"])
    assert done.exit_code == 0, done.output
    runs = set(RunStore().runs_frame()["run_id"])
    assert {"grid-directqa", "grid-ru-directqa", "grid-association", "grid-ru-association"} <= runs
    assert {"grid-vote", "grid-ru-vote"} <= runs and not any(r.startswith("grid-ru-debias") for r in runs)
    report = Path(done.output.strip().splitlines()[-1])
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_or_skip(), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1300, "height": 900})
        page.goto(report.as_uri())
        effects = page.locator('table[id="language-effects"]')
        effects.scroll_into_view_if_needed()
        rows = effects.evaluate("t => Array.from(t.tBodies[0].rows).map(r => r.innerText)")
        height = effects.evaluate("t => t.getBoundingClientRect().height")
        favours = page.locator('table[id="language-favours"]').evaluate("t => t.rows.length")
        section = page.locator('section[id="languages"]').inner_text()
        browser.close()
    # the P5 and the neutral share (DirectQA), the vote's five personas and its control's five members (the
    # Russian control against the English control), all against English; no ATS row: the fake model's
    # English rationales are no answer to a question asked in Russian (invalid)
    assert len(rows) == 6 + 5 + 5 and height > 0, rows
    assert all("ru" in row for row in rows)
    assert favours == 1 + 1  # DirectQA in Russian
    assert "not yet reviewed by a native speaker" in section and "quoted in English" in section
