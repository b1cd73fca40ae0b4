"""General Assembly baselines: what the roll-call record alone predicts of each state's vote.

Each uses only roll calls dated strictly before the target
(:mod:`nationbias.evals.baselines.assembly_features`):
- ``majority``: the state's most frequent earlier vote;
- ``same_title``: its vote on the latest earlier roll call with the same title (resolutions recur
  yearly), else ``majority``;
- ``bloc``: its regional group's majority on that roll call, else on the most similar earlier one by
  text, else ``majority``;
- ``model``: gradient-boosted trees (LightGBM) over those signals and more, trained leave-future-out:
  the model for year Y is fitted on the ``window`` years before Y, and its class weights (the decision
  rule) are chosen on the out-of-time predictions of the years before Y. No shuffling across time, no
  early stopping on a random split; the hyper-parameters are fixed constants, chosen on 1995–2004.
  LightGBM because it explains each prediction exactly: its per-feature contributions (TreeSHAP) add
  up to the class score (:mod:`nationbias.evals.baselines.assembly_explain`).
Labels are the paper's: favour, against, abstention.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Collection, Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from nationbias.evals.baselines.assembly_features import CODES, Matrix, features, matrix, texts_of
from nationbias.evals.stats.metrics import weighted_f1_from_confusions
from nationbias.stores.corpora.unga import Assembly, assembly_sha256, load_assembly
from nationbias.stores.domain import VOTE_CODES, VOTES
from nationbias.stores.errors import InputError
from nationbias.stores.state.frames import cached_frame, source_digest

if TYPE_CHECKING:
    import lightgbm as lgb

# UNSim (a public Assembly vote simulator on Voeten ideal points), 181,043 votes of sessions 60–74
# (2005–2019), as published: the anchor the Assembly baselines are read beside.
UNSIM = {"accuracy": 0.682, "f1_favour": 0.818, "f1_against": 0.172, "f1_abstention": 0.138}
UNSIM_YEARS = (2005, 2019)
ALL = ("majority", "same_title", "bloc", "model")
METHODS = ("always_yes", *ALL)
COLUMNS = ["baseline", "item_id", "date", "member", "truth", "predicted"]
WINDOW = 5  # years of training data before the predicted year
# what a stored table of predictions depends on besides its inputs (stores/state/frames.py)
_SOURCE = source_digest(Path(__file__).with_name(name) for name in ("assembly.py", "assembly_features.py"))
MAX_ROWS = 60_000  # a fixed-seed subset of the window's votes fits a year's model in seconds
CALIBRATION = 3  # earlier years whose out-of-time predictions choose the class weights (reweight=True)
WEIGHTS = (0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 2.5, 3.0, 4.0)
ROUNDS = 80
PARAMS = {
    "objective": "multiclass", "num_class": 3, "learning_rate": 0.15, "num_leaves": 15, "lambda_l2": 1.0,
    "min_data_in_leaf": 20, "max_bin": 255, "num_threads": 1, "deterministic": True, "force_row_wise": True,
    "seed": 0, "verbose": -1,
}  # fmt: skip
Fits = dict[int, "lgb.Booster | None"]  # the model behind each target year's predictions (None: a rule)
FIRST_YEAR = 1946


@cache
def prepared_features(assembly: Assembly) -> tuple[Matrix, pd.DataFrame, pd.DataFrame]:
    """The matrix, every recorded vote's (row, col, year, truth) and its features: built once per Assembly."""
    m = matrix(assembly)
    rows, cols = np.nonzero(m.votes)
    meta = pd.DataFrame(
        {
            "row": rows,
            "col": cols,
            "year": m.dates[rows].astype("datetime64[Y]").astype(int) + 1970,
            "truth": m.votes[rows, cols],
        }
    )
    return m, meta, features(m, texts_of(assembly), rows, cols)


def _argmax(shares: np.ndarray, fallback: np.ndarray) -> np.ndarray:
    """The index (1-based vote code) of the largest share; ``fallback`` where all shares are zero."""
    best = shares.argmax(axis=1) + 1
    return np.where(shares.sum(axis=1) > 0, best, fallback)


