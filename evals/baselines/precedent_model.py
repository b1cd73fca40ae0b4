"""The learned precedent model: a logistic regression refitted leave-future-out for every draft.

For a target draft the model is fitted on the votes cast on earlier non-adopted drafts only (an
expanding window over time, no shuffling): every seat's votes, the elected members' too, on the
member-relative features of :mod:`nationbias.evals.baselines.precedent_features`, with the P5 member's
identity as
features. Its one hyper-parameter, the regularisation C, is chosen per target and member on earlier
drafts only: each C's leave-future-out predictions of the member's earlier votes are scored
(log-loss) and the best C is used. Each prediction is explained: the precedents behind it and every
feature's coef × value, which with the intercept add up to the model's decision score.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from threadpoolctl import threadpool_limits

from nationbias.evals.baselines.precedent_features import FEATURES, FeatureBuilder, member_name, member_vote
from nationbias.retrievers import Precedent, Retriever, get_retriever
from nationbias.stores.corpora.augment import Augmented, augmented_for, augmented_stamp
from nationbias.stores.corpora.corpus import Corpus
from nationbias.stores.domain import P5, P5_BY_NAME, VOTES
from nationbias.stores.records import Record

GRID: tuple[float, ...] = (0.1, 0.3, 1.0)  # the regularisation C, chosen per target on earlier drafts
DEFAULT_C = 0.3  # used until enough earlier drafts can choose
K = 3  # precedents per pool part
MIN_SELECT = 5  # earlier drafts the member voted on, needed before the grid chooses
SEAT_FEATURES = tuple(f"seat_{code}" for code in P5)  # which P5 member votes (all zero: an elected seat)
NAMES: tuple[str, ...] = (*FEATURES, *SEAT_FEATURES)


@dataclass
class Fitted:
    """The model for one target and C: the drafts it was fitted on, and the model (None: a constant)."""

    C: float
    train_ids: list[str]
    n_rows: int
    model: LogisticRegression | None
    constant: str | None


def seat_code(name: str) -> str:
    """A voter's code: ISO3 for the P5, its corpus name for an elected member."""
    return P5_BY_NAME.get(name, name)


