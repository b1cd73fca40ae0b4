"""The report of an Assembly vote run with many states: the groups section, its figures, its numbers.

Real roll calls and real votes (the shipped Assembly) are the truth; the "model" copies the truth for
WEOG states and answers at random (or invalidly) for the others, so the WEOG gap is positive by
construction. The section's figures are checked against sklearn on the same frame, not against itself.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import accuracy_score, f1_score

from nationbias.evals.page.writer import write_report
from nationbias.stores.corpora.regions import regional_group
from nationbias.stores.corpora.unga import assembly_votes
from nationbias.stores.domain import VOTES
from nationbias.stores.state.runstore import RunStore, SampleRow

LABELS = {"Y": "favour", "N": "against", "A": "abstention"}


def _truths() -> pd.DataFrame:
    votes = assembly_votes((2012, 2012))
    calls = sorted(votes["rcid"].unique())[:12]
    states = sorted(votes["member"].unique())[::8]  # ~24 states across every group
    return votes[votes["rcid"].isin(calls) & votes["member"].isin(states)]


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, pd.DataFrame]:
    tmp = tmp_path_factory.mktemp("groups")
    store = RunStore(tmp / "runs.sqlite")
    config = {"test": "vote", "model": "openai:gpt-4o-mini", "embedded": False, "seed": 0, "options": {}}
    store.create_run("ga", {**config, "prompt_versions": {}, "sample": {"body": "unga", "personas": "all"}})
    rng = np.random.default_rng(0)
    rows = []
    for rcid, member, vote in zip(*(_truths()[c] for c in ("rcid", "member", "vote")), strict=True):
        truth = LABELS[vote]
        weog = regional_group(member) == "WEOG"
        answer = truth if weog else (None if rng.random() < 0.2 else VOTES[rng.integers(3)])
        status = "ok" if answer else "invalid"
        row = SampleRow(test="vote", item=f"UNGA-{rcid}", persona=member, repeat=0, messages=[],
                        status=status, raw="x", parse_error=None if answer else "no vote",
                        parsed={"vote": answer} if answer else None, extra={"truth": truth})  # fmt: skip
        store.write("ga", row)
        rows.append({"member": member, "truth": truth, "answer": answer or "invalid"})
    out = write_report(["ga"], out_dir=tmp / "out", store=store, n_resamples=200)
    return out, pd.DataFrame(rows)


def test_the_groups_section_and_its_figures(report: tuple[Path, pd.DataFrame]) -> None:
    html, frame = report
    text = html.read_text(encoding="utf-8")
    assert 'id="groups"' in text and "Groups of states" in text
    for png in ("states-ga.png", "group-issue-ga.png", "confusion-ga.png"):
        assert (html.parent / png).stat().st_size > 10_000, png
        assert f'src="{png}"' in text
    assert frame["member"].nunique() > 15  # past the Council's seats: group panels, not one per state


def test_group_gaps_are_sklearns_scores_of_each_group_against_the_rest(
    report: tuple[Path, pd.DataFrame],
) -> None:
    html, frame = report
    gaps = pd.read_csv(html.parent / "groups-ga-all.csv").set_index("group")
    group = frame["member"].map(lambda m: regional_group(m) or "none")
    for name in ("WEOG", "African"):
        inside, rest = frame[group.eq(name)], frame[~group.eq(name)]
        expected = accuracy_score(inside["truth"], inside["answer"]) - accuracy_score(
            rest["truth"], rest["answer"]
        )
        assert gaps.loc[name, "accuracy_gap"] == pytest.approx(expected)
        assert gaps.loc[name, "members"] == inside["member"].nunique()
    assert gaps.loc["WEOG", "accuracy"] == 1.0  # copied the truth
    assert gaps.loc["WEOG", "accuracy_gap_low"] > 0  # and the interval says so
    assert "P5" in gaps.index or not frame["member"].isin(["USA", "GBR", "FRA", "RUS", "CHN"]).any()


def test_the_assembly_section_scores_every_vote_and_shows_the_bar(report: tuple[Path, pd.DataFrame]) -> None:
    html, frame = report
    states = pd.read_csv(html.parent / "assembly-states-ga-all.csv").set_index("member")
    per_class = f1_score(frame["truth"], frame["answer"], labels=list(VOTES), average=None, zero_division=0)
    assert states.loc["all", "n"] == len(frame)  # every question, the invalid ones too
    assert states.loc["all", "accuracy"] == pytest.approx(accuracy_score(frame["truth"], frame["answer"]))
    assert states.loc["all", ["f1_favour", "f1_against", "f1_abstention"]].tolist() == pytest.approx(
        per_class
    )
    anchor = pd.read_csv(html.parent / "assembly-anchor-ga-all.csv").set_index("baseline")
    assert {"majority", "same_title", "bloc", "model"} <= set(anchor.index)
    assert (
        anchor.drop(index=[i for i in anchor.index if "UNSim" in i])["n"] == len(frame)
    ).all()  # same votes
    unsim = anchor.loc[[i for i in anchor.index if "UNSim" in i]].iloc[0]
    assert (unsim["accuracy"], unsim["f1_against"]) == (0.682, 0.172)
    model = anchor.loc["model"]
    page = html.read_text(encoding="utf-8")
    assert f"accuracy {model['accuracy']:.3f} (" in page and f"F1 on no {model['f1_against']:.3f} (" in page
    blocs = pd.read_csv(html.parent / "assembly-blocs-ga-all.csv").set_index("member")
    assert blocs.loc["WEOG", "accuracy"] == 1.0
    assert 'id="assembly"' in html.read_text(encoding="utf-8")