def _rule(method: str, x: pd.DataFrame) -> np.ndarray:
    """A rule baseline's vote codes (1 Y, 2 N, 3 A) from the feature table."""

    def block(name: str) -> np.ndarray:
        return x[[f"{name}_{c}" for c in CODES]].to_numpy()

    if method == "always_yes":
        return np.ones(len(x), dtype=np.int8)
    majority = _argmax(block("history_own"), np.ones(len(x), dtype=np.int8))
    if method == "majority":
        return majority
    if method == "same_title":
        return _argmax(block("title_own"), majority)
    if method == "bloc":
        return _argmax(block("title_bloc"), _argmax(block("near1_bloc"), majority))
    raise InputError(f"unknown Assembly baseline {method!r}: choose from {', '.join(METHODS)}")


def _training_key(x: pd.DataFrame, y: np.ndarray) -> bytes:
    """A digest of exactly what a fit reads: every column's name and type, every row's values (hashed by
    pandas, so an object or categorical column counts by its values, never by where they sit in memory),
    and the labels."""
    digest = hashlib.blake2b(repr((PARAMS, ROUNDS, list(x.columns), list(map(str, x.dtypes)))).encode())
    digest.update(pd.util.hash_pandas_object(x, index=False).to_numpy().tobytes())
    digest.update(np.ascontiguousarray(y).tobytes())
    digest.update(y.dtype.str.encode())
    return digest.digest()


# The models fitted in this process by their training data: the fit is deterministic (one thread, fixed
# seed), so the same rows give the same trees, and ``baselines --explain`` (its predictions, then their
# explanations) fits each year once, not twice. Bounded: a model is small, a whole record is 75 years.
_FITTED: dict[bytes, lgb.Booster] = {}
MAX_FITTED = 128


def _fit(x: pd.DataFrame, y: np.ndarray) -> lgb.Booster:
    """Boosted trees on vote codes ``y`` (1 Y, 2 N, 3 A): always three classes, so every model scores
    (and explains) Y, N and A alike, whichever of them the window saw."""
    # One OpenMP thread (PARAMS' num_threads, kept by the booster for its predictions too): on 2 shared
    # cores, threads that spin waiting for each other cost several times the fit's own CPU whenever
    # anything else runs (the Council model does the same).
    import lightgbm as lgb  # imported on use: a command that fits nothing skips its start-up

    key = _training_key(x, y)
    booster = _FITTED.get(key)
    if booster is None:
        booster = lgb.train(PARAMS, lgb.Dataset(x, label=y - 1), num_boost_round=ROUNDS)
        if len(_FITTED) >= MAX_FITTED:
            _FITTED.pop(next(iter(_FITTED)))  # the oldest
        _FITTED[key] = booster
    return booster


