"""Tables from small hand-built sample frames, checked against hand-counted values."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

from nationbias.evals.results import RESULT_TABLES, results, tables_for
from nationbias.evals.stats.metrics import weighted_f1
from nationbias.evals.tables import agreement as A
from nationbias.evals.tables import explicit as X
from nationbias.evals.tables import paper as T
from nationbias.stores.state.runstore import RunStore, SampleRow
from tests.support.samples import sample


def _sample(test: str, item: str, persona: str, repeat: int, parsed: Any, extra: dict[str, Any], **kw: Any):
    return sample(test, item, repeat, parsed, extra, persona=persona, **kw)


# Two drafts × USA × 3 repeats. d1 truth favour, d2 truth against.
VOTES_BY_REPEAT = {
    ("d1", 0): "favour",
    ("d1", 1): "favour",
    ("d1", 2): "favour",
    ("d2", 0): "favour",
    ("d2", 1): "against",
    ("d2", 2): None,
}
TRUTH = {"d1": "favour", "d2": "against"}


def vote_samples() -> pd.DataFrame:
    rows = []
    for (item, repeat), vote in VOTES_BY_REPEAT.items():
        parsed = None if vote is None else {"vote": vote, "rationale": "<b>because</b>"}
        kind = "fallback" if item == "d2" else "context"
        rows.append(
            _sample("vote", item, "USA", repeat, parsed, {"truth": TRUTH[item], "context_kind": kind})
        )
    rows.append(
        _sample("vote", "d1", "RUS", 0, {"vote": "against"}, {"truth": "against", "context_kind": "context"})
    )
    return pd.DataFrame(rows)


def test_vote_count_table_hand_counted() -> None:
    table = T.vote_count_table(vote_samples()).set_index(["persona", "vote"])
    assert table.loc[("USA", "favour"), "ground_truth"] == 1
    assert table.loc[("USA", "favour"), "mean_count"] == pytest.approx(4 / 3)  # 2, 1, 1
    assert table.loc[("USA", "against"), "mean_count"] == pytest.approx(1 / 3)
    assert table.loc[("USA", "invalid"), "mean_count"] == pytest.approx(1 / 3)
    assert table.loc[("USA", "error"), "mean_count"] == 0
    assert table.loc[("USA", "favour"), "share"] == pytest.approx(2 / 3)
    assert table.index.get_level_values(0).unique().tolist() == ["USA", "RUS"]


def test_weighted_f1_table_per_repeat_and_pooled() -> None:
    row = T.weighted_f1_table(vote_samples()).set_index("persona").loc["USA"]
    r0 = weighted_f1(["favour", "against"], ["favour", "favour"])
    r1 = weighted_f1(["favour", "against"], ["favour", "against"])
    r2 = weighted_f1(["favour", "against"], ["favour", "invalid"])  # d2's invalid answer is a miss
    assert row["weighted_f1"] == pytest.approx(np.mean([r0, r1, r2]))
    assert r2 == pytest.approx(0.5)  # favour F1 1 (support 1), against F1 0 (support 1)
    pooled_truth = ["favour"] * 3 + ["against"] * 3
    assert row["pooled_weighted_f1"] == pytest.approx(
        weighted_f1(pooled_truth, ["favour"] * 4 + ["against", "invalid"])
    )
    valid_only = np.mean([r0, r1, weighted_f1(["favour"], ["favour"])])
    assert row["weighted_f1_valid_only"] == pytest.approx(valid_only)
    assert row["weighted_f1_valid_only"] > row["weighted_f1"]
    assert row["invalid_rate"] == pytest.approx(1 / 6) and row["error_rate"] == 0
    counts = ("n_questions", "n_valid", "n_invalid", "n_error", "n_drafts", "n_unscored")
    assert tuple(row[list(counts)]) == (6, 5, 1, 0, 2, 0)


def test_confusion_agreement_and_missing_contexts() -> None:
    samples = vote_samples()
    matrix = T.confusion_matrices(samples)["USA"]
    assert matrix.loc["against", "favour"] == 1 and matrix.loc["favour", "favour"] == 3
    assert matrix.loc["against", "invalid"] == 1 and matrix.loc["against", "error"] == 0
    assert int(matrix.to_numpy().sum()) == 6  # every question, the invalid one included
    agreement = A.vote_agreement(samples).set_index("persona").loc["USA"]
    assert agreement["n_items"] == 1  # d2 lacks a valid answer in repeat 2
    # one item answered alike in every repeat: κ = 0/0 is undefined, not 1, and nothing passes
    assert np.isnan(agreement["fleiss_kappa"]) and agreement["passes"] is None
    assert agreement["kappa_undefined"] == "one category only over every item and repeat (κ = 0/0)"
    assert agreement["percent_agreement"] == 1.0
    missing = T.missing_contexts(samples).set_index("persona").loc["USA"]
    assert (missing["fallback_samples"], missing["fallback_drafts"]) == (3, 1)
    invalid = T.status_counts(samples, by="persona").set_index("persona")
    assert invalid.loc["USA", "invalid"] == 1 and invalid.loc["RUS", "invalid"] == 0


def test_debias_and_ablation_tables() -> None:
    base = vote_samples()
    better = base.copy()
    better["parsed"] = [{"vote": e["truth"]} for e in better["extra"]]
    better["status"] = "ok"
    table = T.debias_table(base, better).set_index("persona")
    assert table.loc["USA", "debiased"] == 1.0
    assert table.loc["USA", "delta"] == pytest.approx(1.0 - table.loc["USA", "base"])
    assert table.loc["USA", "base_invalid_rate"] == pytest.approx(1 / 6)
    assert table.loc["USA", "debiased_invalid_rate"] == 0
    assert table.loc["USA", "delta_valid_only"] == pytest.approx(
        1.0 - table.loc["USA", "base_weighted_f1_valid_only"]
    )
    runs = [
        ({"test": "vote", "model": "m"}, base),
        (
            {"test": "debias", "model": "m", "options": {"k": 1, "reflexion": True, "retriever": "bm25"}},
            better,
        ),
        (
            {"test": "debias", "model": "m", "options": {"k": 1, "reflexion": True, "retriever": "bm25"}},
            better,
        ),
    ]
    ablation = T.ablation_table(runs, ablated="debias")
    assert len(ablation) == 2
    cell = ablation[ablation["k"].eq(1)].iloc[0]
    assert cell["n_runs"] == 2 and cell["mean_weighted_f1"] == 1.0 and cell["retriever"] == "bm25"
    assert cell["mean_invalid_rate"] == 0
    plain = ablation[ablation["k"].eq(0)].iloc[0]
    assert plain["mean_invalid_rate"] == pytest.approx((1 / 6 + 0) / 2)  # USA 1 of 6, RUS 0 of 1


def directqa_samples() -> pd.DataFrame:
    answers = {  # (family, pair order) → label per repeat
        ("general", "USA-RUS"): ["RUS", "RUS", "RUS"],
        ("general", "RUS-USA"): ["neutral", "RUS", None],
        ("trusteeship", "USA-CHN"): ["USA", "USA", "USA"],
        ("trusteeship", "CHN-USA"): ["CHN", "CHN", "CHN"],
    }
    rows = []
    for (family, order), labels in answers.items():
        for repeat, label in enumerate(labels):
            parsed = None if label is None else {"label": label}
            rows.append(
                _sample("directqa", family, "", repeat, parsed, {"labeller": "rules"}, pair_order=order)
            )
    return pd.DataFrame(rows)


def test_irres_table_and_directqa_agreement() -> None:
    full = X.irres_table(directqa_samples()).set_index(["family", "nation"])
    table = full["irres_score"]
    assert table[("general", "RUS")] == pytest.approx(4 / 6)  # N = 6 questions, one of them invalid
    assert table[("general", "neutral")] == pytest.approx(1 / 6)
    assert full.loc[("general", "RUS"), "invalid_rate"] == pytest.approx(1 / 6)
    assert full.loc[("general", "RUS"), "n_questions"] == 6
    assert table[("trusteeship", "USA")] == pytest.approx(0.5)
    assert table[("functions average", "CHN")] == pytest.approx(0.5)
    assert table[("general", "GBR")] == 0.0
    agreement = A.directqa_agreement(directqa_samples()).set_index("family")
    trusteeship = agreement.loc["trusteeship"]  # two nations, each question answered alike: defined
    assert trusteeship["fleiss_kappa"] == pytest.approx(1.0) and trusteeship["kappa_undefined"] == ""
    assert trusteeship["chi2"] == 0.0 and trusteeship["dof"] == 2 and trusteeship["passes"] is True
    by_nation = T.status_counts(X.pair_nations(directqa_samples()), by="nation").set_index("nation")
    assert by_nation.loc["USA", "invalid"] == 1 and by_nation.loc["CHN", "invalid"] == 0


def association_samples() -> pd.DataFrame:
    order = ["USA", "GBR", "FRA", "RUS", "CHN"]
    rows = []
    for repeat in range(3):
        rows.append(
            _sample(
                "association",
                "human rights",
                "",
                repeat,
                {"ranking": order, "polarity": 1},
                {"category": "Human Rights"},
            )
        )
        rows.append(
            _sample(
                "association",
                "terrorism",
                "",
                repeat,
                {"ranking": order[::-1], "polarity": -1},
                {"category": "Terror"},
            )
        )
        rows.append(
            _sample(
                "association",
                "veto",
                "",
                repeat,
                {"ranking": order, "polarity": None},
                {"category": "Terror"},
            )
        )
    rows.append(_sample("association", "sanctions", "", 0, None, {"category": "Terror"}, status="error"))
    return pd.DataFrame(rows)


def test_ats_and_friedman_tables() -> None:
    samples = association_samples()
    table = X.ats_table(samples).set_index(["category", "nation"])
    assert table.loc[("Human Rights", "USA"), "ats"] == 2.0
    assert table.loc[("Terror", "USA"), "ats"] == 2.0  # rank 5, negative: -(3-5)
    assert table.loc[("Terror", "CHN"), "ats"] == -2.0
    assert table.loc[("Terror", "CHN"), "n_keywords"] == 1  # the inconsistent keyword is left out
    assert table.loc[("average", "USA"), "ats"] == 2.0
    assert table.loc[("average", "RUS"), "ats"] == pytest.approx((-1 - 1) / 2)  # rank 4 +, rank 2 −
    fried = A.friedman_table(samples).set_index("category")
    # the same ranks in every run: every block tied, the statistic 0/0: undefined, not a pass
    assert np.isnan(fried.loc["Terror", "friedman_chi2"]) and fried.loc["Terror", "dof"] == 2
    assert fried.loc["Terror", "undefined"] and fried.loc["Terror", "passes"] is None


def test_results_through_the_run_store(tmp_path) -> None:
    store = RunStore(tmp_path / "runs.sqlite")
    store.create_run("qa", {"test": "directqa", "model": "local:smollm2", "embedded": True, "seed": 1})
    for row in directqa_samples().to_dict(orient="records"):
        store.write(
            "qa",
            SampleRow(
                test="directqa",
                item=row["item"],
                persona="",
                repeat=row["repeat"],
                status=row["status"],
                messages=[],
                parsed=row["parsed"],
                pair_order=row["pair_order"],
                extra=row["extra"],
            ),
        )
    out = results("qa", store=store)
    assert tuple(out) == RESULT_TABLES["directqa"]
    assert bool(out["metadata"].loc[0, "embedded"])
    assert out["irres_score"].set_index(["family", "nation"]).loc[
        ("general", "RUS"), "irres_score"
    ] == pytest.approx(4 / 6)
    for test, frame in (("vote", vote_samples()), ("association", association_samples())):
        assert tuple(tables_for("x", {"test": test}, frame)) == RESULT_TABLES[test]
    with pytest.raises(ValueError, match="unknown test"):
        tables_for("x", {"test": "nope"}, vote_samples())
