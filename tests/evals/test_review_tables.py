"""The review's tables by hand: paired scopes, vote metrics, reasons, refusal rates, topic and region
breakdowns, and the control persona's plan."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from sklearn.metrics import accuracy_score, f1_score

from nationbias.evals.stats.metrics import VOTE_METRICS, vote_metrics_from_confusions
from nationbias.evals.tables import paper as T
from nationbias.evals.tables.breakdowns import (
    OTHER,
    PALESTINIAN,
    UNRECORDED,
    breakdown_table,
    normal_region,
    normal_topic,
    pooled_groups,
)
from nationbias.evals.tables.invalid_reasons import REASONS, invalid_by_reason, reason_of, refusal_rates
from nationbias.evals.tables.paired import shared_questions
from nationbias.evals.tables.vote_metrics import vote_metrics_table
from nationbias.graphs.study.personas import PersonaError, plan_personas
from nationbias.stores.corpora.corpus import load_corpus
from tests.support.samples import frame, sample

VOTES = ["favour", "against", "abstention"]


def _votes(
    persona: str, truths: list[str], said: list[str | None], *, repeat: int = 0
) -> list[dict[str, Any]]:
    return [
        sample("vote", f"d{i}", repeat, {"vote": s} if s else None, {"truth": t}, persona=persona)
        for i, (t, s) in enumerate(zip(truths, said, strict=True))
    ]


def test_vote_metrics_match_sklearn_with_a_miss() -> None:
    truth = ["favour", "favour", "against", "abstention", "against", "favour"]
    said = ["favour", "against", "against", None, "favour", "favour"]  # d3 invalid: wrong, a miss
    table = vote_metrics_table(frame(_votes("USA", truth, said)), n_resamples=200, seed=0)
    got = table.set_index("metric")["point"]
    pred = [s or "invalid" for s in said]
    assert got["accuracy"] == pytest.approx(accuracy_score(truth, pred))
    per_class = f1_score(truth, pred, labels=VOTES, average=None, zero_division=0)
    for vote, value in zip(VOTES, per_class, strict=True):
        assert got[f"f1_{vote}"] == pytest.approx(value)
    assert got["macro_f1"] == pytest.approx(
        f1_score(truth, pred, labels=VOTES, average="macro", zero_division=0)
    )
    expected = f1_score(truth, pred, labels=VOTES, average="weighted", zero_division=0)
    assert got["weighted_f1"] == pytest.approx(expected)
    favour = table.set_index("metric")["always_favour"]
    assert favour["accuracy"] == pytest.approx(3 / 6) and favour["f1_against"] == 0
    assert favour["macro_f1"] == pytest.approx(f1_score(truth, ["favour"] * 6, labels=VOTES, average="macro"))
    assert list(table["metric"]) == list(VOTE_METRICS)


def test_vote_metrics_of_an_empty_matrix_are_nan() -> None:
    assert np.isnan(vote_metrics_from_confusions(np.zeros((3, 5)))).all()
    with pytest.raises(ValueError, match="K × \\(K \\+ misses\\)"):
        vote_metrics_from_confusions(np.zeros((3, 2)))


def test_shared_questions_keep_drafts_members_and_repeats_both_have() -> None:
    base = frame(
        _votes("USA", ["favour"] * 4, ["favour"] * 4)
        + _votes("USA", ["favour"] * 4, ["against"] * 4, repeat=1)
    )
    other = frame(_votes("USA", ["favour"] * 2, ["against"] * 2))  # d0, d1 in repeat 0 only
    a, b, scope = shared_questions(T.vote_frame(base), T.vote_frame(other))
    assert sorted(a["item"]) == ["d0", "d1"] and set(a["repeat"]) == {0}
    assert len(a) == len(b) == 2
    assert (scope.shared_drafts, scope.left_out_a, scope.left_out_b) == (2, 2, 0)


def test_reasons_map_every_stored_reason() -> None:
    assert reason_of("invalid", "refusal", {}) == "refusal"
    assert reason_of("invalid", "hedged_choice", {}) == "hedge"
    assert reason_of("invalid", "multiple_options", {}) == "several options"
    assert reason_of("invalid", "no_option", {}) == "no option"
    assert reason_of("invalid", "repetition_loop", {}) == "loop"
    assert reason_of("invalid", "truncated", {}) == "cut off"
    assert reason_of("error", None, {}) == "error"
    assert reason_of("invalid", "template_echo", {}) == "other"
    assert reason_of("ok", None, {"rules_reason": "refusal"}) == "refusal"  # DirectQA's neutral refusal
    assert reason_of("ok", None, {"rules_reason": None}) is None
    samples = frame(_votes("CHN", ["favour"] * 3, [None, None, "favour"]))
    samples["parse_error"] = ["refusal", "truncated", None]
    table = invalid_by_reason(samples, by=samples["persona"].rename("nation")).set_index("nation")
    assert list(table.columns) == ["answers", *REASONS, "share"]
    assert table.loc["CHN", "refusal"] == 1 and table.loc["CHN", "cut off"] == 1
    assert table.loc["CHN", "share"] == pytest.approx(2 / 3)


def test_refusal_rate_against_the_others_by_hand() -> None:
    rows = []
    for nation in ("USA", "GBR", "CHN"):
        said = [None] * 6 if nation == "CHN" else ["favour"] * 6
        rows += _votes(nation, ["favour"] * 6, said)
    samples = frame(rows)
    samples["parse_error"] = [("refusal" if p is None else None) for p in samples["parsed"]]
    rates = refusal_rates(samples, n_resamples=200, seed=0).set_index("nation")
    china = rates.loc["CHN"]
    assert (china["refusal_rate"], china["others_rate"], china["difference"]) == (1, 0, 1)
    assert china["p"] == pytest.approx(2 * 0.5**6)  # two-sided sign test, 6 drafts all higher
    assert china["p_holm"] == pytest.approx(3 * 2 * 0.5**6)  # three nations, all at the same p
    usa = rates.loc["USA"]
    assert usa["others_rate"] == pytest.approx(0.5) and usa["drafts_lower"] == 6


def test_topics_normalised_pooled_and_unrecorded_on_the_real_corpus() -> None:
    drafts = load_corpus().drafts
    raw = {d.topic for d in drafts}
    assert len(raw) == 19  # as the source sheet spells them, a missing one included
    topics = {d.id: normal_topic(d.topic) for d in drafts}
    assert len(set(topics.values())) == 18  # the Palestinian question's two spellings are one
    assert sum(t == PALESTINIAN for t in topics.values()) == 13
    assert sum(t == UNRECORDED for t in topics.values()) == sum(d.topic is None for d in drafts)
    pooled = pooled_groups(topics)
    kept = {g for g in pooled.values() if g != OTHER}
    assert all(sum(v == g for v in pooled.values()) >= 5 for g in kept)
    regions = {d.id: normal_region(d.region) for d in drafts}
    assert sum(r == UNRECORDED for r in regions.values()) == sum(d.region is None for d in drafts) > 0


def test_breakdown_scores_and_intervals_by_hand() -> None:
    truths = ["favour", "against"] * 3
    rows = _votes("USA", truths, ["favour"] * 6)
    groups = {"topic": {f"d{i}": ("A" if i < 5 else "B") for i in range(6)}}
    table = breakdown_table(frame(rows), groups, n_resamples=200, seed=0)
    by = table.set_index(["group", "nation"])
    assert list(by.index.get_level_values(0)) == ["A", OTHER]  # B has 1 draft: pooled into other
    a = by.loc[("A", "USA")]
    truth_a = truths[:5]
    assert a["n_drafts"] == 5
    assert a["weighted_f1"] == pytest.approx(
        f1_score(truth_a, ["favour"] * 5, average="weighted", labels=VOTES, zero_division=0)
    )
    assert a["accuracy"] == pytest.approx(3 / 5) and a["low"] <= a["weighted_f1"] <= a["high"]


def test_the_control_is_one_voter_per_draft_on_the_council_only() -> None:
    drafts = load_corpus().drafts[:3]
    plan = plan_personas("none", drafts)
    assert [plan.for_item(d) for d in drafts] == [["none"]] * 3 and plan.skipped(drafts) == 0
    unga = [d.model_copy(update={"body": "unga"}) for d in drafts]
    with pytest.raises(PersonaError, match="for the Council's vote"):
        plan_personas("none", unga)


def test_the_control_is_scored_against_each_member() -> None:
    truths = {"USA": "favour", "GBR": "favour", "FRA": "abstention", "RUS": "against", "CHN": "against"}
    rows = [
        sample("vote", "d0", 0, {"vote": "against"}, {"truth": None, "member_truths": truths}, persona="none")
    ]
    votes = T.vote_frame(frame(rows)).set_index("persona")
    assert dict(votes["truth"]) == truths and set(votes["answer"]) == {"against"}
    f1 = T.weighted_f1_table(frame(rows)).set_index("persona")["weighted_f1"]
    assert f1["RUS"] == 1 and f1["USA"] == 0 and set(f1.index) == set(truths)


def test_table3_on_runs_that_share_no_question_is_empty_with_its_columns() -> None:
    """A debiased run reported beside a vote run of other members: no shared question, no row, no crash."""
    base = frame(_votes("USA", ["favour"] * 2, ["favour"] * 2))
    debiased = frame(_votes("RUS", ["favour"] * 2, ["against"] * 2))
    a, b, scope = shared_questions(T.vote_frame(base), T.vote_frame(debiased))
    assert a.empty and b.empty and scope.shared_drafts == 0  # the same drafts, asked of other members
    table = T.debias_table(base.loc[a.index], debiased.loc[b.index])
    assert table.empty and {"persona", "base", "debiased", "delta"} <= set(table.columns)
    assert list(T.weighted_f1_table(base.iloc[0:0]).columns) == T.WEIGHTED_F1_COLUMNS
