"""A new user's first minutes: clone the repository into an empty folder (no ../shared beside it), then
run the README's demo command. The data must come from the package, and the report must be written."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from nationbias.stores.state.runstore import RunStore
from tests.support.browser import CHROMIUM_ARGS, chromium_or_skip
from tests.support.embedded_runs import copy_home

REPO = Path(__file__).resolve().parents[2]
# The README's demo is `uv run nationbias demo`; the smallest subset keeps this to a few minutes.
DEMO = ["demo", "--drafts", "1", "--debias-drafts", "1", "--keywords", "1", "--repeats", "1"]


def _run(args: list[str], *, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    # A guard, not a speed target: about 2 minutes on an idle 2-core machine, far more on a busy one.
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=1500)
    assert done.returncode == 0, (
        f"{' '.join(args)} exited {done.returncode}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    )
    return done


@pytest.mark.timeout(1800)
def test_a_fresh_clone_runs_the_demo_on_the_packaged_data(tmp_path: Path, embedded_directqa: Path) -> None:
    git, uv = shutil.which("git"), shutil.which("uv")
    assert git and uv, "git and uv are needed (pip install uv)"
    head = subprocess.run([git, "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True, check=True)
    empty = tmp_path / "empty"
    clone = empty / "nationbias"
    subprocess.run([git, "clone", "--quiet", "--no-checkout", str(REPO), str(clone)], check=True, timeout=120)
    subprocess.run([git, "checkout", "--quiet", "--detach", head.stdout.strip()], cwd=clone, check=True)
    assert sorted(p.name for p in empty.iterdir()) == ["nationbias"]  # nothing beside it: no ../shared

    # PYTHONDONTWRITEBYTECODE (set on some CI machines) left out too, as on a new user's machine: the
    # clone's venv has no bytecode, so each of its processes (data info, the demo, the model's worker)
    # would compile the libraries it imports from source again; now the first one writes it.
    dropped = {"NATIONBIAS_DATA", "NATIONBIAS_PAPER", "VIRTUAL_ENV", "UV_PROJECT_ENVIRONMENT"}
    env = {k: v for k, v in os.environ.items() if k not in {*dropped, "PYTHONDONTWRITEBYTECODE"}}
    home = tmp_path / "home"
    env |= {"NATIONBIAS_HOME": str(home), "NATIONBIAS_LLAMA_THREADS": "1", "COLUMNS": "200"}

    # --offline: the clone installs from its own pyproject.toml and uv.lock, with the packages and the
    # llama.cpp wheel uv cached when this checkout was synced. Online, uv revalidates the cached
    # llama-cpp-python sdist; a registry answer without caching headers reads as a new sdist and uv
    # compiles llama.cpp again (seven minutes on 2 cores) for the same wheel.
    uv_run = [uv, "run", "--frozen", "--offline"]
    info = _run([*uv_run, "nationbias", "data", "info"], cwd=clone, env=env).stdout
    assert f"data: the packaged copy in {clone}/stores/data" in info
    assert f"paper: the packaged copy in {clone}/stores/data/paper" in info
    assert "758 records: 66 non-adopted drafts" in info

    # The one run of the demo command in the suite (the embedded model end to end, every test). Its
    # DirectQA slice is the general family's 20 questions, the very calls of the session's embedded
    # DirectQA run (tests/support/embedded_runs.py: the same prompts, the same options, the same cache
    # key): they start in the response cache, as a user's rerun finds them, and the demo's own calls to
    # the clone's embedded model are the rest (the Association Test, the vote, debias, the judge).
    copy_home(embedded_directqa, home, only=("cache.sqlite",))
    demo = _run([*uv_run, "nationbias", *DEMO], cwd=clone, env=env)
    report = Path(demo.stdout.strip().splitlines()[-1])
    assert report.name == "index.html" and report.is_file() and report.is_relative_to(home)
    assert "proves the pipeline, not a finding" in demo.stdout + demo.stderr
    assert "proves the pipeline, not a finding" in report.read_text(encoding="utf-8")
    runs = RunStore(home / "runs.sqlite").runs_frame()
    assert set(runs["test"]) == {"directqa", "association", "vote", "attribution", "debias"}
    # as said above: every DirectQA answer came from the cache the checkout's run filled (so the clone
    # built byte-identical prompts), and no other test's sample was answered from it (a debias cell may
    # still reuse a rehearsal the demo's other cell asked: that is the demo's own cache)
    store = RunStore(home / "runs.sqlite")
    for run_id, test in zip(runs["run_id"], runs["test"], strict=True):
        cached = store.samples_frame(run_id)["extra"].map(lambda extra: bool(extra.get("cached")))
        assert cached.all() if test == "directqa" else not cached.any(), (test, cached.tolist())
    attribution = runs.loc[runs["test"].eq("attribution"), "run_id"].item()
    _attribution_in_chromium(report, attribution, store.samples_frame(attribution))


def _attribution_in_chromium(report: Path, run_id: str, samples: pd.DataFrame) -> None:
    """The demo's report in real Chromium: the attribution section with its figure, its headline row on
    the first screen, and a top-flip draft's link opening the sample browser on that draft's samples."""
    browser_path = chromium_or_skip()
    assert set(samples["persona"].str.split("|").str[1]) == {"none"}  # its own voters, not the demo's P5
    assert len(samples) == 7 * samples["item"].nunique()  # one draft (its demo slice), seven arms, 1 repeat
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=browser_path, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1300, "height": 900})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(report.as_uri())
        headline = page.eval_on_selector_all(
            "#first-screen #headline tbody tr",
            "trs => trs.map(tr => [tr.querySelector('th').innerText, tr.innerText.replace(/\\s+/g, ' ')])",
        )
        section = page.locator("#attribution")
        assert section.locator("h2").inner_text().startswith("Who proposed it")
        figure = section.locator("img").first
        figure.scroll_into_view_if_needed()
        page.wait_for_function(
            "Array.from(document.querySelectorAll('#attribution img')).every(i => i.complete)"
        )
        width, src = figure.evaluate("i => i.naturalWidth"), figure.get_attribute("src") or ""
        link = section.locator('table[id^="attribution-top-"] a[href^="samples.html#"]').first
        item = link.inner_text()
        link.click()
        page.wait_for_selector("body[data-ready='1']")
        rows = page.eval_on_selector_all(
            "#list tbody tr", "trs => trs.map(tr => tr.cells[1].textContent + '|' + tr.cells[0].title)"
        )
        chosen = page.eval_on_selector("#filter-item", "s => s.selectedOptions[0].text")
        url = page.url
        browser.close()
    assert not errors, errors
    ours = [text for test, text in headline if test == "attribution"]  # its row of the first screen
    assert len(ours) == 1 and run_id in ours[0] and "East–West proposer gap" in ours[0], headline
    assert src.startswith("attribution-") and width > 0, (src, width)  # the figure, drawn
    assert item in set(samples["item"]) and "samples.html#" in url and chosen.startswith(item + " (")
    assert sorted(rows) == [f"{item}|{run_id}"] * int(samples["item"].eq(item).sum()), rows