class PrecedentModel:
    """Leave-future-out predictions and explanations of the members' votes on the non-adopted drafts.

    One logistic regression per target draft, fitted on every seat's votes on the earlier drafts (the
    elected members' too: the same features, more evidence), with a P5 member's identity as features.
    """

    def __init__(
        self,
        corpus: Corpus,
        *,
        retriever: Retriever | None = None,
        k: int = K,
        grid: Sequence[float] = GRID,
        augmented: Mapping[str, Augmented] | None = None,
    ) -> None:
        self.corpus = corpus
        self.retriever = retriever or get_retriever("keyword", threshold=0)
        self.k = k
        self.grid = tuple(grid)
        self.drafts = corpus.drafts
        self.position = {draft.id: i for i, draft in enumerate(self.drafts)}
        self._found: dict[str, list[Precedent]] = {}
        fields = augmented if augmented is not None else augmented_for(corpus)
        nations = {rid: a.target_nations for rid, a in fields.items()}
        self.features = FeatureBuilder(corpus, nations=nations, precedents=self.precedents)
        self._x: dict[tuple[int, str], np.ndarray] = {}
        self._fits: dict[tuple[str, float], Fitted] = {}
        self._probs: dict[tuple[str, str, float], np.ndarray] = {}

    def precedents(self, target: Record) -> list[Precedent]:
        """The top-k earlier precedents per pool part, retrieved once per item."""
        if target.id not in self._found:
            self._found[target.id] = self.retriever.retrieve(target, self.corpus.records, self.k)
        return self._found[target.id]

    def x(self, index: int, member: str) -> np.ndarray:
        """The features (:data:`NAMES`) of ``member`` (a P5 code or a seat's name) on draft ``index``."""
        key = (index, member)
        if key not in self._x:
            seat = np.array([float(member == code) for code in P5])
            self._x[key] = np.concatenate([self.features.row(self.drafts[index], member), seat])
        return self._x[key]

    def _votes(self, index: int) -> dict[str, str]:
        """Every seat's vote on draft ``index``, by seat code."""
        draft = self.drafts[index]
        return {seat_code(name): str(member_vote(draft, name)) for name in draft.votes}

    def _earlier(self, index: int) -> list[int]:
        """Positions of the drafts dated strictly before draft ``index``."""
        date = self.drafts[index].date
        return [i for i, d in enumerate(self.drafts) if d.date < date]

    def fit_for(self, index: int, C: float) -> Fitted:
        """The model for draft ``index``: every seat's votes on the drafts dated strictly before it."""
        key = (self.drafts[index].id, C)
        if key not in self._fits:
            earlier = self._earlier(index)
            rows = [(i, seat, vote) for i in earlier for seat, vote in self._votes(i).items()]
            labels = [vote for _, _, vote in rows]
            train_ids = [self.drafts[i].id for i in earlier]
            if len(set(labels)) < 2:
                constant = labels[0] if labels else "favour"
                self._fits[key] = Fitted(C, train_ids, len(rows), None, constant)
            else:
                model = LogisticRegression(C=C, max_iter=5000)
                model.fit(np.vstack([self.x(i, seat) for i, seat, _ in rows]), labels)
                self._fits[key] = Fitted(C, train_ids, len(rows), model, None)
        return self._fits[key]

    def probabilities(self, index: int, member: str, C: float) -> np.ndarray:
        """P(favour, against, abstention) of the member on draft ``index`` (a constant: one-hot)."""
        key = (self.drafts[index].id, member, C)
        if key not in self._probs:
            fitted = self.fit_for(index, C)
            out = np.zeros(len(VOTES))
            if fitted.model is None:
                out[VOTES.index(str(fitted.constant))] = 1.0
            else:
                probs = fitted.model.predict_proba(self.x(index, member)[None, :])[0]
                for label, p in zip(fitted.model.classes_, probs, strict=True):
                    out[VOTES.index(str(label))] = p
            self._probs[key] = out
        return self._probs[key]

    def choose(self, index: int, member: str) -> float:
        """The C whose leave-future-out predictions of the member's earlier votes had the lowest log-loss."""
        # Hundreds of small fits: BLAS threads only contend for the cores (up to 9x slower under load).
        with threadpool_limits(limits=1):
            return self._choose(index, member)

    def _choose(self, index: int, member: str) -> float:
        earlier = [i for i in self._earlier(index) if member_vote(self.drafts[i], member_name(member))]
        if len(earlier) < MIN_SELECT or len(self.grid) < 2:
            return DEFAULT_C if DEFAULT_C in self.grid or not self.grid else self.grid[0]
        votes = [member_vote(self.drafts[i], member_name(member)) for i in earlier]
        truth = np.array([VOTES.index(str(vote)) for vote in votes])
        losses = []
        for C in self.grid:
            probs = np.vstack([self.probabilities(i, member, C) for i in earlier])
            # the log-loss of the true votes; a constant model's 0 is floored so it stays finite
            losses.append(-np.log(np.clip(probs[np.arange(len(truth)), truth], 1e-3, 1)).mean())
        return self.grid[int(np.argmin(losses))]

    def predict(self, index: int, member: str) -> str:
        C = self.choose(index, member)
        with threadpool_limits(limits=1):
            probs = self.probabilities(index, member, C)
        return VOTES[int(np.argmax(probs))]

    def predictions(self, *, personas: Sequence[str] = P5) -> pd.DataFrame:
        """One row per (draft, member that voted): item, persona, truth, pred (as the rule baselines)."""
        rows = []
        for index, draft in enumerate(self.drafts):
            for member in personas:
                truth = member_vote(draft, member_name(member))
                if truth is not None:
                    rows.append({"item": draft.id, "persona": member, "truth": truth,
                                 "pred": self.predict(index, member)})  # fmt: skip
        return pd.DataFrame(rows, columns=["item", "persona", "truth", "pred"])

    def explain(self, item: str, member: str) -> dict[str, Any]:
        """A JSON-able account of one prediction: the precedents, C and each feature's contribution."""
        index = self.position[item]
        target = self.drafts[index]
        predicted = self.predict(index, member)  # fits what the prediction needs, threads limited
        C = self.choose(index, member)
        fitted = self.fit_for(index, C)
        probs = self.probabilities(index, member, C)
        name = member_name(member)
        out: dict[str, Any] = {
            "item": item, "member": member, "date": target.date.isoformat(), "predicted": predicted,
            "C": C, "n_train_drafts": len(fitted.train_ids), "n_train_votes": fitted.n_rows,
            "probabilities": dict(zip(VOTES, map(float, probs), strict=True)),
            "precedents": [
                {"id": p.record.id, "date": p.record.date.isoformat(), "pool": p.pool, "rank": p.rank,
                 "score": p.score, "reason": p.reason, "vote": member_vote(p.record, name)}
                for p in self.precedents(target)
            ],
        }  # fmt: skip
        if fitted.model is None:
            empty = dict.fromkeys(("scored_class", "score", "intercept"))
            return {**out, "constant": fitted.constant, **empty, "contributions": []}
        parts = contributions(fitted.model, self.x(index, member), NAMES, predicted)
        return {**out, "constant": None, **parts}


