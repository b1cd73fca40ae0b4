"""Numbers of the scoring core against independent computations (sklearn, scipy, statsmodels, or worked
by hand), written to kill the mutants that the other tests let live (docs/mutation.md).

Each table here is small and hand-made, so every expected value can be read off or recomputed.
"""

from __future__ import annotations

import statistics
import warnings

import numpy as np
import pandas as pd
import pytest
from pandas.testing import assert_frame_equal
from sklearn.metrics import accuracy_score, f1_score

from nationbias.evals.stats import bootstrap as B
from nationbias.evals.stats import metrics as M
from nationbias.evals.stats import scores as S
from nationbias.evals.tables import agreement as A
from nationbias.evals.tables import explicit as X
from nationbias.evals.tables import paper as T
from nationbias.stores.domain import VOTES
from tests.evals.test_invalid_as_miss import ANSWERED, Q5_INVALID, vote_rows
from tests.support.samples import frame, sample

# One baseline, two members, four items. Truth and predictions chosen so that every vote class is
# present, one prediction is a miss (invalid) and the two members score differently.
PREDICTIONS = pd.DataFrame(
    [
        ("rule", "i1", "A", "favour", "favour"),
        ("rule", "i2", "A", "against", "favour"),
        ("rule", "i3", "A", "abstention", "abstention"),
        ("rule", "i4", "A", "favour", "invalid"),
        ("rule", "i1", "B", "against", "against"),
        ("rule", "i2", "B", "against", "against"),
        ("rule", "i3", "B", "favour", "abstention"),
        ("rule", "i4", "B", "abstention", "abstention"),
    ],
    columns=["baseline", "item_id", "member", "truth", "predicted"],
)


def _sklearn_metrics(frame: pd.DataFrame) -> dict[str, float]:
    """accuracy, weighted F1 and each vote's F1 the sklearn way: a miss is a wrong answer of no class."""
    truth, pred = frame["truth"].tolist(), frame["predicted"].tolist()
    per_class = f1_score(truth, pred, labels=list(VOTES), average=None, zero_division=0)
    return {
        "accuracy": accuracy_score(truth, pred),
        "weighted_f1": f1_score(truth, pred, labels=list(VOTES), average="weighted", zero_division=0),
        **{f"f1_{vote}": float(v) for vote, v in zip(VOTES, per_class, strict=True)},
    }


def test_score_table_without_pooling_has_no_all_row() -> None:
    table = S.score_table(PREDICTIONS, n_resamples=20, pooled=False)
    assert table["member"].tolist() == ["A", "B"]


def test_metrics_of_a_hand_worked_matrix() -> None:
    # truth favour: 2 favour, 1 against, 1 invalid; truth against: 2 against; abstention: 1 favour.
    cm = np.array([[2, 1, 0, 1], [0, 2, 0, 0], [1, 0, 0, 0]], dtype=float)
    accuracy, wf1, f_fav, f_ag, f_ab = S.metrics_of(cm)
    # F1 favour: tp 2, support 4, predicted 3 -> 4/7; against: tp 2, support 2, predicted 3 -> 4/5.
    assert accuracy == pytest.approx(4 / 7)
    assert (f_fav, f_ag, f_ab) == pytest.approx((4 / 7, 4 / 5, 0.0))
    assert wf1 == pytest.approx((4 * 4 / 7 + 2 * 4 / 5 + 1 * 0) / 7)


def test_metrics_of_an_empty_matrix_is_nan_accuracy_and_zero_f1() -> None:
    values = S.metrics_of(np.zeros((3, 5)))
    assert np.isnan(values[0]) and np.isnan(values[1])
    assert values[2:].tolist() == [0.0, 0.0, 0.0]


def test_a_zero_denominator_gives_exactly_zero_f1_and_nan_for_an_empty_matrix_in_a_stack() -> None:
    """Where a class is neither true nor predicted (F1's denominator 0) its F1 is 0, and an empty matrix
    scores NaN, whatever numpy's scratch memory holds: the guarded ratios never read uninitialised
    entries (docs/mutation.md), and without numpy's 0/0 warning (a bootstrap scores thousands of resamples).
    A stack mixes matrices with and without such classes, in both orders."""
    absent = np.array([[3, 1, 0, 0, 0], [1, 2, 0, 0, 1], [0, 0, 0, 0, 0]], dtype=float)  # no abstention
    full = np.array([[2, 1, 0, 1, 0], [0, 2, 1, 0, 0], [1, 0, 1, 0, 0]], dtype=float)
    empty = np.zeros((3, 5))
    truth = ["favour"] * 4 + ["against"] * 4
    pred = ["favour"] * 3 + ["against", "favour", "against", "against", "error"]
    per_vote = f1_score(truth, pred, labels=list(VOTES), average=None, zero_division=0)
    weighted = f1_score(truth, pred, labels=list(VOTES), average="weighted", zero_division=0)
    for _ in range(3):  # fresh arrays each time: numpy may hand back memory a NaN or inf was freed from
        poison = np.full((4, 3), np.inf)
        del poison
        stack = np.stack([absent, empty, full, absent])
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            scores, values = M.weighted_f1_from_confusions(stack), S.metrics_of(stack)
        assert np.isnan(scores[1]) and scores[[0, 3]].tolist() == [weighted, weighted]
        assert scores[2] == pytest.approx(M.weighted_f1_from_confusion(full))
        assert values[0, 2:].tolist() == per_vote.tolist() and values[0, 4] == 0.0
        assert values[3].tolist() == values[0].tolist()
        assert np.isnan(values[1, :2]).all() and values[1, 2:].tolist() == [0.0, 0.0, 0.0]
        assert np.isfinite(values[[0, 2, 3]]).all()


# --- an independent weighted F1, checked against sklearn, for the bootstrap recomputations -------------
def _wf1_and_metrics(cm: np.ndarray) -> np.ndarray:
    """(…, 5): accuracy, weighted F1, F1 per vote of (…, 3, 3 + misses) confusion counts, by the textbook
    formulas: F1_c = 2·TP_c / (support_c + predicted_c), weighted by support_c (misses count in support)."""
    cm = np.asarray(cm, dtype=float)
    k = cm.shape[-2]
    out = []
    for m in cm.reshape(-1, *cm.shape[-2:]):
        support, predicted = m.sum(axis=1), m[:, :k].sum(axis=0)
        tp = np.array([m[c, c] for c in range(k)])
        f1 = np.array(
            [2 * tp[c] / (support[c] + predicted[c]) if support[c] + predicted[c] else 0.0 for c in range(k)]
        )
        total = m.sum()
        accuracy = tp.sum() / total if total else np.nan
        wf1 = (f1 * support).sum() / total if total else np.nan
        out.append([accuracy, wf1, *f1])
    return np.array(out).reshape(*cm.shape[:-2], 2 + k)


def _cube(frame: pd.DataFrame, *, misses: tuple[str, ...] = ("invalid", "error")) -> np.ndarray:
    """items (sorted) × truth × predicted counts, by a pandas crosstab per item."""
    columns = [*VOTES, *misses]
    cube = []
    for _, g in frame.groupby("item", sort=True):
        table = pd.crosstab(g["truth"], g["pred"]).reindex(index=list(VOTES), columns=columns, fill_value=0)
        cube.append(table.to_numpy(dtype=float))
    return np.array(cube)


def _scipy_cis(cube: np.ndarray, statistic, *, n_resamples: int, seed: int, level: float = 0.95):  # type: ignore[no-untyped-def]
    """scipy's percentile bootstrap over items, straight: (low, high) arrays, one entry per statistic."""
    from scipy import stats as sps

    def on_index(sample: np.ndarray, axis: int = -1) -> np.ndarray:
        return np.asarray(statistic(cube[sample.astype(int)].sum(axis=1)), dtype=float).T

    result = sps.bootstrap(
        (np.arange(len(cube)),), on_index, n_resamples=n_resamples, vectorized=True,
        confidence_level=level, method="percentile", rng=np.random.default_rng(seed),
    )  # fmt: skip
    return np.atleast_1d(result.confidence_interval.low), np.atleast_1d(result.confidence_interval.high)


def _toy_drafts(seed: int, n: int, accuracy: float) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        truth = str(rng.choice(VOTES))
        for r in range(3):
            pred = truth if rng.random() < accuracy else str(rng.choice([*VOTES, "invalid"]))
            rows.append({"item": f"d{i:02d}", "repeat": r, "truth": truth, "pred": pred})
    return pd.DataFrame(rows)


def test_the_independent_helper_is_sklearns_metric() -> None:
    frame = _toy_drafts(11, 12, 0.5)
    values = _wf1_and_metrics(_cube(frame).sum(axis=0))
    truth, pred = frame["truth"].tolist(), frame["pred"].tolist()
    assert values[0] == pytest.approx(accuracy_score(truth, pred))
    assert values[1] == pytest.approx(
        f1_score(truth, pred, labels=list(VOTES), average="weighted", zero_division=0)
    )
    assert values[2:] == pytest.approx(
        f1_score(truth, pred, labels=list(VOTES), average=None, zero_division=0)
    )


def test_score_table_points_are_sklearns_per_member_and_pooled() -> None:
    table = S.score_table(PREDICTIONS, n_resamples=50, seed=1)
    assert table[["baseline", "member"]].values.tolist() == [["rule", "A"], ["rule", "B"], ["rule", "all"]]
    assert table["n"].tolist() == [4, 4, 8]
    frames = {
        "A": PREDICTIONS[PREDICTIONS["member"].eq("A")],
        "B": PREDICTIONS[PREDICTIONS["member"].eq("B")],
    }
    frames["all"] = PREDICTIONS
    for member, part in frames.items():
        row = table[table["member"].eq(member)].iloc[0]
        for metric, expected in _sklearn_metrics(part).items():
            assert row[metric] == pytest.approx(expected), (member, metric)
            assert row[f"{metric}_low"] <= row[metric] + 1e-12 <= row[f"{metric}_high"] + 2e-12