def choose_weights(proba: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """Class weights (favour fixed at 1) maximising macro F1 of ``argmax(proba * w)`` on earlier years."""
    from sklearn.metrics import f1_score  # imported on use, as sklearn's start-up is slow

    best, chosen = -1.0, np.ones(3)
    for w_no, w_abstain in itertools.product(WEIGHTS, WEIGHTS):
        weights = np.array([1.0, w_no, w_abstain])
        score = f1_score(truth, (proba * weights).argmax(axis=1) + 1, labels=[1, 2, 3], average="macro")
        if score > best + 1e-9:
            best, chosen = score, weights
    return chosen


def _model(
    x: pd.DataFrame,
    meta: pd.DataFrame,
    years: Collection[int],
    *,
    window: int,
    reweight: bool,
    fits: Fits | None = None,
) -> np.ndarray:
    """Leave-future-out predictions (vote codes) for the rows of ``years``; -1 for rows of other years.
    One model per target year (and per calibration year before it): years not asked for cost nothing.
    ``fits`` receives each target year's model (None where a rule predicted: nothing to learn yet)."""
    predicted = np.full(len(meta), -1, dtype=np.int8)
    proba = np.zeros((len(meta), 3))
    fitted: list[int] = []
    before = range(CALIBRATION + 1) if reweight else range(1)
    for year in sorted({target - back for target in years for back in before}):
        train = ((meta["year"] >= year - window) & (meta["year"] < year)).to_numpy()
        if train.sum() > MAX_ROWS:  # the subset depends on the year and the window only, never on the future
            chosen = np.random.default_rng(year).choice(np.flatnonzero(train), MAX_ROWS, replace=False)
            train = np.isin(np.arange(len(train)), chosen)
        test = (meta["year"] == year).to_numpy()
        if not test.any():
            continue
        booster = None
        if len(np.unique(meta["truth"].to_numpy()[train])) < 2:  # nothing to learn from yet
            proba[test, _rule("same_title", x[test]) - 1] = 1.0
        else:
            booster = _fit(x[train], meta["truth"].to_numpy()[train])
            proba[test] = booster.predict(x[test])
        fitted.append(year)
        if fits is not None and year in years:
            fits[year] = booster if not reweight else None  # re-weighted: the trees alone do not decide
        if year in years:
            earlier = meta["year"].isin([y for y in fitted if year - CALIBRATION <= y < year]).to_numpy()
            weights = np.ones(3)
            if reweight and earlier.any():
                weights = choose_weights(proba[earlier], meta["truth"].to_numpy()[earlier])
            predicted[test] = (proba[test] * weights).argmax(axis=1) + 1
    return predicted


def assembly_predictions(
    *,
    years: tuple[int, int] | None = (2005, 2019),
    methods: Sequence[str] = ALL,
    members: Sequence[str] | None = None,
    window: int = WINDOW,
    reweight: bool = False,
    assembly: Assembly | None = None,
    within: Collection[int] | None = None,
    fits: Fits | None = None,
) -> pd.DataFrame:
    """Every baseline's prediction of every recorded vote in ``years`` (inclusive; None: all years), a row per
    (baseline, roll call, state): ``baseline, item_id`` (rcid), ``date, member`` (ISO3), ``truth, predicted``.
    ``members`` limits targets and training rows to those states; ``assembly`` replaces the shipped one;
    ``within`` keeps only target years in that set (a run's roll calls: no model fitted for other years);
    ``fits`` receives the learned model of each target year
    (:mod:`nationbias.evals.baselines.assembly_explain`)."""
    unknown = [method for method in methods if method not in METHODS]
    if unknown:
        raise InputError(
            f"unknown Assembly baseline(s) {', '.join(unknown)}: choose from {', '.join(METHODS)}"
        )
    first, last = years if years is not None else (FIRST_YEAR, 2100)
    if first > last:
        raise InputError(f"empty year window {first}-{last}: the first year must not be after the last")
    m, meta, x = prepared_features(assembly or load_assembly())
    keep = np.ones(len(meta), dtype=bool)
    if members is not None:
        missing = sorted(set(members) - set(m.members))
        if missing:
            raise InputError(f"unknown state code(s) {', '.join(missing)}: not in the Assembly's roll calls")
        keep = np.isin(m.members[meta["col"]], list(members))
    target_years = meta["year"].between(first, last) & (
        meta["year"].isin(within) if within is not None else True
    )
    target = keep & target_years.to_numpy()
    base = pd.DataFrame(
        {
            "item_id": m.rcids[meta["row"][target]],
            "date": pd.to_datetime(m.dates[meta["row"][target]]),
            "member": m.members[meta["col"][target]],
            "truth": meta["truth"][target].to_numpy(),
        }
    )
    frames = []
    for method in methods:
        if method == "model":
            mine = meta[keep].reset_index(drop=True)
            wanted = set(range(first, last + 1)) & (
                set(within) if within is not None else set(range(first, last + 1))
            )
            codes = _model(x[keep], mine, wanted, window=window, reweight=reweight, fits=fits)
            codes = codes[target_years[keep].to_numpy()]
        else:
            codes = _rule(method, x[target])
        frames.append(base.assign(baseline=method, predicted=codes))
    out = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=COLUMNS)
    labels = {i + 1: VOTE_CODES[c] for i, c in enumerate(CODES)}
    return out.assign(truth=out["truth"].map(labels), predicted=out["predicted"].map(labels))[COLUMNS]


