"""The report's "why the precedent model predicted each vote" section, read back from the HTML.

A real vote run (the scripted model, every seat, the drafts of 2013–2014: the first draft has nothing
before it) goes through the library and the report; what the page shows for each (draft, member) is
checked against a separately built :class:`PrecedentModel`'s ``explain``.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pandas as pd
import pytest

import nationbias
from nationbias.evals.baselines.precedent_features import member_name, member_vote
from nationbias.evals.baselines.precedent_model import NAMES, PrecedentModel
from nationbias.evals.bias_tests.vote.precedents import EXPORT, TOP, precedents_section
from nationbias.evals.page.writer import write_report
from nationbias.evals.report.context import Context, Run
from nationbias.evals.report.html import Page
from nationbias.stores.corpora.corpus import load_corpus
from nationbias.stores.domain import slug
from nationbias.stores.state.runstore import RunStore

ROW = re.compile(
    r'<tr data-feature="([^"]+)" data-contribution="([^"]+)"><td>[^<]*</td>'
    r"<td>([^<]*)</td><td>([^<]*)</td><td>([^<]*)</td></tr>"
)
SUM = re.compile(r'<p class="why-sum" data-intercept="([^"]+)" data-sum="([^"]+)" data-score="([^"]+)">')


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, pd.DataFrame, Path]:
    tmp = tmp_path_factory.mktemp("why")
    with pytest.MonkeyPatch.context() as env:
        env.setenv("NATIONBIAS_HOME", str(tmp / "home"))
        summary = nationbias.run(
            "vote", model="fake:hash", years="2013-2014", personas="all", repeats=1, show_progress=False
        )
        store = RunStore()
        samples = store.samples_frame(summary.run_id)
        path = write_report([summary.run_id], out_dir=tmp / "out", store=store, n_resamples=50)
    return path.read_text(encoding="utf-8"), samples, path


@pytest.fixture(scope="module")
def model() -> PrecedentModel:
    return PrecedentModel(load_corpus())  # built apart from the report's


def block(text: str, item: str, member: str) -> str:
    anchor = slug(f"why-{item}-{member}", keep="-_", limit=200)
    found = re.search(
        rf'<details class="why" id="{re.escape(anchor)}"[^>]*>(.*?)</div></details>', text, re.S
    )
    assert found, (item, member)
    return found.group(1)


def test_every_pair_of_the_run_is_explained_and_exported(report, model) -> None:  # type: ignore[no-untyped-def]
    text, samples, path = report
    assert 'id="why-precedents"' in text and "Why the precedent model predicted each vote" in text
    assert f'href="{EXPORT}"' in text and "nationbias baselines --explain FILE" in text
    pairs = sorted(set(zip(samples["item"], samples["persona"], strict=True)))
    assert len(pairs) == 60 and {i for i, _ in pairs} == {d.id for d in load_corpus().drafts[:4]}
    assert text.count('<details class="why" ') == len(pairs)
    exported = [json.loads(line) for line in (path.parent / EXPORT).read_text(encoding="utf-8").splitlines()]
    assert sorted((e["item"], e["member"]) for e in exported) == pairs
    for e in exported[::7]:
        assert e == json.loads(json.dumps(model.explain(e["item"], e["member"])))


def test_rendered_contributions_are_explains_and_add_up_to_the_score(report, model) -> None:  # type: ignore[no-untyped-def]
    text, samples, _ = report
    corpus = load_corpus()
    checked = 0
    for item, member in sorted(set(zip(samples["item"], samples["persona"], strict=True))):
        explained = model.explain(item, member)
        shown = block(text, item, member)
        truth = member_vote(corpus.get(item), member_name(member))
        head = html.unescape(shown.split("</summary>", 1)[0])
        assert f"voted {truth}" in head and f"predicted {explained['predicted']} " in head
        for p in explained["precedents"]:  # the member's vote on each precedent, all dated before
            assert f"<td>{html.escape(p['id'])}</td><td>{p['date']}</td>" in shown
            assert p["date"] < explained["date"]
        if explained["constant"] is not None:
            continue
        rows = ROW.findall(shown)
        nonzero = [c for c in explained["contributions"] if c["contribution"] != 0]
        expected = sorted(nonzero, key=lambda c: (-abs(c["contribution"]), c["feature"]))
        assert [html.unescape(r[0]) for r in rows] == [c["feature"] for c in expected]
        for (_, exact, value, coef, part), c in zip(rows, expected, strict=True):
            assert float(exact) == c["contribution"]
            assert (value, coef, part) == (
                f"{c['value']:.3f}",
                f"{c['coef']:+.3f}",
                f"{c['contribution']:+.3f}",
            )
        folded = shown.split("more non-zero contributions</summary>", 1)
        assert len(ROW.findall(folded[0])) == min(TOP, len(expected))  # the top 8 open, the rest folded
        assert f"other {len(NAMES) - len(expected)} features are 0 here" in shown
        intercept, total, score = map(float, SUM.search(shown).groups())  # type: ignore[union-attr]
        assert intercept == explained["intercept"] and score == explained["score"]
        assert total == pytest.approx(sum(float(r[1]) for r in rows), abs=1e-12)
        assert intercept + total == pytest.approx(score, abs=1e-9)
        assert f"score for {explained['scored_class']}" in html.unescape(shown)
        if sum(p > 0 for p in explained["probabilities"].values()) == 2:  # sklearn's one score of two
            assert "the earlier votes had only these two" in shown
        checked += 1
    assert checked >= 40


def test_the_first_draft_shows_its_fallback(report, model) -> None:  # type: ignore[no-untyped-def]
    text, samples, _ = report
    first = load_corpus().drafts[0].id
    members = sorted(set(samples.loc[samples["item"] == first, "persona"]))
    assert len(members) == 15
    item = re.search(rf'<details class="why-item" id="why-{re.escape(slug(first, keep="-_"))}">'
                     r"<summary>(.*?)</summary>", text).group(1)  # type: ignore[union-attr]  # fmt: skip
    assert "0 earlier drafts to learn from" in item
    for member in members:
        explained = model.explain(first, member)
        assert explained["constant"] == "favour" and explained["contributions"] == []
        shown = block(text, first, member)
        assert "Fallback, no contributions: no draft is dated before this one" in shown
        assert "the model predicts the constant favour" in shown
        assert "data-feature" not in shown and "why-sum" not in shown


def test_no_section_for_the_assembly(tmp_path: Path) -> None:
    run = Run("ga", {"test": "vote", "sample": {"body": "unga"}}, pd.DataFrame(), {})
    ctx = Context(runs=[run], page=Page(tmp_path), baselines=None, n_resamples=10, seed=0)
    precedents_section(ctx)
    assert ctx.page.sections == [] and not (tmp_path / EXPORT).exists()
