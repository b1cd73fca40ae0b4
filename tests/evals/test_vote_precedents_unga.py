"""The report's "why the learned Assembly baseline predicted each vote", read back from the HTML.

A real Assembly vote run (the scripted model) goes through the library and the report; each pair the page
shows is checked against :func:`nationbias.evals.baselines.assembly_explain.explain_assembly` called apart,
and the export holds
every pair of the run.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest

import nationbias
from nationbias.evals.baselines.assembly_explain import explain_assembly
from nationbias.evals.bias_tests.vote.precedents_unga import EXPORT
from nationbias.evals.page.writer import write_report
from nationbias.stores.domain import slug
from nationbias.stores.state.runstore import RunStore

PERSONAS = "USA,BRA,NGA,CHN"
SUM = re.compile(r'<p class="why-sum" data-intercept="([^"]+)" data-sum="([^"]+)" data-score="([^"]+)">')


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, pd.DataFrame, Path]:
    tmp = tmp_path_factory.mktemp("why-unga")
    with pytest.MonkeyPatch.context() as env:
        env.setenv("NATIONBIAS_HOME", str(tmp / "home"))
        summary = nationbias.run(
            "vote", model="fake:hash", body="unga", years="2012", limit=5, seed=2, personas=PERSONAS,
            repeats=1, show_progress=False,
        )  # fmt: skip
        store = RunStore()
        samples = store.samples_frame(summary.run_id)
        path = write_report([summary.run_id], out_dir=tmp / "out", store=store, n_resamples=50)
    return path.read_text(encoding="utf-8"), samples, path


def test_every_pair_is_shown_and_exported_as_explained_apart(report: tuple[str, pd.DataFrame, Path]) -> None:
    text, samples, path = report
    assert 'id="why-precedents-unga"' in text
    pairs = sorted(set(zip(samples["item"], samples["persona"], strict=True)))
    exported = [json.loads(line) for line in (path.parent / EXPORT).read_text(encoding="utf-8").splitlines()]
    apart = {(e["item"], e["member"]): e for e in explain_assembly(items=[p[0] for p in pairs],
                                                                   personas=PERSONAS.split(","))}  # fmt: skip
    assert {(e["item"], e["member"]) for e in exported} == {p for p in pairs if p in apart}
    assert len(exported) >= 12
    for e in exported:
        other = apart[(e["item"], e["member"])]
        assert e["predicted"] == other["predicted"] and e["score"] == pytest.approx(other["score"])
        anchor = slug(f"why-{e['item']}-{e['member']}", keep="-_", limit=200)
        pattern = rf'<details class="why" id="{re.escape(anchor)}"[^>]*>(.*?)</div></details>'
        found = re.search(pattern, text, re.S)
        assert found, anchor
        shown = found.group(1)
        assert f"the learned baseline predicted {e['predicted']}" in shown
        intercept, total, score = map(float, SUM.search(shown).groups())  # type: ignore[union-attr]
        assert intercept + total == pytest.approx(score, abs=1e-9)
        assert score == pytest.approx(other["score"]) and intercept == pytest.approx(other["intercept"])
        for p in other["precedents"][:3]:
            assert p["id"] in shown
        assert "expected score" in shown and "weight ×" not in shown