def assembly_scores(predictions: pd.DataFrame, *, by: Sequence[str] = ("baseline",)) -> pd.DataFrame:
    """Per baseline (or per ``by``, e.g. ``("baseline", "member")``): votes scored, accuracy, weighted F1 and
    each class's F1 (sklearn)."""
    from sklearn.metrics import accuracy_score, f1_score  # imported on use, as sklearn's start-up is slow

    rows = []
    for key, group in predictions.groupby(list(by), sort=False):
        truth, predicted = group["truth"], group["predicted"]
        labels = list(VOTES)
        f1 = f1_score(truth, predicted, labels=labels, average=None, zero_division=0)
        rows.append(
            {
                **dict(zip(by, key, strict=True)),
                "votes": len(group),
                "accuracy": accuracy_score(truth, predicted),
                "weighted_f1": f1_score(truth, predicted, labels=labels, average="weighted", zero_division=0),
                **{f"f1_{label}": score for label, score in zip(VOTES, f1, strict=True)},
            }
        )
    return pd.DataFrame(rows)


def run_predictions(
    *, items: Sequence[str], personas: Sequence[str], assembly: Assembly | None = None
) -> pd.DataFrame:
    """Every Assembly baseline's predictions on the roll calls (``UNGA-<rcid>``) and states a run covered:
    each computed leave-future-out over the years they span (a model fitted only for those years)."""
    if assembly is not None:  # a caller's own data: computed, not stored
        return _run_predictions(tuple(sorted(set(items))), tuple(sorted(set(personas))), assembly)
    voters = set(load_assembly().votes["member"])
    key = (tuple(sorted(set(items))), tuple(sorted(set(personas) & voters)))
    stored = {"data": assembly_sha256(), "items": key[0], "personas": key[1], "code": _SOURCE}
    return cached_frame("unga-run-baselines", stored, lambda: _run_predictions(*key, load_assembly()))


@cache  # the report's baseline table and its anchor section read the same predictions
def _run_predictions(items: tuple[str, ...], personas: tuple[str, ...], assembly: Assembly) -> pd.DataFrame:
    rcids = {int(item.removeprefix("UNGA-")) for item in items if item.startswith("UNGA-")}
    if not rcids:
        raise InputError("Assembly baselines: the run has no roll call (ids like UNGA-5221)")
    years = assembly.roll_calls.loc[sorted(rcids), "date"].dt.year
    voters = set(assembly.votes["member"])
    predictions = assembly_predictions(
        years=(int(years.min()), int(years.max())),
        members=[p for p in personas if p in voters],
        assembly=assembly,
        within=set(years),
    )
    return predictions[predictions["item_id"].isin(rcids)].reset_index(drop=True)


def assembly_baseline_f1(
    *, items: Sequence[str], personas: Sequence[str], assembly: Assembly | None = None
) -> pd.DataFrame:
    """Weighted F1 per persona (rows) and Assembly baseline (columns), on the roll calls a run covered:
    the bar beside the model's in the report's Table 2."""
    scored = run_predictions(items=items, personas=personas, assembly=assembly)
    axes = [list(personas), list(ALL), list(VOTES), list(VOTES)]
    codes = [
        pd.Categorical(scored[column], categories=values).codes
        for column, values in zip(("member", "baseline", "truth", "predicted"), axes, strict=True)
    ]
    cube = np.zeros([len(values) for values in axes])
    np.add.at(cube, tuple(codes), 1)  # every state × baseline confusion in one pass, not an sklearn call each
    table = pd.DataFrame(weighted_f1_from_confusions(cube), index=list(personas), columns=list(ALL))
    table.index.name, table.columns.name = "persona", None
    return table