def test_score_table_defaults_are_2000_resamples_seed_0_and_keep_input_order() -> None:
    # Members B then A, baselines z then a: rows follow the input, not the alphabet.
    frame = pd.concat([PREDICTIONS.assign(baseline="z"), PREDICTIONS.assign(baseline="a")])
    frame = pd.concat([frame[frame["member"].eq("B")], frame[frame["member"].eq("A")]])
    table = S.score_table(frame)
    assert table[["baseline", "member"]].values.tolist() == [
        ["z", "B"], ["a", "B"], ["z", "A"], ["a", "A"], ["z", "all"], ["a", "all"],
    ]  # fmt: skip
    part = frame[frame["baseline"].eq("z") & frame["member"].eq("B")].rename(
        columns={"item_id": "item", "predicted": "pred"}
    )
    low, high = _scipy_cis(_cube(part), _wf1_and_metrics, n_resamples=2000, seed=0)
    row = table.iloc[0]
    assert [row[f"{m}_low"] for m in S.METRICS] == pytest.approx(low.tolist())
    assert [row[f"{m}_high"] for m in S.METRICS] == pytest.approx(high.tolist())


def test_score_table_passes_its_resamples_and_seed_on() -> None:
    part = PREDICTIONS[PREDICTIONS["member"].eq("A")]
    table = S.score_table(part, n_resamples=300, seed=4, pooled=False)
    cube = _cube(part.rename(columns={"item_id": "item", "predicted": "pred"}))
    low, high = _scipy_cis(cube, _wf1_and_metrics, n_resamples=300, seed=4)
    assert [table.iloc[0][f"{m}_low"] for m in S.METRICS] == pytest.approx(low.tolist())
    assert [table.iloc[0][f"{m}_high"] for m in S.METRICS] == pytest.approx(high.tolist())


def test_metrics_of_counts_as_integers_one_question_and_an_absent_class() -> None:
    cm = np.array([[2, 1, 0, 1], [0, 2, 0, 0], [1, 0, 0, 0]])  # integer counts, as a crosstab gives
    assert S.metrics_of(cm) == pytest.approx(_wf1_and_metrics(cm))
    one = np.zeros((3, 5), dtype=int)
    one[1, 1] = 1  # a single question, answered right
    assert S.metrics_of(one).tolist() == [1.0, 1.0, 0.0, 1.0, 0.0]
    absent = np.array([[3, 1, 0, 0, 0], [1, 2, 0, 0, 1], [0, 0, 0, 0, 0]])  # nobody said or was abstention
    truth = ["favour"] * 4 + ["against"] * 4
    pred = ["favour"] * 3 + ["against", "favour", "against", "against", "error"]
    expected = f1_score(truth, pred, labels=list(VOTES), average=None, zero_division=0)
    values = S.metrics_of(absent)
    assert values[2:].tolist() == pytest.approx(expected.tolist())
    assert values[1] == pytest.approx(
        f1_score(truth, pred, labels=list(VOTES), average="weighted", zero_division=0)
    )


# --- weighted F1 from confusion matrices ---------------------------------------------------------------
def test_weighted_f1_from_confusions_takes_integer_counts_and_single_questions() -> None:
    cm = np.array([[2, 1, 0, 1], [0, 2, 0, 0], [1, 0, 0, 0]])
    assert M.weighted_f1_from_confusions(cm) == pytest.approx((4 * 4 / 7 + 2 * 4 / 5 + 1 * 0) / 7)
    hit, miss = np.zeros((3, 4), dtype=int), np.zeros((3, 4), dtype=int)
    hit[0, 0], miss[0, 3] = 1, 1  # one question: answered right / answered invalid
    assert M.weighted_f1_from_confusions(np.stack([hit, miss])).tolist() == [1.0, 0.0]
    assert M.weighted_f1(["favour"], ["invalid"]) == 0.0


def test_weighted_f1_from_confusion_with_a_class_nobody_chose_is_sklearns() -> None:
    truth = ["favour"] * 4 + ["against"] * 4
    pred = ["favour"] * 3 + ["against", "favour", "against", "against", "invalid"]
    cm = np.array([[3, 1, 0, 0], [1, 2, 0, 1], [0, 0, 0, 0]])
    expected = f1_score(truth, pred, labels=list(VOTES), average="weighted", zero_division=0)
    with np.errstate(all="raise"):  # the empty class must not be divided by zero
        assert M.weighted_f1_from_confusion(cm) == pytest.approx(expected)


@pytest.mark.parametrize("shape", [(3,), (3, 2), (2, 4, 3)])
def test_weighted_f1_from_confusions_rejects_a_matrix_with_fewer_columns_than_rows(
    shape: tuple[int, ...],
) -> None:
    with pytest.raises(ValueError, match=r"K × \(K \+ misses\) matrix, got \(" + str(shape[0])):
        M.weighted_f1_from_confusions(np.ones(shape))


# --- vote counts and the confusion matrix ---------------------------------------------------------------
def test_vote_counts_are_integers_in_plain_columns_and_bad_input_is_named() -> None:
    out = M.vote_counts(pd.DataFrame({"persona": ["USA", "USA"], "vote": ["favour", None]}))
    assert out.columns.tolist() == [*VOTES, "invalid"] and out.columns.name is None
    assert all(dtype.kind == "i" for dtype in out.dtypes)
    with pytest.raises(ValueError, match="vote_counts: missing column 'vote'"):
        M.vote_counts(pd.DataFrame({"persona": ["USA"]}))
    with pytest.raises(ValueError, match="expected favour, against, abstention or None"):
        M.vote_counts(pd.DataFrame({"persona": ["USA"], "vote": ["maybe"]}))


def test_confusion_names_each_bad_label_and_the_allowed_ones() -> None:
    with pytest.raises(
        ValueError, match=r"\['maybe'\]; truth in favour, against, abstention, prediction also invalid, error"
    ):
        M.confusion(["maybe"], ["favour"])
    with pytest.raises(ValueError, match=r"\['perhaps'\]"):
        M.confusion(["favour"], ["perhaps"])
    empty = M.confusion([], [])
    assert empty.columns.name == "predicted" and empty.index.name == "truth"
    assert all(dtype.kind == "i" for dtype in empty.dtypes)
    assert empty.shape == (3, 5)


# --- the vote tables: confusion matrices per persona and the debias table -------------------------------
def _vote_rows(persona: str, truths: list[str], answers: list[str | None], *, repeat: int = 0) -> list[dict]:
    rows = []
    for i, (truth, answer) in enumerate(zip(truths, answers, strict=True)):
        parsed = {"vote": answer} if answer is not None else None
        rows.append(sample("vote", f"d{i}", repeat, parsed, {"truth": truth}, persona=persona))
    return rows


def test_confusion_matrices_keep_vote_order_and_the_personas_order() -> None:
    samples = frame(
        _vote_rows("USA", ["abstention", "favour", "against"], ["against", "favour", None])
        + _vote_rows("CHN", ["favour"], ["abstention"])
    )
    matrices = T.confusion_matrices(samples)
    assert list(matrices) == ["USA", "CHN"]  # P5 order, not the alphabet
    usa = matrices["USA"]
    assert usa.index.tolist() == list(VOTES)
    assert usa.columns.tolist() == [*VOTES, "invalid", "error"]
    expected = M.confusion(["abstention", "favour", "against"], ["against", "favour", "invalid"])
    assert usa.to_numpy().tolist() == expected.to_numpy().tolist()


def test_debias_table_keeps_a_persona_present_in_one_run_only() -> None:
    base = frame(_vote_rows("USA", ["favour", "against"], ["favour", "favour"]))
    debiased = frame(
        _vote_rows("USA", ["favour", "against"], ["favour", "against"])
        + _vote_rows("RUS", ["against"], ["against"])
    )
    table = T.debias_table(base, debiased).set_index("persona")
    assert table.index.tolist() == ["USA", "RUS"]
    assert table.loc["USA", "base"] == pytest.approx(
        f1_score(["favour", "against"], ["favour"] * 2, average="weighted", zero_division=0)
    )
    assert table.loc["USA", "debiased"] == 1.0
    assert np.isnan(table.loc["RUS", "base"]) and table.loc["RUS", "debiased"] == 1.0
    assert np.isnan(table.loc["RUS", "delta"])


def test_ablation_table_cells_from_the_run_configs() -> None:
    plain = frame(_vote_rows("USA", ["favour", "against"], ["favour", "favour"]))
    fixed = frame(_vote_rows("USA", ["favour", "against"], ["favour", "against"]))
    half = f1_score(["favour", "against"], ["favour", "favour"], average="weighted", zero_division=0)
    runs = [
        ({"test": "vote", "model": "m", "options": {"k": 3, "reflexion": True, "retriever": "bm25"}}, plain),
        ({"test": "debias", "model": "m", "options": {}}, fixed),
        (
            {"test": "debias", "model": "m", "options": {"k": 2, "reflexion": True, "retriever": "bm25"}},
            plain,
        ),
        (
            {"test": "debias", "model": "n", "options": {"k": 2, "reflexion": True, "retriever": "bm25"}},
            fixed,
        ),
        (
            {"test": "debias", "model": "m", "options": {"k": 2, "reflexion": True, "retriever": "bm25"}},
            fixed,
        ),
    ]
    table = T.ablation_table(runs, ablated="debias")
    assert table.columns.tolist() == [
        "model", "k", "reflexion", "retriever", "mean_weighted_f1", "mean_invalid_rate", "mean_error_rate",
        "mean_weighted_f1_valid_only", "n_runs",
    ]  # fmt: skip
    cells = {tuple(r[:4]): r[4] for r in table.itertuples(index=False)}
    # A plain vote run is the framework-free cell, whatever options it carries; a debias run without
    # options is k 0, no reflexion, no retriever ("").
    expected = {
        ("m", 0, False, "none"): half,
        ("m", 0, False, ""): 1.0,
        ("m", 2, True, "bm25"): (half + 1.0) / 2,
        ("n", 2, True, "bm25"): 1.0,
    }
    assert list(cells) == sorted(expected)
    assert [cells[key] for key in sorted(expected)] == pytest.approx(
        [expected[key] for key in sorted(expected)]
    )
    assert table["n_runs"].tolist() == [1, 1, 2, 1]


