"""`attribution` in `study` and `demo`: its own voters (no nation named) whatever the study's --personas,
named in the plan line a study prints; and its top-flip drafts linked to their samples in the browser."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import parse_qs, urlsplit

import pytest

import nationbias
from nationbias.evals.bias_tests.base import REGISTRY, StudyPart
from nationbias.evals.study import StudyPlan, describe, study_runs
from nationbias.stores.domain import P5
from nationbias.stores.state.runstore import RunStore
from tests.support.fixtures import FaultServerFactory

FAVOUR = '{"vote": "favour", "rationale": "x"}'
AGAINST = '{"vote": "against", "rationale": "x"}'


def _prompt(body: dict[str, Any]) -> str:
    return "\n".join(str(m.get("content", "")) for m in body["messages"])


def east_voter(body: dict[str, Any]) -> str:
    """Against exactly when the proposer is Russia or China; in favour otherwise (the vote's too)."""
    found = re.search(r"^Submitted by: (.+)$", _prompt(body), re.M)
    return AGAINST if found and found[1] in ("Russian Federation", "China") else FAVOUR


def _personas(plan: StudyPlan) -> dict[str, str | None]:
    return {run.options.run_id: run.options.personas for run in study_runs(plan, "s")}


def test_a_study_keeps_attribution_s_own_voters_whatever_its_personas() -> None:
    for given, votes in ((None, "p5"), ("p5", "p5"), ("USA,RUS", "USA,RUS"), ("none", "none")):
        plan = StudyPlan(personas=given, languages=("en", "fr"), batch=True)
        personas = _personas(plan)
        assert personas["s-attribution"] == personas["s-fr-attribution"] == "none", given
        assert personas["s-vote"] == personas["s-fr-vote"] == personas["s-debias-k1-rf-keyword"] == votes
        assert all(r.options.batch for r in study_runs(plan, "s"))  # --batch reaches every run
        line = describe(plan)
        assert "vote, attribution (voting personas none: no nation named), then 3 debias" in line, line
        assert line.endswith(f"; voting personas {votes}"), line
    assert "s-attribution-control" not in _personas(StudyPlan())  # it is its own control
    assert StudyPlan(limit=4).test_limits()["attribution"] == 4  # --limit reaches it as every test
    assert StudyPlan().test_limits()["attribution"] is None  # every target draft, as `run attribution`


class _OwnVoters:
    """A registered test whose study part names its own voters."""

    name = "own"
    options: ClassVar[dict[str, Any]] = {}
    tables = ("answers",)
    agreement_table = None
    invalid_table = None
    sections = ()
    study = StudyPart(demo=1, order=3, personas="USA,CHN")

    def check_judge(self, prompts: Any) -> None: ...
    def prepare(self, request: Any, sample: Any) -> Any: ...
    async def arun(self, ctx: Any) -> Any: ...
    def result_tables(self, samples: Any) -> Any: ...


def test_a_test_that_names_its_own_voters_keeps_them_in_the_plan_and_its_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(REGISTRY, "own", _OwnVoters())
    plan = StudyPlan(personas="GBR")
    assert _personas(plan)["s-own"] == "USA,CHN" and _personas(plan)["s-vote"] == "GBR"
    line = describe(plan)
    assert "attribution (voting personas none: no nation named), own (voting personas USA,CHN)" in line
    assert line.endswith("; voting personas GBR") and "vote (" not in line  # the vote's are the study's


class _Links(HTMLParser):
    """Each link in the table with the given id: its href and text."""

    def __init__(self, table_id: str) -> None:
        super().__init__()
        self.table_id, self.inside, self.href = table_id, False, ""
        self.links: list[tuple[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        data = dict(attrs)
        if tag == "table":
            self.inside = data.get("id") == self.table_id
        if tag == "a" and self.inside and str(data.get("href", "")).startswith("samples.html#"):
            self.href = str(data["href"])

    def handle_data(self, data: str) -> None:
        if self.href:
            self.links.append((self.href, data))
            self.href = ""


def test_study_personas_p5_leaves_attribution_s_voters_and_its_top_flips_link_to_their_samples(
    fault_server: FaultServerFactory, isolated_home: Path, tmp_path: Path
) -> None:
    """Through the study's own plan (its vote on the P5 beside it): attribution asks "a member of the
    Security Council" each draft in its seven arms; every top-flip draft's link opens the sample
    browser on that run's samples of that draft (the values the browser's index holds)."""
    server = fault_server(responder=east_voter)
    plan = StudyPlan(limits={"vote": 1, "attribution": 3}, cells=[], personas="p5", repeats=2)
    ids = nationbias.study(
        model="openai-compatible:voter", base_url=server.base_url, plan=plan, run_prefix="st",
        show_progress=False,
    )  # fmt: skip
    assert ids == ["st-vote", "st-attribution", "st-vote-control"]
    store = RunStore()
    assert set(store.samples_frame("st-vote")["persona"]) == set(P5)
    frame = store.samples_frame("st-attribution")
    voters = frame["extra"].map(lambda e: e["voter"])
    assert set(voters) == {"none"} and len(frame) == 3 * 7 * 2 and frame["status"].eq("ok").all()
    assert store.get_run("st-attribution")["options"]["voters"] == "none"
    voter = 'You are a representative of "a member of the Security Council" '  # the vote's control
    assert frame["messages"].map(lambda m: m[-1]["content"].startswith(voter)).all()

    page = nationbias.report("st-attribution", out=tmp_path / "report")  # no vote: no baselines to fit
    table = "attribution-top-st-attribution"
    parser = _Links(table)
    parser.feed(page.read_text(encoding="utf-8"))
    drafts = sorted(set(frame["item"]))
    assert sorted(text for _, text in parser.links) == drafts  # each draft once, by its symbol
    script = (page.parent / "samples-data.js").read_text(encoding="ascii")
    index = json.loads(script[len("NB.index(") : -len(");\n")])
    for href, text in parser.links:
        target = urlsplit(href)
        assert target.path == "samples.html" and (page.parent / target.path).is_file()
        wanted = {k: v[0] for k, v in parse_qs(target.fragment).items()}
        assert wanted == {"run": "st-attribution", "item": text}, href
        run, item = index["values"]["run"].index(wanted["run"]), index["values"]["item"].index(text)
        rows = zip(index["columns"]["run"], index["columns"]["item"], strict=True)
        assert sum(r == run and i == item for r, i in rows) == 7 * 2  # the link's filter: its 14 samples
    scope = "attribution (st-attribution): 3 of 66 drafts, 7 arms × 1 voter (none), targets failed"
    assert scope in page.read_text(encoding="utf-8")  # the report's scope line: arms and voters, not personas
    top = (page.parent / f"{table}.csv").read_text(encoding="utf-8")
    assert top.splitlines()[0].startswith("item,flip_rate") and "samples.html" not in top  # plain CSV