def contributions(
    model: LogisticRegression, x: np.ndarray, names: Sequence[str], predicted: str
) -> dict[str, Any]:
    """coef × value per feature of the decision score of one class; with the intercept, the score.

    Three classes: the predicted class's score. Two classes: sklearn scores the second against the
    first, and ``scored_class`` names it.
    """
    classes = [str(c) for c in model.classes_]
    row = 0 if len(classes) == 2 else classes.index(predicted)
    coef, intercept = model.coef_[row], float(model.intercept_[row])
    parts = [
        {"feature": name, "value": float(value), "coef": float(c), "contribution": float(c * value)}
        for name, value, c in zip(names, x, coef, strict=True)
    ]
    score = model.decision_function(x.reshape(1, -1))
    return {
        "scored_class": classes[1] if len(classes) == 2 else predicted,
        "score": float(score[0]) if score.ndim == 1 else float(score[0, row]),
        "intercept": intercept,
        "contributions": parts,
    }


def explanations_frame(explained: Sequence[dict[str, Any]]) -> pd.DataFrame:
    """The contributions of many explained predictions as one long table (for export)."""
    rows = [
        {"item": e["item"], "member": e["member"], "predicted": e["predicted"],
         "scored_class": e["scored_class"], **part}
        for e in explained for part in e["contributions"]
    ]  # fmt: skip
    return pd.DataFrame(rows, columns=["item", "member", "predicted", "scored_class", "feature", "value",
                                       "coef", "contribution"])  # fmt: skip


_CACHE: dict[tuple[Any, ...], PrecedentModel] = {}


def model_for(corpus: Corpus, *, retriever: Retriever | None = None) -> PrecedentModel:
    """One fitted-on-demand model per corpus (and retriever) in a process: fits are cached inside.

    With the default retriever a corpus is known by its content (:func:`augmented_stamp`: the records,
    their fields): a report loads the corpus afresh for its baselines and again for the precedents
    section, and each report of a process (the tests make many) would otherwise refit every draft."""
    if retriever is None:
        key: tuple[Any, ...] = ("default", augmented_stamp(corpus))
    else:
        key = (id(corpus), repr(retriever))
    if key not in _CACHE or (retriever is not None and _CACHE[key].corpus is not corpus):
        if len(_CACHE) >= 4:
            _CACHE.clear()
        _CACHE[key] = PrecedentModel(corpus, retriever=retriever)
    return _CACHE[key]


def model_predictions(
    corpus: Corpus, *, personas: Sequence[str] = P5, retriever: Retriever | None = None
) -> pd.DataFrame:
    """The learned baseline in the rule baselines' frame (item, persona, truth, pred)."""
    return model_for(corpus, retriever=retriever).predictions(personas=personas)