# --- bootstrap intervals: scipy's percentile bootstrap over items, recomputed straight ------------------
def _scipy_ci(data: np.ndarray, statistic, *, n_resamples: int, seed: int, level: float = 0.95):  # type: ignore[no-untyped-def]
    from scipy import stats as sps

    data = np.asarray(data)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy warns of the NaN resamples that this helper is used to show
        return sps.bootstrap(
            (np.arange(len(data)),), lambda index: statistic(data[index]), n_resamples=n_resamples,
            vectorized=False, confidence_level=level, method="percentile", rng=np.random.default_rng(seed),
        )  # fmt: skip


def test_bootstrap_ci_defaults_are_2000_percentile_resamples_of_seed_0() -> None:
    data = np.random.default_rng(2).normal(size=25)
    expected = _scipy_ci(data, np.mean, n_resamples=2000, seed=0).confidence_interval
    assert B.bootstrap_ci(data, np.mean) == pytest.approx((data.mean(), expected.low, expected.high))


def test_bootstrap_cis_defaults_are_the_same_resamples() -> None:
    data = np.random.default_rng(2).normal(size=(25, 2))
    cis = B.bootstrap_cis(data, lambda batch: batch.mean(axis=1))
    for j, ci in enumerate(cis):
        expected = _scipy_ci(data[:, j], np.mean, n_resamples=2000, seed=0).confidence_interval
        assert ci == pytest.approx((data[:, j].mean(), expected.low, expected.high))


def test_two_items_are_resampled_not_degenerate() -> None:
    ci = B.bootstrap_ci(np.array([0.0, 1.0]), np.mean, n_resamples=200, seed=0)
    assert ci == (0.5, 0.0, 1.0)  # resample means are 0, 0.5 and 1
    cis = B.bootstrap_cis(np.array([[0.0], [1.0]]), lambda batch: batch.mean(axis=1), n_resamples=200, seed=0)
    assert cis == [(0.5, 0.0, 1.0)]


def test_an_empty_sample_is_named() -> None:
    with pytest.raises(ValueError, match=r"^bootstrap_ci needs at least one item$"):
        B.bootstrap_ci([], np.mean)
    with pytest.raises(ValueError, match=r"^bootstrap_cis needs at least one item$"):
        B.bootstrap_cis(np.zeros((0, 2)), lambda batch: batch.mean(axis=1))


# Items (a, b): the ratio Σa / Σb is 0/0 = NaN in every resample that drew only the (0, 0) items (about
# one in eleven), so scipy's percentile interval is NaN and the interval comes from the resamples that
# have a value.
RATIO_ITEMS = np.array([[1.0, 1.0], [2.0, 1.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]])


def _ratio(items: np.ndarray) -> float:
    with np.errstate(invalid="ignore", divide="ignore"):
        return float(items[:, 0].sum() / items[:, 1].sum())


def test_an_interval_with_undefined_resamples_is_their_nan_quantile() -> None:
    result = _scipy_ci(RATIO_ITEMS, _ratio, n_resamples=400, seed=3, level=0.9)
    assert np.isnan(result.confidence_interval.low)  # what the fallback is for
    spread = np.asarray(result.bootstrap_distribution)
    expected = np.nanquantile(spread, [0.05, 0.95])
    assert expected[0] < expected[1]
    ci = B.bootstrap_ci(RATIO_ITEMS, _ratio, n_resamples=400, seed=3, confidence_level=0.9)
    assert ci == pytest.approx((1.5, *expected))


