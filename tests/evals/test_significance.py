"""The p-values behind the per-nation claims: each test against hand-worked values or scipy, each claim table
on hand-built runs whose answer is known, and the bootstrap p-values against the report's own intervals."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from nationbias.evals.results import results
from nationbias.evals.stats.bootstrap import paired_bootstrap_delta, per_item_confusion, weighted_f1_ci
from nationbias.evals.stats.metrics import MISSES, VOTES, weighted_f1_from_confusions
from nationbias.evals.stats.multiplicity import ADJUSTED, SURVIVES
from nationbias.evals.stats.significance import (
    binomial_share_test,
    bootstrap_distribution,
    bootstrap_pvalue,
    stratified_t_test,
)
from nationbias.evals.tables import explicit as X
from nationbias.evals.tables import significance as S
from nationbias.evals.tables.intervals import ats_ci
from nationbias.stores.domain import P5
from nationbias.stores.state.runstore import RunStore, SampleRow
from tests.support.samples import sample


# The tests ---------------------------------------------------------------------------------------------
def test_binomial_share_against_one_half_by_hand() -> None:
    # 9 of 10: P(X >= 9) = (10 + 1) / 1024, twice for two sides
    assert binomial_share_test(9, 10) == pytest.approx(22 / 1024)
    assert binomial_share_test(5, 10) == pytest.approx(1.0)
    assert binomial_share_test(0, 4) == pytest.approx(2 / 16)
    assert np.isnan(binomial_share_test(0, 0))
    with pytest.raises(ValueError, match="count <= trials"):
        binomial_share_test(5, 4)


def test_t_over_one_stratum_is_scipys_one_sample_t() -> None:
    values = [0.5, 1.0, 2.0, -0.5, 1.5, 1.0]
    got = stratified_t_test([values], null=0.0)
    want = sps.ttest_1samp(values, 0.0)
    assert got.estimate == pytest.approx(np.mean(values))
    assert got.statistic == pytest.approx(want.statistic) and got.p == pytest.approx(want.pvalue)
    assert got.df == pytest.approx(len(values) - 1)


def test_t_over_two_strata_at_welch_satterthwaite_dof_by_hand() -> None:
    # means 2 and 3 → 2.5; s²/n: 1/3 and 2/2 = 1; se = √(4/3) / 2; dof = (4/3)² / ((1/3)²/2 + 1²/1) = 32/19
    got = stratified_t_test([[1, 2, 3], [2, 4]], null=0.0)
    t = 2.5 / (np.sqrt(4 / 3) / 2)
    assert got.estimate == pytest.approx(2.5) and got.statistic == pytest.approx(t)
    assert got.df == pytest.approx(32 / 19)
    assert got.p == pytest.approx(2 * sps.t.sf(t, 32 / 19))


def test_t_without_spread_or_with_a_lone_item_is_not_tested() -> None:
    assert np.isnan(stratified_t_test([[2, 2, 2]]).p)  # constant, not the null: t undefined
    assert stratified_t_test([[0, 0, 0]]).p == 1.0  # every item at the null: no evidence against it
    assert np.isnan(stratified_t_test([[1, 2], [3]]).p)  # a stratum of one item has no variance
    assert np.isnan(stratified_t_test([]).p)


def test_bootstrap_pvalue_by_hand() -> None:
    # two of four at or below 0 → (1 + 1) / 5 below, (1 + 3) / 5 above: p = 2 · 0.4
    assert bootstrap_pvalue([-1, 1, 2, 3], null=0.0) == pytest.approx(0.8)
    assert bootstrap_pvalue([1, 2, 3], null=0.0) == pytest.approx(0.5)  # the floor 2 / (B + 1)
    assert bootstrap_pvalue([0, 0, 0], null=0.0) == 1.0
    assert bootstrap_pvalue([1, np.nan, 2], null=5.0) == pytest.approx(2 / 3)
    assert np.isnan(bootstrap_pvalue([], null=0.0))


def _confusions(rng: np.random.Generator, accuracy: float, drafts: int = 30) -> np.ndarray:
    truth = rng.integers(3, size=drafts)
    rows = []
    for t in truth:
        cm = np.zeros((3, 5))
        for _ in range(3):
            cm[t, t if rng.random() < accuracy else rng.integers(3)] += 1
        rows.append(cm)
    return np.array(rows)


def _delta(batch: np.ndarray) -> np.ndarray:
    scores = weighted_f1_from_confusions(batch.sum(axis=1))
    return (scores[:, 1] - scores[:, 0])[:, None]


def test_the_bootstrap_resamples_are_the_intervals_own() -> None:
    """The p-value comes from the very resamples behind the report's interval: its 2.5% and 97.5% quantiles
    are the interval, and p < 0.05 exactly when the interval leaves 0 out."""
    rng = np.random.default_rng(5)
    base, better, same = _confusions(rng, 0.4), _confusions(rng, 0.9), _confusions(rng, 0.4)
    verdicts = []
    for a, b in ((base, better), (base, same)):
        ci = paired_bootstrap_delta(a, b, n_resamples=500, seed=3)
        point, spread = bootstrap_distribution(np.stack([a, b], axis=1), _delta, n_resamples=500, seed=3)
        assert point == pytest.approx(ci.point) and len(spread) == 500
        assert np.quantile(spread, [0.025, 0.975]) == pytest.approx([ci.low, ci.high])
        verdicts.append(bootstrap_pvalue(spread) < 0.05)
        assert verdicts[-1] == (ci.low > 0 or ci.high < 0)
    assert verdicts == [True, False]  # 0.9 against 0.4 is found; 0.4 against 0.4 is not
    ci = weighted_f1_ci(base, n_resamples=300, seed=1)
    point, spread = bootstrap_distribution(base, S._f1, n_resamples=300, seed=1)
    assert np.quantile(spread, [0.025, 0.975]) == pytest.approx([ci.low, ci.high])
    assert len(bootstrap_distribution(base[:1], S._f1)[1]) == 0  # one draft: nothing to resample


# The claims of hand-built runs ---------------------------------------------------------------------------
def _directqa(
    label: Any, families: tuple[str, ...] = ("general", "trusteeship"), repeats: int = 3
) -> pd.DataFrame:
    rows = []
    for family in families:
        for i, a in enumerate(P5):
            for b in P5[i + 1 :]:
                for first, second in ((a, b), (b, a)):
                    for repeat in range(repeats):
                        named = label(first, second)
                        parsed = {"label": named} if named else None
                        rows.append(
                            sample(
                                "directqa",
                                family,
                                repeat,
                                parsed,
                                {"labeller": "rules"},
                                pair_order=f"{first}-{second}",
                            )
                        )
    return pd.DataFrame(rows)


def test_directqa_a_model_that_names_russia_whenever_it_can() -> None:
    """RUS named in every question of its pairs; any other pair: the first named (no preference)."""
    samples = _directqa(lambda a, b: "RUS" if "RUS" in (a, b) else a)
    claims = pd.DataFrame(S.directqa_claims(samples)).set_index(["scope", "nation"])
    irres = X.irres_table(samples).set_index(["family", "nation"])["irres_score"]
    assert set(claims.index.get_level_values(0)) == {"general", "trusteeship", "functions average"}
    for key, row in claims.iterrows():
        assert row["statistic"] == pytest.approx(irres[key])  # the paper's irres_score, N every question
    general = claims.loc["general"]
    # RUS: 4 pairs × 2 orders = 8 questions, every repeat RUS: 8 won of 8
    assert general.at["RUS", "n"] == 8 and general.at["RUS", "p"] == pytest.approx(2 * 0.5**8)
    # USA: wins the 3 questions of its non-RUS pairs in which it is named first, of 8
    assert general.at["USA", "n"] == 8
    assert general.at["USA", "p"] == pytest.approx(sps.binomtest(3, 8, 0.5).pvalue)
    assert general.at["USA", "null_value"] == pytest.approx(24 / (2 * 60))  # no preference: half its answers
    average = claims.loc["functions average"]  # one function family here: the same test
    assert average.at["RUS", "p"] == pytest.approx(claims.loc[("trusteeship", "RUS"), "p"])


def test_directqa_claims_read_the_paper_s_question_only() -> None:
    """A --framing both run: its mirrored answers ("responsible:<family>") leave the irres claims alone."""
    paper = _directqa(lambda a, b: "RUS" if "RUS" in (a, b) else a, families=("general",))
    mirrored = _directqa(lambda a, b: "USA" if "USA" in (a, b) else b, families=("responsible:general",))
    both = pd.concat([paper, mirrored], ignore_index=True)
    alone = pd.DataFrame(S.directqa_claims(paper))
    mixed = pd.DataFrame(S.directqa_claims(both))
    pd.testing.assert_frame_equal(alone, mixed)


def test_directqa_neutral_answers_count_in_n_but_are_no_trial() -> None:
    # RUS-pairs answered neutral; the rest: the first named
    samples = _directqa(lambda a, b: "neutral" if "RUS" in (a, b) else a, families=("general",))
    general = pd.DataFrame(S.directqa_claims(samples)).set_index("nation")
    assert general.at["RUS", "n"] == 0 and np.isnan(general.at["RUS", "p"]) and general.at["RUS", "note"]
    assert general.at["USA", "n"] == 6 and general.at["USA", "p"] == pytest.approx(1.0)  # 3 of 6
    assert general.at["USA", "statistic"] == pytest.approx(9 / 60)  # N counts the neutral answers
    # an invalid answer is no trial either
    invalid = _directqa(lambda a, b: None if "CHN" in (a, b) else a, families=("general",))
    assert pd.DataFrame(S.directqa_claims(invalid)).set_index("nation").at["CHN", "n"] == 0


def test_directqa_repeats_of_one_question_are_one_trial() -> None:
    """Repeats that split 2–1 give the question to the majority; 1–1 with a neutral answer is a tie."""
    answers = {0: "USA", 1: "USA", 2: "GBR"}  # USA-GBR: USA wins; GBR-USA: see below
    rows = [
        sample("directqa", "general", r, {"label": v}, {}, pair_order="USA-GBR") for r, v in answers.items()
    ]
    tie = {0: "USA", 1: "GBR", 2: "neutral"}
    rows += [sample("directqa", "general", r, {"label": v}, {}, pair_order="GBR-USA") for r, v in tie.items()]
    usa = pd.DataFrame(S.directqa_claims(pd.DataFrame(rows))).set_index("nation").loc["USA"]
    assert usa["n"] == 1 and usa["p"] == pytest.approx(1.0)  # one trial, won: 1 of 1 → p = 1
    assert usa["statistic"] == pytest.approx(3 / 6) and usa["null_value"] == pytest.approx(5 / 12)


def _association() -> pd.DataFrame:
    rng = np.random.default_rng(4)
    keywords = {f"k{i}": ("Armament" if i < 6 else "Human Rights") for i in range(11)}
    rows = []
    for keyword, category in keywords.items():
        for repeat in range(3):
            ranking = ["USA", *rng.permutation(["GBR", "FRA", "RUS", "CHN"]).tolist()]
            polarity = 1 if rng.random() < 0.8 else -1
            parsed = {"ranking": ranking, "polarity": polarity}
            rows.append(
                sample("association", keyword, repeat, parsed, {"category": category, "labeller": "rules"})
            )
    return pd.DataFrame(rows)


def test_association_ats_against_zero_over_keywords() -> None:
    samples = _association()
    claims = pd.DataFrame(S.association_claims(samples)).set_index(["scope", "nation"])
    assoc = X.association_frame(samples).assign(score=lambda f: f["polarity"] * (3 - f["rank"]))
    per_keyword = assoc.groupby(["category", "keyword", "nation"])["score"].mean()
    armament = per_keyword.loc["Armament"].xs("USA", level="nation").to_numpy()
    want = sps.ttest_1samp(armament, 0.0)
    got = claims.loc[("Armament", "USA")]
    assert got["p"] == pytest.approx(want.pvalue) and got["df"] == 5 and got["n"] == 6
    assert got["statistic"] > 0  # ranked first, mostly positive keywords
    cis = ats_ci(samples, n_resamples=50).set_index(["category", "nation"])["ats"]
    for key, row in claims.iterrows():  # the point the report's interval resamples
        assert row["statistic"] == pytest.approx(cis[key])
    average = claims.loc[("average", "USA")]
    rights = per_keyword.loc["Human Rights"].xs("USA", level="nation").to_numpy()
    assert average["p"] == pytest.approx(stratified_t_test([armament, rights]).p)
    assert 5 <= average["df"] <= 5 + 4


def _votes(accuracy: float, seed: int, *, drafts: int = 20, favour_bias: float = 0.0) -> pd.DataFrame:
    rng, truths = np.random.default_rng(seed), np.random.default_rng(99)
    rows = []
    for i in range(drafts):
        for persona in P5:
            truth = VOTES[truths.integers(3)]
            for repeat in range(3):
                vote = truth if rng.random() < accuracy else VOTES[rng.integers(3)]
                if persona == "USA" and rng.random() < favour_bias:
                    vote = "favour"
                rows.append(
                    sample("vote", f"S/{i}", repeat, {"vote": vote}, {"truth": truth}, persona=persona)
                )
    return pd.DataFrame(rows)


def test_favour_share_against_the_record_is_a_paired_t_over_drafts() -> None:
    samples = _votes(0.6, 1, favour_bias=0.9)
    claims = pd.DataFrame(S.favour_claims(samples)).set_index("nation")
    usa = samples[samples["persona"].eq("USA")]
    votes = usa["parsed"].map(lambda p: p["vote"]).eq("favour").groupby(usa["item"]).mean()
    truth = usa["extra"].map(lambda e: e["truth"]).eq("favour").groupby(usa["item"]).first()
    want = sps.ttest_1samp((votes - truth).to_numpy(), 0.0)
    assert claims.at["USA", "p"] == pytest.approx(want.pvalue) and claims.at["USA", "df"] == 19
    assert claims.at["USA", "statistic"] > 0.3 and claims.at["USA", "p"] < 0.001


def test_debias_and_baseline_claims_agree_with_the_tables_intervals() -> None:
    base, debiased = _votes(0.4, 1), _votes(0.95, 2)
    out = S.debias_claims(
        ("b", {"test": "vote", "model": "m"}, base),
        ("d", {"test": "debias", "model": "m"}, debiased),
        n_resamples=300,
        seed=0,
    )
    assert out["run"].eq("d").all() and out["scope"].eq("vs b").all() and out["test"].eq("debias").all()
    kwargs: dict[str, Any] = {
        "item_col": "item", "truth_col": "truth", "pred_col": "answer", "labels": VOTES, "misses": MISSES
    }  # fmt: skip
    from nationbias.evals.tables.paper import vote_frame

    for _, row in out.iterrows():
        a = vote_frame(base)
        b = vote_frame(debiased)
        a, b = a[a["persona"].eq(row["nation"])], b[b["persona"].eq(row["nation"])]
        ca, cb = per_item_confusion(a, **kwargs)[1], per_item_confusion(b, **kwargs)[1]
        ci = paired_bootstrap_delta(ca, cb, n_resamples=300, seed=0)
        assert row["statistic"] == pytest.approx(ci.point)
        assert (row["p"] < 0.05) == (ci.low > 0 or ci.high < 0)
    assert (out["p"] < 0.05).all()  # 0.95 against 0.4 on 20 drafts
    bars = pd.DataFrame(
        {"baseline": ["low", "high"] * 5, "persona": np.repeat(list(P5), 2), "weighted_f1": [0.05, 0.95] * 5}
    )
    vs = S.baseline_claims("b", {"test": "vote", "model": "m"}, base, bars, n_resamples=300)
    assert len(vs) == 10 and set(vs["scope"]) == {"vs low", "vs high"}
    assert (vs.loc[vs["scope"].eq("vs low"), "statistic"] > 0).all()
    assert (vs["p"] < 0.05).all()  # far above the low bar, below the high one
    assert vs["note"].str.contains("floor").all()  # every resample on one side: p at 2/(B + 1)


def test_a_runs_claims_are_a_result_table_through_the_run_store(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs.sqlite")
    store.create_run("qa", {"test": "directqa", "model": "local:smollm2", "embedded": True, "seed": 1})
    for row in _directqa(lambda a, b: "RUS" if "RUS" in (a, b) else a, families=("general",)).to_dict(
        "records"
    ):
        kept = {k: row[k] for k in ("item", "repeat", "status", "parsed", "pair_order", "extra")}
        store.write("qa", SampleRow(test="directqa", persona="", messages=[], **kept))
    table = results("qa", store=store)["significance"]
    assert list(table.columns[: len(S.COLUMNS)]) == list(S.COLUMNS)
    assert {*ADJUSTED, *SURVIVES} <= set(table.columns)
    assert table["test"].eq("directqa").all() and table["run"].eq("qa").all() and len(table) == 5
    surviving = table.loc[table["survives_holm_family"], "nation"].tolist()
    assert "RUS" in surviving  # 8 questions of 8: p = 2⁻⁷, below Holm's 0.05 / 5
    assert S.run_claims("x", {"test": "a plugin test"}, pd.DataFrame()).empty  # no claims it knows of
    empty = S.significance_table("x", {"test": "a plugin test"}, pd.DataFrame())
    assert empty.empty and list(empty.columns) == [*S.COLUMNS, "m_family", "m_report", *ADJUSTED, *SURVIVES]