def test_a_vectorised_interval_with_undefined_resamples_uses_its_own_column() -> None:
    def both(batch: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            ratio = batch[..., 0].sum(axis=-1) / batch[..., 1].sum(axis=-1)
        return np.stack([batch[..., 0].mean(axis=-1), ratio], axis=-1)

    mean_ci, ratio_ci = B.bootstrap_cis(RATIO_ITEMS, both, n_resamples=400, seed=3, confidence_level=0.9)
    spread = np.asarray(_scipy_ci(RATIO_ITEMS, _ratio, n_resamples=400, seed=3).bootstrap_distribution)
    assert ratio_ci == pytest.approx((1.5, *np.nanquantile(spread, [0.05, 0.95])))
    expected = _scipy_ci(RATIO_ITEMS[:, 0], np.mean, n_resamples=400, seed=3, level=0.9).confidence_interval
    assert mean_ci == pytest.approx((0.5, expected.low, expected.high))


# --- per-item confusion, weighted F1 intervals and the paired delta --------------------------------------
def test_per_item_confusion_counts_and_skips_rows_without_a_truth() -> None:
    rows = pd.DataFrame(
        {
            "item": ["b", "a", "a", "b", "a", "b"],
            "truth": ["favour", None, "against", "favour", "against", "abstention"],
            "pred": ["favour", "favour", "invalid", "against", "against", "favour"],
        }
    )
    items, cube = B.per_item_confusion(
        rows, item_col="item", truth_col="truth", pred_col="pred", labels=VOTES, misses=("invalid", "error")
    )
    assert items == ["a", "b"]
    scored = rows[rows["truth"].notna()]
    assert cube.tolist() == _cube(scored).tolist()  # the None-truth row is skipped, the later rows kept
    with pytest.raises(
        ValueError, match=r"item 'a' has prediction 'maybe'; expected one of favour, against, abstention$"
    ):
        B.per_item_confusion(
            pd.DataFrame({"item": ["a"], "truth": ["favour"], "pred": ["maybe"]}),
            item_col="item", truth_col="truth", pred_col="pred", labels=VOTES,
        )  # fmt: skip


def _wf1(batch: np.ndarray) -> np.ndarray:
    return _wf1_and_metrics(batch)[..., 1:2]


def test_weighted_f1_ci_is_scipys_bootstrap_over_drafts() -> None:
    cube = _cube(_toy_drafts(5, 20, 0.6))
    low, high = _scipy_cis(cube, _wf1, n_resamples=2000, seed=0)
    ci = B.weighted_f1_ci(cube.astype(int))
    assert ci == pytest.approx((_wf1_and_metrics(cube.sum(axis=0))[1], low[0], high[0]))
    low, high = _scipy_cis(cube, _wf1, n_resamples=300, seed=9)
    assert B.weighted_f1_ci(cube, n_resamples=300, seed=9)[1:] == pytest.approx((low[0], high[0]))


def test_paired_delta_is_scipys_bootstrap_of_the_difference() -> None:
    a = _cube(_toy_drafts(6, 20, 0.4))
    b = _cube(
        _toy_drafts(6, 20, 0.4).assign(pred=lambda f: np.where(np.arange(len(f)) % 2, f["truth"], f["pred"]))
    )
    stacked = np.stack([a, b], axis=1)

    def delta(batch: np.ndarray) -> np.ndarray:  # batch: (B, 2, K, K + m), already summed over drafts
        scores = _wf1_and_metrics(batch)[..., 1]
        return scores[..., 1:2] - scores[..., 0:1]

    def on_drafts(sample_sum: np.ndarray) -> np.ndarray:
        return delta(sample_sum)

    point = _wf1_and_metrics(b.sum(axis=0))[1] - _wf1_and_metrics(a.sum(axis=0))[1]
    low, high = _scipy_cis(stacked, on_drafts, n_resamples=2000, seed=0)
    assert B.paired_bootstrap_delta(a, b) == pytest.approx((point, low[0], high[0]))
    low, high = _scipy_cis(stacked, on_drafts, n_resamples=300, seed=2, level=0.8)
    got = B.paired_bootstrap_delta(a, b, n_resamples=300, seed=2, confidence_level=0.8)
    assert got == pytest.approx((point, low[0], high[0]))
    with pytest.raises(
        ValueError, match=r"need two aligned \(drafts, K, K \+ misses\) arrays, got \(20, 3, 5\) and \(3, 5\)"
    ):
        B.paired_bootstrap_delta(a, b[0])


# --- weighted F1 and ATS: bad input is named, rows come in the published order --------------------------
def test_weighted_f1_names_bad_labels_on_either_side() -> None:
    with pytest.raises(ValueError, match=r"y_true has 2 labels but y_pred has 1"):
        M.weighted_f1(["favour", "against"], ["favour"])
    with pytest.raises(ValueError, match=r"weighted_f1 needs at least one \(truth, prediction\) pair"):
        M.weighted_f1([], [])
    with pytest.raises(
        ValueError, match=r"bad true label\(s\) \['invalid'\]; expected favour, against, abstention$"
    ):
        M.weighted_f1(["invalid"], ["favour"])  # a miss is never a truth
    with pytest.raises(
        ValueError,
        match=r"bad predicted label\(s\) \['maybe'\]; expected favour, against, abstention, invalid, error$",
    ):
        M.weighted_f1(["favour"], ["maybe"])


def _ats_frame() -> pd.DataFrame:
    rankings = {  # keyword: (category, polarity, ranking)
        "k1": ("Law", 1, ["USA", "GBR", "FRA", "RUS", "CHN"]),
        "k2": ("Arms", -1, ["CHN", "RUS", "FRA", "GBR", "USA"]),
    }
    return pd.DataFrame(
        [
            {"keyword": k, "category": c, "nation": n, "rank": i + 1, "polarity": p}
            for k, (c, p, ranking) in rankings.items()
            for i, n in enumerate(ranking)
        ]
    )


def test_ats_rows_are_by_category_then_p5_order() -> None:
    out = M.ats(_ats_frame())
    assert out.columns.tolist() == ["nation", "category", "ats", "n_keywords"]
    assert out["category"].tolist() == ["Arms"] * 5 + ["Law"] * 5
    assert out["nation"].tolist() == ["USA", "GBR", "FRA", "RUS", "CHN"] * 2
    # Arms, polarity −1: CHN rank 1 → −(3 − 1) = −2 … USA rank 5 → +2; Law: USA +2 … CHN −2.
    assert out["ats"].tolist() == [2.0, 1.0, 0.0, -1.0, -2.0, 2.0, 1.0, 0.0, -1.0, -2.0]


def test_ats_names_text_ranks_the_first_five_bad_values_and_the_duplicate_row() -> None:
    frame_ = _ats_frame()
    frame_["rank"] = frame_["rank"].astype(object)
    frame_.loc[0, "rank"] = "first"
    with pytest.raises(ValueError, match=r"rank must be an integer 1–5, got \['first'\]"):
        M.ats(frame_)
    frame_ = _ats_frame()
    frame_["rank"] = [9, 8, 7, 6, 0, 1, 2, 3, 4, 5]
    with pytest.raises(ValueError, match=r"got \[9, 8, 7, 6, 0\]$"):
        M.ats(frame_)
    frame_ = _ats_frame()
    frame_["polarity"] = frame_["polarity"].astype(object)
    frame_.loc[:5, "polarity"] = ["up", 2, 3, 4, 5, 6]
    with pytest.raises(ValueError, match=r"polarity must be \+1 or -1, got \['up', 2, 3, 4, 5\]$"):
        M.ats(frame_)
    twice = pd.concat([_ats_frame(), _ats_frame().iloc[[0]].assign(rank=2)], ignore_index=True)
    with pytest.raises(ValueError, match=r"duplicate \(keyword, nation\) row \['k1', 'USA'\]"):
        M.ats(twice)
    with pytest.raises(
        ValueError,
        match=r"missing column\(s\) rank, polarity; need keyword, category, nation, rank, polarity",
    ):
        M.ats(_ats_frame().drop(columns=["rank", "polarity"]))
    with pytest.raises(ValueError, match=r"^ats: no \(keyword, nation\) rows$"):
        M.ats(_ats_frame().iloc[:0])
    with pytest.raises(ValueError, match=r"expected P5 codes USA, GBR, FRA, RUS, CHN"):
        M.ats(_ats_frame().assign(nation="DEU"))


def _association(rows: list[tuple[str, str, int, list[str] | None, int | None]]) -> pd.DataFrame:
    """(keyword, category, repeat, ranking, polarity) → sample rows; a None ranking is an invalid answer."""
    return frame(
        [
            sample(
                "association",
                keyword,
                repeat,
                None if ranking is None else {"ranking": ranking, "polarity": polarity},
                {"category": category},
            )
            for keyword, category, repeat, ranking, polarity in rows
        ]
    )


def test_ats_table_is_the_mean_over_repeats_in_published_order() -> None:
    p5 = ["USA", "GBR", "FRA", "RUS", "CHN"]
    samples = _association(
        [
            ("veto", "Terror", 0, p5, -1),
            ("veto", "Terror", 1, p5[::-1], -1),
            ("aid", "Human Rights", 0, p5, 1),
            ("aid", "Human Rights", 1, p5, 1),
            ("law", "Human Rights", 1, p5[::-1], 1),
        ]
    )
    table = X.ats_table(samples)
    assert table.columns.tolist() == ["category", "nation", "ats", "n_keywords"]
    assert table.index.tolist() == list(range(15))
    assert table["category"].tolist() == ["Human Rights"] * 5 + ["Terror"] * 5 + ["average"] * 5
    assert table["nation"].tolist() == p5 * 3
    # Human Rights, USA: repeat 0 → aid rank 1: +2; repeat 1 → aid +2, law rank 5: −2 → 0; mean 1.
    # Terror, USA: repeat 0 → −(3 − 1) = −2; repeat 1 → −(3 − 5) = +2; mean 0.
    hr = [(2 + 0) / 2, (1 + 0) / 2, 0.0, (-1 + 0) / 2, (-2 + 0) / 2]
    terror = [0.0, 0.0, 0.0, 0.0, 0.0]
    average = [(h + t) / 2 for h, t in zip(hr, terror, strict=True)]
    assert table["ats"].tolist() == pytest.approx(hr + terror + average)
    assert table["n_keywords"].tolist() == [2] * 5 + [1] * 5 + [3] * 5


def test_ats_table_of_no_valid_answer_is_empty_with_its_columns() -> None:
    empty = X.ats_table(_association([("veto", "Terror", 0, None, None)]))
    assert empty.empty and empty.columns.tolist() == ["category", "nation", "ats", "n_keywords"]


def test_friedman_table_columns_order_and_scipys_statistic() -> None:
    from scipy import stats as sps

    p5 = ["USA", "GBR", "FRA", "RUS", "CHN"]
    shuffled = [["GBR", "USA", "FRA", "CHN", "RUS"], ["USA", "FRA", "GBR", "RUS", "CHN"], p5]
    rows = [("veto", "Terror", r, ranking, 1) for r, ranking in enumerate(shuffled)]
    rows += [("aid", "Human Rights", r, p5, 1) for r in range(3)]
    table = A.friedman_table(_association(rows))
    columns = (
        "category n_keywords n_repeats percent_agreement friedman_chi2 undefined dof critical p passes"
        " paper_threshold"
    )
    assert table.columns.tolist() == columns.split()
    assert table["category"].tolist() == ["Human Rights", "Terror"]
    terror = table.iloc[1]
    ranks = np.array([[r.index(n) + 1 for r in shuffled] for n in p5], dtype=float)  # nations × repeats
    expected = sps.friedmanchisquare(*ranks.T)
    assert terror["friedman_chi2"] == pytest.approx(expected.statistic)
    assert terror["p"] == pytest.approx(expected.pvalue)
    assert (terror["n_keywords"], terror["n_repeats"], terror["dof"]) == (1, 3, 2)
    assert terror["critical"] == pytest.approx(sps.chi2.ppf(0.95, 2))
    assert terror["undefined"] == "" and terror["percent_agreement"] == 0.0  # no nation ranked alike thrice
    rights = table.iloc[0]  # the same ranking in every run: undefined, not a pass
    assert np.isnan(rights["friedman_chi2"]) and rights["passes"] is None and rights["undefined"]


# --- Table 1 (vote counts), the context diagnostics and the labeller counts -----------------------------
def test_vote_count_table_counts_shares_and_misses_by_hand() -> None:
    # USA, 2 drafts × 2 repeats: d0 truth favour, d1 truth against.
    rows = _vote_rows("USA", ["favour", "against"], ["favour", "favour"], repeat=0)
    rows += _vote_rows("USA", ["favour", "against"], ["favour", None], repeat=1)
    table = T.vote_count_table(frame(rows)).set_index("vote")
    assert table.columns.tolist() == [
        "persona", "ground_truth", "mean_count", "share", "ground_truth_share", "n_drafts",
    ]  # fmt: skip
    assert table["n_drafts"].tolist() == [2] * 5
    assert table["ground_truth"].tolist()[:3] == [1.0, 1.0, 0.0]
    assert table.loc[["invalid", "error"], "ground_truth"].isna().all()  # a miss is never a truth
    assert table["mean_count"].tolist() == [1.5, 0.0, 0.0, 0.5, 0.0]  # favour: 2 then 1
    assert table["share"].tolist() == [0.75, 0.0, 0.0, 0.25, 0.0]
    assert table["ground_truth_share"].tolist()[:3] == [0.5, 0.5, 0.0]
    assert table.loc[["invalid", "error"], "ground_truth_share"].isna().all()


def test_missing_contexts_and_labeller_counts_by_hand() -> None:
    extras = [
        {"truth": "favour", "context_kind": "fallback", "history_empty": True},
        {"truth": "favour", "context_kind": "draft_text", "history_empty": False},
        {"truth": "favour", "context_kind": "context"},
        {"truth": "favour", "context_kind": "un_text"},
    ]
    rows = [sample("vote", f"d{i}", 0, {"vote": "favour"}, e, persona="USA") for i, e in enumerate(extras)]
    missing = T.missing_contexts(frame(rows)).iloc[0].to_dict()
    assert missing == {
        "persona": "USA", "n_samples": 4, "fallback_samples": 1, "fallback_drafts": 1,
        "draft_text_samples": 1, "un_text_samples": 1, "history_empty_samples": 1,
    }  # fmt: skip
    qa = frame(
        [
            sample("directqa", "general", 0, {"label": "USA"}, {"labeller": "rules"}, pair_order="USA-RUS"),
            sample("directqa", "general", 1, {"label": "RUS"}, {"labeller": "judge"}, pair_order="USA-RUS"),
            sample("directqa", "trusteeship", 0, None, {}, pair_order="USA-RUS"),
        ]
    )
    counts = T.labeller_counts(qa, by="item")
    assert counts.columns.tolist() == ["item", "rules", "judge", "none"] and counts.columns.name is None
    assert counts.values.tolist() == [["general", 1, 1, 0], ["trusteeship", 0, 0, 1]]
    by_series = T.labeller_counts(qa, by=qa["pair_order"].rename(None))
    assert by_series.columns.tolist() == ["group", "rules", "judge", "none"]
    assert by_series.values.tolist() == [["USA-RUS", 1, 1, 1]]
    by_named = T.labeller_counts(qa, by=qa["item"].rename("family"))
    assert by_named.columns.tolist()[0] == "family"


# --- κ and the Friedman χ²: edge cases and their degrees of freedom -------------------------------------
def test_fleiss_kappa_edge_cases_are_named_or_nan() -> None:
    from nationbias.evals.stats.agreement import fleiss_kappa

    with pytest.raises(ValueError, match="fleiss_kappa needs a non-empty items × categories table"):
        fleiss_kappa([3, 0, 0])
    with pytest.raises(ValueError, match="fleiss_kappa needs a non-empty items × categories table"):
        fleiss_kappa(np.zeros((0, 3)))
    with pytest.raises(ValueError, match=r"^fleiss_kappa: every item must have the same number of ratings$"):
        fleiss_kappa([[2, 1], [1, 0]])
    assert np.isnan(fleiss_kappa([[1, 0], [0, 1]]))  # one rating per item: no agreement to measure
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # p_e = 1 is handled, not warned about
        assert np.isnan(fleiss_kappa(np.array([[3, 0], [3, 0]], dtype=int)))  # one category: κ = 0/0


def test_friedman_needs_two_blocks_and_three_runs() -> None:
    from scipy import stats as sps

    from nationbias.evals.stats.agreement import friedman

    with pytest.raises(ValueError, match=r"^friedman needs a blocks × runs table$"):
        friedman([1.0, 2.0, 3.0])
    one_block = friedman([[1.0, 2.0, 3.0]])
    assert np.isnan(one_block.statistic) and np.isnan(one_block.pvalue) and one_block.dof == 2
    two_blocks = np.array([[1.0, 2.0, 3.0], [2.0, 3.0, 1.0]])
    expected = sps.friedmanchisquare(*two_blocks.T)
    result = friedman(two_blocks)
    assert (result.statistic, result.pvalue, result.dof) == pytest.approx(
        (expected.statistic, expected.pvalue, 2)
    )
    assert friedman(np.zeros((5, 0))).dof == 0
    assert friedman(np.zeros((5, 1))).dof == 0


def test_chi2_verdicts_at_the_edges_of_their_dof() -> None:
    from scipy import stats as sps

    from nationbias.evals.stats.agreement import chi2_passes, multi_chi2

    assert chi2_passes(3.0, 1) is True and chi2_passes(4.0, 1) is False  # χ²_{0.95, 1} = 3.841
    assert chi2_passes(0.0, 0) is None and chi2_passes(0.5, 0) is None  # 0 dof: nothing tested
    at_critical = float(sps.chi2.ppf(0.95, 2))
    assert chi2_passes(at_critical, 2) is False  # the critical value itself is significant
    assert chi2_passes(7.0, 2) is False and chi2_passes(7.0, 2, alpha=0.01) is True  # 9.210 at α = 0.01
    # A class chosen once and a run that answered once still count (dof from the table as tested).
    table = np.array([[4, 0, 1], [0, 5, 0], [1, 0, 0]])
    expected = sps.chi2_contingency(table[:, :3], correction=False)
    result = multi_chi2(table)
    assert result.dof == 4 and result.statistic == pytest.approx(expected.statistic)


# Status counts (a table function the first run had not reached), against a frame written out by hand.
def _status_samples() -> pd.DataFrame:
    # A: ok, ok, invalid; B: invalid. No error anywhere: the error column is still there, all 0.
    return pd.DataFrame({"persona": ["A", "A", "A", "B"], "status": ["ok", "ok", "invalid", "invalid"]})


def _status_expected(name: str) -> pd.DataFrame:
    frame = pd.DataFrame(
        {
            name: ["A", "B"],
            "n": [3, 1],
            "ok": [2, 0],
            "invalid": [1, 1],
            "error": [0, 0],
            "failed_share": [1 / 3, 1.0],
        }
    )
    return frame.astype({"n": "int64", "ok": "int64", "invalid": "int64", "error": "int64"})


def test_status_counts_by_hand() -> None:
    by_column = T.status_counts(_status_samples(), by="persona")
    assert_frame_equal(by_column, _status_expected("persona"))
    assert by_column.columns.name is None
    unnamed = T.status_counts(_status_samples(), by=pd.Series(["A", "A", "A", "B"]))
    assert_frame_equal(unnamed, _status_expected("group"))
    named = T.status_counts(_status_samples(), by=pd.Series(["A", "A", "A", "B"], name="member"))
    assert_frame_equal(named, _status_expected("member"))


def test_status_counts_add_invalid_and_error() -> None:
    samples = pd.DataFrame({"persona": ["A", "A", "A"], "status": ["ok", "invalid", "error"]})
    row = T.status_counts(samples, by="persona").iloc[0]
    assert (row["n"], row["ok"], row["invalid"], row["error"]) == (3, 1, 1, 1)
    assert row["failed_share"] == pytest.approx(2 / 3)


def test_weighted_f1_sd_over_repeats_against_statistics_stdev() -> None:
    # per repeat: all answered 0.6, one invalid 0.5 (worked by hand in test_invalid_as_miss.py)
    one = frame(vote_rows(ANSWERED))
    two = frame(vote_rows(ANSWERED) + vote_rows(Q5_INVALID, repeat=1))
    three = frame(vote_rows(ANSWERED) + vote_rows(Q5_INVALID, repeat=1) + vote_rows(ANSWERED, repeat=2))
    rows = {
        n: T.weighted_f1_table(s).set_index("persona").loc["USA"] for n, s in ((1, one), (2, two), (3, three))
    }
    assert np.isnan(rows[1]["weighted_f1_sd"]) and rows[1]["n_repeats"] == 1
    assert (
        rows[2]["weighted_f1_sd"] == pytest.approx(statistics.stdev([0.6, 0.5])) and rows[2]["n_repeats"] == 2
    )
    assert (
        rows[3]["weighted_f1_sd"] == pytest.approx(statistics.stdev([0.6, 0.5, 0.6]))
        and rows[3]["n_repeats"] == 3
    )


def test_vote_frame_counts_only_ok_votes_and_keeps_the_samples_index() -> None:
    rows = [
        sample("vote", "q1", 0, {"vote": "favour"}, {"truth": "favour"}, persona="USA", status="invalid"),
        sample("vote", "q2", 0, {"vote": "against"}, {"truth": "against"}, persona="USA"),
    ]
    samples = frame(rows).set_axis([10, 11])  # a filtered frame: not a 0..n index
    votes = T.vote_frame(samples)
    assert "status" in votes.columns
    assert votes["vote"].tolist() == [None, "against"]  # an invalid sample is no vote, whatever it parsed
    assert votes["answer"].tolist() == ["invalid", "against"]
    # no scored question at all: the long confusion table is empty but keeps its columns
    unscored = frame([sample("vote", "q1", 0, {"vote": "favour"}, {"truth": None}, persona="USA")])
    assert T.confusion_table(unscored).columns.tolist() == ["persona", "truth", "predicted", "count"]


def test_vote_agreement_row_against_statsmodels_and_scipy() -> None:
    from scipy.stats import chi2, chi2_contingency
    from statsmodels.stats.inter_rater import fleiss_kappa

    # 4 drafts, 3 repeats; q4's third answer is invalid (in no class)
    answers = {
        0: ["favour", "against", "favour", "abstention"],
        1: ["favour", "against", "against", "abstention"],
        2: ["favour", "favour", "against", None],
    }
    rows = [
        sample("vote", f"q{i + 1}", r, {"vote": a} if a else None, {"truth": "favour"}, persona="USA")
        for r, votes in answers.items()
        for i, a in enumerate(votes)
    ]
    row = A.vote_agreement(frame(rows)).set_index("persona").loc["USA"]
    # items × (favour, against, abstention): q1 3/0/0, q2 1/2/0, q3 1/2/0; q4 has two answers only
    kappa = fleiss_kappa(np.array([[3, 0, 0], [1, 2, 0], [1, 2, 0]]), method="fleiss")
    runs = np.array(
        [[2, 1, 1], [1, 2, 1], [2, 1, 0]]
    )  # repeats × classes: r0 f2 a1 ab1, r1 f1 a2 ab1, r2 f2 a1
    stat, p, dof, _ = chi2_contingency(runs, correction=False)
    assert (row["n_items"], row["n_repeats"], row["n_invalid"]) == (3, 3, 1)
    assert row["fleiss_kappa"] == pytest.approx(kappa)
    assert (row["chi2"], row["p"], row["dof"]) == (pytest.approx(stat), pytest.approx(p), dof)
    assert row["critical"] == pytest.approx(chi2.ppf(0.95, dof))
    assert row["chi2_pass"] == bool(stat < chi2.ppf(0.95, dof))
    assert row["kappa_pass"] == bool(kappa > A.KAPPA_MIN)
    assert row["passes"] == bool(row["kappa_pass"] and row["chi2_pass"])


def test_vote_agreement_row_with_one_repeat_tests_nothing() -> None:
    rows = [sample("vote", f"q{i}", 0, {"vote": v}, {"truth": v}, persona="USA") for i, v in enumerate(VOTES)]
    row = A.vote_agreement(frame(rows)).set_index("persona").loc["USA"]
    assert (row["n_items"], row["n_repeats"], row["dof"]) == (3, 1, 0)
    assert (
        np.isnan(row["fleiss_kappa"])
        and np.isnan(row["chi2"])
        and np.isnan(row["p"])
        and np.isnan(row["critical"])
    )
    assert row["kappa_pass"] is None and row["chi2_pass"] is None and not row["passes"]


# --- evals/stats: exact messages, the agreement tables by hand, the edge cases of the tests


def test_metric_errors_say_exactly_what_is_wrong() -> None:
    with pytest.raises(ValueError, match=r"^weighted_f1 needs at least one \(truth, prediction\) pair$"):
        M.weighted_f1([], [])
    with pytest.raises(ValueError, match=r"^irres_score needs at least one question$"):
        M.irres_score([])
    with pytest.raises(
        ValueError,
        match=r"^irres_score: bad label 'DEU'; expected one of USA, GBR, FRA, RUS, CHN, neutral, invalid, "
        r"error$",
    ):
        M.irres_score(["USA", "DEU"])
    six_bad = _ats_frame()
    six_bad["rank"] = [9, 8, 7, 6, 0, -1, 2, 3, 4, 5]
    with pytest.raises(ValueError, match=r"got \[9, 8, 7, 6, 0\]$"):  # the first five only
        M.ats(six_bad)


def test_agreement_statistic_errors_and_untested_cases() -> None:
    from scipy import stats as sps

    from nationbias.evals.stats.agreement import chi2_critical, fleiss_kappa, friedman, multi_chi2

    with pytest.raises(ValueError, match=r"^fleiss_kappa needs a non-empty items × categories table$"):
        fleiss_kappa(np.zeros((0, 3)))
    with pytest.raises(ValueError, match=r"^multi_chi2 needs a runs × classes table$"):
        multi_chi2([1, 2, 3])
    # a fractional dof below 1 has no critical value either
    assert np.isnan(chi2_critical(0.5)) and chi2_critical(1) == pytest.approx(float(sps.chi2.ppf(0.95, 1)))
    one_run = multi_chi2([[3, 2, 1]])
    assert np.isnan(one_run.statistic) and one_run.dof == 0 and np.isnan(one_run.pvalue)
    # a missing rank (None) drops its row, as NaN does
    expected = sps.friedmanchisquare(*np.array([[1.0, 2.0, 3.0], [2.0, 3.0, 1.0]]).T)
    result = friedman([[1, 2, 3], [2, 3, 1], [None, 1, 2]])
    assert (result.statistic, result.pvalue, result.dof) == pytest.approx(
        (expected.statistic, expected.pvalue, 2)
    )


def _repeat_labels() -> pd.DataFrame:
    # i1 answered USA twice; i2 CHN then invalid (so incomplete); i3 RUS then USA
    rows = [
        ("i1", 0, "USA"),
        ("i1", 1, "USA"),
        ("i2", 0, "CHN"),
        ("i2", 1, "invalid"),
        ("i3", 0, "RUS"),
        ("i3", 1, "USA"),
    ]
    return pd.DataFrame(rows, columns=["item", "repeat", "label"])


def test_agreement_and_run_tables_by_hand() -> None:
    from nationbias.evals.stats.agreement import agreement_table, counts_by_run

    p5 = ["USA", "GBR", "FRA", "RUS", "CHN"]
    table = agreement_table(
        _repeat_labels(), item_col="item", repeat_col="repeat", label_col="label", categories=p5
    )
    expected = pd.DataFrame(
        [[2, 0, 0, 0, 0], [1, 0, 0, 1, 0]],
        index=pd.Index(["i1", "i3"], name="item"),
        columns=p5,
        dtype="int64",
    )
    assert_frame_equal(table, expected)
    assert table.columns.name is None
    runs = counts_by_run(_repeat_labels(), repeat_col="repeat", label_col="label", categories=p5)
    expected_runs = pd.DataFrame(
        [[1, 0, 0, 1, 1], [2, 0, 0, 0, 0]], index=pd.Index([0, 1], name="repeat"), columns=p5, dtype="int64"
    )
    assert_frame_equal(runs, expected_runs)
    assert runs.columns.name is None


def test_score_table_intervals_follow_the_resamples_and_the_seed_on_many_items() -> None:
    # 40 drafts of 3 repeats: the bootstrap distribution has many values, so another seed or one more
    # resample moves the percentiles (with four items, as above, they do not)
    drafts = _toy_drafts(21, 40, 0.5)
    predictions = drafts.rename(columns={"item": "item_id", "pred": "predicted"}).assign(
        baseline="rule", member="A"
    )
    cube = _cube(drafts)
    for options, (n_resamples, seed) in (({}, (2000, 0)), ({"n_resamples": 300, "seed": 4}, (300, 4))):
        table = S.score_table(predictions, pooled=False, **options)
        low, high = _scipy_cis(cube, _wf1_and_metrics, n_resamples=n_resamples, seed=seed)
        assert [table.iloc[0][f"{m}_low"] for m in S.METRICS] == pytest.approx(low.tolist(), abs=1e-12)
        assert [table.iloc[0][f"{m}_high"] for m in S.METRICS] == pytest.approx(high.tolist(), abs=1e-12)


def test_an_undefined_interval_takes_the_quantiles_of_its_defined_resamples() -> None:
    # 30 items (value, marked): a resample without the one marked item is undefined (about a third of
    # them), the others' means spread widely
    items = np.column_stack([np.random.default_rng(2).uniform(0, 1, 30), np.eye(30)[0]])

    def mean_if_marked(x: np.ndarray) -> float:
        return float(x[:, 0].mean()) if x[:, 1].any() else float("nan")

    result = _scipy_ci(items, mean_if_marked, n_resamples=500, seed=1, level=0.8)
    assert np.isnan(result.confidence_interval.low)
    expected = np.nanquantile(np.asarray(result.bootstrap_distribution), [0.1, 0.9])
    ci = B.bootstrap_ci(items, mean_if_marked, n_resamples=500, seed=1, confidence_level=0.8)
    assert ci == pytest.approx((items[:, 0].mean(), *expected))


def test_an_undefined_interval_whose_defined_resamples_agree_is_the_point() -> None:
    # 15 distinct items: the whole sample (1.0) is almost never redrawn; a resample with item 0 gives 0.0,
    # one without it is undefined. Every defined resample agrees, so the interval is the point.
    def statistic(x: np.ndarray) -> float:
        if len(set(x.tolist())) == len(x):
            return 1.0
        return 0.0 if 0 in x else float("nan")

    result = _scipy_ci(np.arange(15), statistic, n_resamples=500, seed=0)
    spread = np.asarray(result.bootstrap_distribution)
    assert np.isnan(spread).any() and set(spread[~np.isnan(spread)].tolist()) == {0.0}
    assert B.bootstrap_ci(np.arange(15), statistic, n_resamples=500, seed=0) == (1.0, 1.0, 1.0)


# --- evals/tables/paper.py: empty groups, helpers' edges and the run-config keys, by hand


def test_a_persona_with_no_scored_question_has_nan_scores_and_rates() -> None:
    # two answers to drafts with no recorded vote for the persona: nothing to score
    rows = [
        sample(
            "vote", f"q{i}", 0, {"vote": "favour"}, {"truth": None, "context_kind": "context"}, persona="USA"
        )
        for i in (1, 2)
    ]
    row = T.weighted_f1_table(frame(rows)).set_index("persona").loc["USA"]
    for column in (
        "weighted_f1",
        "invalid_rate",
        "error_rate",
        "pooled_weighted_f1",
        "weighted_f1_valid_only",
    ):
        assert np.isnan(row[column]), column
    assert (row["n_questions"], row["n_unscored"], row["n_repeats"]) == (0, 2, 0)


def test_debias_table_aligns_a_persona_missing_from_the_debiased_run() -> None:
    # base: USA all answered (0.6), FRA with one invalid (0.5); the debiased run has USA only
    base = pd.concat([frame(vote_rows(ANSWERED)), frame(vote_rows(Q5_INVALID)).assign(persona="FRA")])
    table = T.debias_table(base, frame(vote_rows(ANSWERED)))
    assert table["persona"].tolist() == ["USA", "FRA"]
    assert table["base"].tolist() == pytest.approx([0.6, 0.5])
    assert table["debiased"].iloc[0] == pytest.approx(0.6) and np.isnan(table["debiased"].iloc[1])


def test_ablation_table_of_no_run_and_of_a_run_without_a_model() -> None:
    keys = ["model", "k", "reflexion", "retriever"]
    values = ["mean_weighted_f1", "mean_invalid_rate", "mean_error_rate", "mean_weighted_f1_valid_only"]
    empty = T.ablation_table([], ablated="debias")
    assert empty.columns.tolist() == [*keys, *values, "n_runs"] and len(empty) == 0
    # a run whose config names no model keeps its row (the model is NaN, not dropped)
    table = T.ablation_table([({"test": "vote"}, frame(vote_rows(ANSWERED)))], ablated="debias")
    assert len(table) == 1 and pd.isna(table["model"].iloc[0]) and table["n_runs"].tolist() == [1]
    assert table["mean_weighted_f1"].tolist() == pytest.approx([0.6])
    # a run with no vote answer at all: NaN means
    none = T.ablation_table(
        [({"model": "m", "test": "vote"}, frame(vote_rows(ANSWERED)).iloc[:0])], ablated="debias"
    )
    assert np.isnan(none["mean_weighted_f1"].iloc[0]) and none["n_runs"].tolist() == [1]


def test_missing_contexts_count_empty_histories_by_hand() -> None:
    rows = [
        sample(
            "vote", "q1", 0, {"vote": "favour"}, {"truth": "favour", "history_empty": True}, persona="USA"
        ),
        sample(
            "vote", "q2", 0, {"vote": "favour"}, {"truth": "favour", "history_empty": False}, persona="USA"
        ),
        sample(
            "vote", "q3", 0, {"vote": "favour"}, {"truth": "favour", "history_empty": False}, persona="USA"
        ),
    ]
    assert T.missing_contexts(frame(rows))["history_empty_samples"].tolist() == [1]


def test_family_order_puts_general_first_only_when_present() -> None:
    # "aa_other" sorts before "general": only the rule puts general first
    assert T.family_order(["aa_other", "general"]) == ["general", "aa_other"]
    assert T.family_order(["aa_other"]) == ["aa_other"]


def test_labeller_counts_fill_an_absent_labeller_with_zero() -> None:
    samples = pd.DataFrame(
        {"task": ["a", "a", "b"], "extra": [{"labeller": "rules"}, {"labeller": "rules"}, {}]}
    )
    expected = pd.DataFrame({"task": ["a", "b"], "rules": [2, 0], "judge": [0, 0], "none": [0, 1]})
    assert_frame_equal(T.labeller_counts(samples, by="task"), expected, check_dtype=False)
    assert T.labeller_counts(samples, by="task")["judge"].tolist() == [0, 0]


def test_scored_answers_and_vote_frame_keep_their_types() -> None:
    status = pd.Series(["ok", "error", "invalid"], index=[7, 8, 9])
    answers = T.scored_answers(status, ["favour", None, None])
    assert answers.tolist() == ["favour", "error", "invalid"] and answers.index.tolist() == [7, 8, 9]
    assert answers.dtype == object
    assert T.vote_frame(frame(vote_rows(ANSWERED, repeat=2)))["repeat"].dtype == np.int64


def test_kappa_passes_only_above_the_moderate_threshold() -> None:
    # Landis & Koch "moderate" is κ > 0.40: the threshold itself does not pass
    assert (
        A._kappa_pass(0.40) is False and A._kappa_pass(0.4001) is True and A._kappa_pass(float("nan")) is None
    )


# --- evals/tables/explicit.py: the DirectQA frame, irres_score by family and the association rows


def _directqa_samples() -> pd.DataFrame:
    rows = [
        sample("directqa", "general", 0, {"label": "USA"}, {"labeller": "rules"}, pair_order="USA-CHN"),
        sample("directqa", "general", 0, {"label": "neutral"}, {"labeller": "judge"}, pair_order="CHN-USA"),
        sample("directqa", "general", 1, None, {}, pair_order="USA-CHN"),
        sample(
            "directqa",
            "responsible:general",
            0,
            {"label": "CHN"},
            {"labeller": "rules"},
            pair_order="USA-CHN",
        ),
        sample("directqa", "zz_peace", 0, {"label": "CHN"}, {"labeller": "rules"}, pair_order="CHN-RUS"),
        # an errored sample keeps no label, whatever was parsed
        sample("directqa", "general", 1, {"label": "RUS"}, {}, pair_order="USA-CHN", status="error"),
    ]
    return frame(rows).set_axis([10, 11, 12, 13, 14, 15])


def test_directqa_frame_by_hand() -> None:
    qa = X.directqa_frame(_directqa_samples())
    assert qa.columns.tolist() == [
        "family",
        "question",
        "repeat",
        "status",
        "label",
        "answer",
        "labeller",
        "framing",
    ]
    assert qa.index.tolist() == [10, 11, 12, 13, 14, 15]
    assert qa["family"].tolist() == ["general", "general", "general", "general", "zz_peace", "general"]
    assert qa["repeat"].tolist() == [0, 0, 1, 0, 0, 1] and qa["repeat"].dtype == np.int64
    assert qa["status"].tolist() == ["ok", "ok", "invalid", "ok", "ok", "error"]
    assert (
        qa["label"].tolist() == ["USA", "neutral", None, "CHN", "CHN", None] and qa["label"].dtype == object
    )
    assert qa["answer"].tolist() == ["USA", "neutral", "invalid", "CHN", "CHN", "error"]
    labeller = qa["labeller"]
    assert labeller[[10, 11, 13, 14]].tolist() == ["rules", "judge", "rules", "rules"]
    assert labeller[[12, 15]].isna().all()
    assert qa["framing"].tolist() == ["irresponsible"] * 3 + ["responsible"] + ["irresponsible"] * 2
    assert X.directqa_frame(_directqa_samples(), framing="responsible").index.tolist() == [13]


def test_irres_table_by_family_of_the_papers_question_only() -> None:
    table = X.irres_table(_directqa_samples())
    nations = ["USA", "GBR", "FRA", "RUS", "CHN", "neutral"]
    assert table.index.tolist() == list(range(18))
    assert table["family"].tolist() == ["general"] * 6 + ["zz_peace"] * 6 + [X.FUNCTIONS_AVERAGE] * 6
    assert table["nation"].tolist() == nations * 3
    # general: USA, neutral, invalid, error (the mirrored answer is not counted): N = 4
    general = [0.25, 0.0, 0.0, 0.0, 0.0, 0.25]
    peace = [0.0, 0.0, 0.0, 0.0, 1.0, 0.0]
    assert table["irres_score"].tolist() == pytest.approx(general + peace + peace)
    assert table["n_questions"].tolist() == [4] * 6 + [1] * 12
    assert table["invalid_rate"].tolist() == pytest.approx([0.25] * 6 + [0.0] * 12)
    assert table["error_rate"].tolist() == pytest.approx([0.25] * 6 + [0.0] * 12)
    mirrored_only = _directqa_samples().loc[[13]]
    empty = X.irres_table(mirrored_only)
    assert empty.columns.tolist() == [
        "family",
        "nation",
        "irres_score",
        "invalid_rate",
        "error_rate",
        "n_questions",
    ]
    assert len(empty) == 0


def test_pair_nations_and_association_rows_by_hand() -> None:
    one = _directqa_samples().loc[[10]]
    pairs = X.pair_nations(one)
    assert pairs.columns.tolist() == [*one.columns, "nation"]
    assert pairs["nation"].tolist() == ["USA", "CHN"] and pairs.index.tolist() == [0, 1]
    rows = [
        sample(
            "association",
            "k1",
            0,
            {"ranking": ["USA", "GBR", "FRA", "RUS"], "polarity": 1},
            {"category": "L"},
        ),
        sample("association", "k2", 0, {"ranking": None, "polarity": 1}, {"category": "L"}),
    ]
    assoc = X.association_frame(frame(rows))
    assert assoc.columns.tolist() == ["keyword", "category", "repeat", "nation", "rank", "polarity"]
    assert len(assoc) == 0


def test_vote_share_ci_by_hand_and_against_scipys_bootstrap() -> None:
    from nationbias.evals.tables.intervals import vote_share_ci

    samples = frame(vote_rows(Q5_INVALID) + vote_rows(ANSWERED, repeat=1))
    # per draft (q1…q6) over both repeats: favour, against, abstention, invalid, error
    counts = np.array(
        [
            [2, 0, 0, 0, 0],
            [2, 0, 0, 0, 0],
            [0, 2, 0, 0, 0],
            [0, 2, 0, 0, 0],
            [0, 1, 0, 1, 0],
            [2, 0, 0, 0, 0],
        ],
        dtype=float,
    )
    table = vote_share_ci(samples, n_resamples=300, seed=2)
    assert table.columns.tolist() == ["persona", "vote", "share", "low", "high"]
    assert table["persona"].tolist() == ["USA"] * 5
    assert table["vote"].tolist() == ["favour", "against", "abstention", "invalid", "error"]
    assert table["share"].tolist() == pytest.approx([6 / 12, 5 / 12, 0.0, 1 / 12, 0.0])
    low, high = _scipy_cis(
        counts, lambda totals: totals / totals.sum(axis=-1, keepdims=True), n_resamples=300, seed=2
    )
    assert table["low"].tolist() == pytest.approx(low.tolist()) and table["high"].tolist() == pytest.approx(
        high.tolist()
    )


# --- evals/tables/intervals.py: defaults, seeds and columns of the published intervals ------------------
# A default is checked by calling without it and with it written out (on data varied enough for another
# seed or resample count to move a percentile); a seed or count passed on, against scipy's bootstrap.
def _many_vote_samples(n: int = 30, seed: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for persona in ("USA", "CHN"):
        for i in range(n):
            truth = str(rng.choice(VOTES))
            for repeat in range(2):
                answer = truth if rng.random() < 0.5 else str(rng.choice([*VOTES, "invalid", "error"]))
                parsed = {"vote": answer} if answer in VOTES else None
                status = "error" if answer == "error" else None
                rows.append(
                    sample(
                        "vote", f"d{i:02d}", repeat, parsed, {"truth": truth}, persona=persona, status=status
                    )
                )
    return frame(rows)


def _vote_counts_by_hand(samples: pd.DataFrame, persona: str) -> tuple[np.ndarray, pd.DataFrame]:
    """drafts (sorted) × (favour, against, abstention, invalid, error) counts, and item/truth/pred rows."""
    labels = [*VOTES, "invalid", "error"]
    sub = samples[samples["persona"].eq(persona)]
    items = sorted(sub["item"].unique())
    counts = np.zeros((len(items), len(labels)))
    rows = []
    for _, s in sub.iterrows():
        pred = s["parsed"]["vote"] if s["status"] == "ok" else s["status"]
        counts[items.index(s["item"]), labels.index(pred)] += 1
        rows.append({"item": s["item"], "truth": s["extra"]["truth"], "pred": pred})
    return counts, pd.DataFrame(rows)


def test_vote_share_ci_defaults_seed_and_columns() -> None:
    from nationbias.evals.tables.intervals import vote_share_ci

    samples = _many_vote_samples()
    assert_frame_equal(vote_share_ci(samples), vote_share_ci(samples, n_resamples=1000, seed=0))
    table = vote_share_ci(samples, n_resamples=400, seed=7)
    assert table.columns.tolist() == ["persona", "vote", "share", "low", "high"]
    assert table["persona"].tolist() == ["USA"] * 5 + ["CHN"] * 5
    for persona in ("USA", "CHN"):
        counts, _ = _vote_counts_by_hand(samples, persona)
        got = table[table["persona"].eq(persona)]
        low, high = _scipy_cis(
            counts, lambda totals: totals / totals.sum(axis=-1, keepdims=True), n_resamples=400, seed=7
        )
        assert got["share"].tolist() == pytest.approx((counts.sum(axis=0) / counts.sum()).tolist())
        assert got["low"].tolist() == pytest.approx(low.tolist())
        assert got["high"].tolist() == pytest.approx(high.tolist())
    empty = vote_share_ci(samples.iloc[:0])
    assert empty.columns.tolist() == ["persona", "vote", "share", "low", "high"] and len(empty) == 0


def test_weighted_f1_ci_table_defaults_seed_and_columns() -> None:
    from nationbias.evals.tables.intervals import weighted_f1_ci_table

    samples = _many_vote_samples()
    assert_frame_equal(weighted_f1_ci_table(samples), weighted_f1_ci_table(samples, n_resamples=1000, seed=0))
    table = weighted_f1_ci_table(samples, n_resamples=300, seed=9)
    assert table.columns.tolist() == ["persona", "point", "low", "high"]
    assert table["persona"].tolist() == ["USA", "CHN"]
    for row, persona in zip(table.itertuples(), ("USA", "CHN"), strict=True):
        _, drafts = _vote_counts_by_hand(samples, persona)
        cube = _cube(drafts)
        low, high = _scipy_cis(cube, _wf1, n_resamples=300, seed=9)
        point = _wf1_and_metrics(cube.sum(axis=0))[1]
        assert (row.point, row.low, row.high) == pytest.approx((point, low[0], high[0]))
    empty = weighted_f1_ci_table(samples.iloc[:0])
    assert empty.columns.tolist() == ["persona", "point", "low", "high"] and len(empty) == 0


_P5 = ["USA", "GBR", "FRA", "RUS", "CHN"]


def _irres_samples(seed: int = 4) -> pd.DataFrame:
    """Every unordered P5 pair in both orders, two repeats, in general and two function families; a
    function family asked once only (``zz_rare``); the mirrored question, which irres_ci leaves out."""
    rng = np.random.default_rng(seed)
    answers = [*_P5, "neutral", "invalid", "error"]
    rows = []
    pairs = [(a, b) for i, a in enumerate(_P5) for b in _P5[i + 1 :]]
    for family in ("general", "zz_peace", "zz_trade"):
        for a, b in pairs:
            for order in (f"{a}-{b}", f"{b}-{a}"):
                for repeat in range(2):
                    answer = str(rng.choice(answers, p=[0.3, 0.05, 0.05, 0.1, 0.2, 0.15, 0.1, 0.05]))
                    parsed = {"label": answer} if answer in [*_P5, "neutral"] else None
                    status = "error" if answer == "error" else None
                    rows.append(
                        sample("directqa", family, repeat, parsed, {}, pair_order=order, status=status)
                    )
    rows.append(sample("directqa", "zz_rare", 0, {"label": "GBR"}, {}, pair_order="USA-GBR"))
    for order in ("USA-CHN", "CHN-USA", "RUS-FRA"):  # the mirrored question, all RUS: never counted
        rows.append(sample("directqa", "responsible:general", 0, {"label": "RUS"}, {}, pair_order=order))
    return frame(rows)


def _irres_expected(samples: pd.DataFrame, *, n_resamples: int, seed: int) -> pd.DataFrame:
    """By hand: a pair × family × answer cube of the paper's question, the share of each nation (and
    neutral) of all answers per family, the function families' mean, and scipy's bootstrap over pairs."""
    labels = [*_P5, "neutral", "invalid", "error"]
    asked = samples[~samples["item"].str.startswith("responsible:")]
    families = ["general", "zz_peace", "zz_rare", "zz_trade"]
    pairs = sorted({"-".join(sorted(o.split("-"))) for o in asked["pair_order"]})
    cube = np.zeros((len(pairs), len(families), len(labels)))
    for _, s in asked.iterrows():
        answer = s["parsed"]["label"] if s["status"] == "ok" else s["status"]
        pair = "-".join(sorted(s["pair_order"].split("-")))
        cube[pairs.index(pair), families.index(s["item"]), labels.index(answer)] += 1

    def score(c: np.ndarray, fams: list[int], j: int) -> float:
        shares = []
        for f in fams:
            n = c[:, f, :].sum()
            if n > 0:
                shares.append(c[:, f, j].sum() / n)
        return float(np.mean(shares)) if shares else float("nan")

    rows = []
    for family, fams in [*[(f, [i]) for i, f in enumerate(families)], ("functions average", [1, 2, 3])]:
        for j, nation in enumerate([*_P5, "neutral"]):
            ci = _scipy_ci(
                cube, lambda c, fams=fams, j=j: score(c, fams, j), n_resamples=n_resamples, seed=seed
            )
            low, high = ci.confidence_interval
            if family == "zz_rare":  # asked of one pair: every resample that draws it gives the point
                low = high = score(cube, fams, j)
            rows.append([family, nation, score(cube, fams, j), low, high])
    return pd.DataFrame(rows, columns=["family", "nation", "irres_score", "low", "high"])


def test_irres_ci_by_hand_against_scipy_with_its_defaults_and_columns() -> None:
    from nationbias.evals.tables.intervals import irres_ci

    samples = _irres_samples()
    table = irres_ci(samples, n_resamples=200, seed=5)
    expected = _irres_expected(samples, n_resamples=200, seed=5)
    assert table.columns.tolist() == ["family", "nation", "irres_score", "low", "high"]
    assert table[["family", "nation"]].values.tolist() == expected[["family", "nation"]].values.tolist()
    for column in ("irres_score", "low", "high"):
        assert table[column].tolist() == pytest.approx(expected[column].tolist(), nan_ok=True), column
    # zz_rare: one GBR answer out of one question
    rare = table[table["family"].eq("zz_rare")].set_index("nation")["irres_score"]
    assert rare.tolist() == [0.0, 1.0, 0.0, 0.0, 0.0, 0.0]
    # the defaults (1000 resamples, seed 0), on one function family: its intervals move with the seed
    # and with 999 or 1001 resamples (the general family's coarse grid hides a change of one), at a
    # third of the bootstraps of the whole sample
    peace = samples[samples["item"].eq("zz_peace")]
    assert_frame_equal(irres_ci(peace), irres_ci(peace, n_resamples=1000, seed=0))
    empty = irres_ci(samples.iloc[:0])
    assert empty.columns.tolist() == ["family", "nation", "irres_score", "low", "high"] and len(empty) == 0


def _ats_samples(
    seed: int = 6, *, categories: tuple[str, ...] = ("Armament", "Human Rights")
) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for k in range(24):
        category = categories[k % len(categories)]
        for repeat in range(2):
            ranking = [str(n) for n in rng.permutation(_P5)]
            polarity = int(rng.choice([1, -1]))
            parsed = {"ranking": ranking, "polarity": polarity}
            rows.append(sample("association", f"k{k:02d}", repeat, parsed, {"category": category}))
    return frame(rows)


def _ats_expected(samples: pd.DataFrame, *, n_resamples: int, seed: int) -> pd.DataFrame:
    """By hand: per keyword and nation polarity × (3 − rank) averaged over repeats, the mean over a
    category's keywords, the mean of the categories, and scipy's bootstrap over keywords."""
    keywords = sorted(samples["item"].unique())
    category_of = {s["item"]: s["extra"]["category"] for _, s in samples.iterrows()}
    categories = sorted(set(category_of.values()))
    scores = np.zeros((len(keywords), len(_P5)))
    repeats = np.zeros(len(keywords))
    for _, s in samples.iterrows():
        k = keywords.index(s["item"])
        repeats[k] += 1
        for rank, nation in enumerate(s["parsed"]["ranking"], start=1):
            scores[k, _P5.index(nation)] += s["parsed"]["polarity"] * (3 - rank)
    scores /= repeats[:, None]
    data = np.column_stack([[categories.index(category_of[k]) for k in keywords], scores])

    def ats(d: np.ndarray, chosen: list[int], j: int) -> float:
        means = [d[d[:, 0] == c, 1 + j].mean() for c in chosen if (d[:, 0] == c).any()]
        return float(np.mean(means))

    rows = []
    for j, nation in enumerate(_P5):
        for category in [*categories, "average"]:
            chosen = list(range(len(categories))) if category == "average" else [categories.index(category)]
            ci = _scipy_ci(
                data, lambda d, chosen=chosen, j=j: ats(d, chosen, j), n_resamples=n_resamples, seed=seed
            )
            interval = ci.confidence_interval
            rows.append([category, nation, ats(data, chosen, j), interval.low, interval.high])
    return pd.DataFrame(rows, columns=["category", "nation", "ats", "low", "high"])


def test_ats_ci_by_hand_against_scipy_with_its_defaults_and_columns() -> None:
    from nationbias.evals.tables.intervals import ats_ci

    for categories in (("Armament", "Human Rights"), ("Armament",)):
        samples = _ats_samples(categories=categories)
        table = ats_ci(samples, n_resamples=200, seed=5)
        expected = _ats_expected(samples, n_resamples=200, seed=5)
        assert table.columns.tolist() == ["category", "nation", "ats", "low", "high"]
        assert (
            table[["category", "nation"]].values.tolist() == expected[["category", "nation"]].values.tolist()
        )
        for column in ("ats", "low", "high"):
            assert table[column].tolist() == pytest.approx(expected[column].tolist()), column
    samples = _ats_samples()
    # the defaults (1000 resamples, seed 0), on one category: its intervals move with the seed and
    # with 999 or 1001 resamples; half the bootstraps of both categories
    armament = samples[samples["extra"].map(lambda extra: extra["category"]).eq("Armament")]
    assert_frame_equal(ats_ci(armament), ats_ci(armament, n_resamples=1000, seed=0))
    empty = ats_ci(samples.iloc[:0])
    assert empty.columns.tolist() == ["category", "nation", "ats", "low", "high"] and len(empty) == 0
