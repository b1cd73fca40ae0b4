"""The learned precedent model: a logistic regression per member, refitted leave-future-out for every draft.

For a target draft, a member's model is fitted on the earlier non-adopted drafts only (an expanding
window over time, no shuffling) on the features of :mod:`evals.precedent_features`. Two settings are
open: the view (the member's own features, or also the other P5 members' on the same draft, which
tells which camp a draft comes from) and the regularisation C. They are chosen per target on earlier
drafts only: every setting's leave-future-out predictions of the drafts before the target are scored
(log-loss) and the best is used. Each prediction is explained: the precedents behind it and every
feature's coef × value, which with the intercept add up to the model's decision score.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from threadpoolctl import threadpool_limits

from evals.precedent_features import FEATURES, FeatureBuilder, member_name, member_vote
from retrievers import Precedent, Retriever, get_retriever
from stores.augment import Augmented, augmented_for
from stores.corpus import Corpus
from stores.domain import P5, VOTES
from stores.records import Record

View = Literal["member", "p5"]
Setting = tuple[View, float]
GRID: tuple[Setting, ...] = tuple((view, C) for view in ("member", "p5") for C in (0.1, 0.3, 1.0))
DEFAULT: Setting = ("member", 0.3)  # used until enough earlier drafts can choose
K = 3  # precedents per pool part
MIN_SELECT = 5  # earlier scored drafts needed before the grid chooses


@dataclass
class Fitted:
    """One member's model for one target: its setting, what it was fitted on, the model (None: a constant)."""

    setting: Setting
    train_ids: list[str]
    model: LogisticRegression | None
    constant: str | None


def feature_names(member: str, view: View) -> list[str]:
    """The columns of a view: the member's features, then each other P5 member's as ``CODE:feature``."""
    if view == "member":
        return list(FEATURES)
    return [*FEATURES, *(f"{other}:{name}" for other in P5 if other != member for name in FEATURES)]


class PrecedentModel:
    """Leave-future-out predictions and explanations of the members' votes on the non-adopted drafts."""

    def __init__(
        self,
        corpus: Corpus,
        *,
        retriever: Retriever | None = None,
        k: int = K,
        grid: Sequence[Setting] = GRID,
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
        self._own: dict[str, np.ndarray] = {}
        self._fits: dict[tuple[str, str, Setting], Fitted] = {}
        self._probs: dict[tuple[str, str, Setting], np.ndarray] = {}

    def precedents(self, target: Record) -> list[Precedent]:
        """The top-k earlier precedents per pool part, retrieved once per item."""
        if target.id not in self._found:
            self._found[target.id] = self.retriever.retrieve(target, self.corpus.records, self.k)
        return self._found[target.id]

    def own(self, member: str) -> np.ndarray:
        """The member's own feature rows, one per draft (in ``self.drafts`` order)."""
        if member not in self._own:
            self._own[member] = np.vstack([self.features.row(d, member) for d in self.drafts])
        return self._own[member]

    def matrix(self, member: str, view: View) -> np.ndarray:
        if view == "member" or member not in P5:
            return self.own(member)
        return np.hstack([self.own(member), *(self.own(other) for other in P5 if other != member)])

    def _truths(self, member: str) -> list[str | None]:
        return [member_vote(d, member_name(member)) for d in self.drafts]

    def _earlier(self, index: int, member: str) -> list[int]:
        """Positions of the drafts dated strictly before draft ``index`` on which the member voted."""
        date, truths = self.drafts[index].date, self._truths(member)
        return [i for i, d in enumerate(self.drafts) if d.date < date and truths[i]]

    def fit_for(self, index: int, member: str, setting: Setting) -> Fitted:
        """The member's model for draft ``index``, fitted on the drafts dated strictly before it."""
        key = (self.drafts[index].id, member, setting)
        if key not in self._fits:
            rows = self._earlier(index, member)
            truths = self._truths(member)
            labels = [str(truths[i]) for i in rows]
            train_ids = [self.drafts[i].id for i in rows]
            if len(set(labels)) < 2:
                self._fits[key] = Fitted(setting, train_ids, None, labels[0] if labels else "favour")
            else:
                model = LogisticRegression(C=setting[1], max_iter=5000)
                model.fit(self.matrix(member, setting[0])[rows], labels)
                self._fits[key] = Fitted(setting, train_ids, model, None)
        return self._fits[key]

    def probabilities(self, index: int, member: str, setting: Setting) -> np.ndarray:
        """P(favour, against, abstention) of the member on draft ``index`` (a constant: one-hot)."""
        key = (self.drafts[index].id, member, setting)
        if key not in self._probs:
            fitted = self.fit_for(index, member, setting)
            out = np.zeros(len(VOTES))
            if fitted.model is None:
                out[VOTES.index(str(fitted.constant))] = 1.0
            else:
                x = self.matrix(member, setting[0])[index : index + 1]
                for label, p in zip(fitted.model.classes_, fitted.model.predict_proba(x)[0], strict=True):
                    out[VOTES.index(str(label))] = p
            self._probs[key] = out
        return self._probs[key]

    def choose(self, index: int, member: str) -> Setting:
        """The setting whose leave-future-out predictions of the earlier drafts had the lowest log-loss."""
        # Hundreds of tiny fits: BLAS threads only contend for the cores (up to 9x slower under load).
        with threadpool_limits(limits=1):
            return self._choose(index, member)

    def _choose(self, index: int, member: str) -> Setting:
        earlier = self._earlier(index, member)
        if len(earlier) < MIN_SELECT or len(self.grid) < 2:
            return DEFAULT if DEFAULT in self.grid or not self.grid else self.grid[0]
        truths = self._truths(member)
        truth = np.array([VOTES.index(str(truths[i])) for i in earlier])
        losses = []
        for setting in self.grid:
            probs = np.vstack([self.probabilities(i, member, setting) for i in earlier])
            # the log-loss of the true votes; a constant model's 0 is floored so it stays finite
            losses.append(-np.log(np.clip(probs[np.arange(len(truth)), truth], 1e-3, 1)).mean())
        return self.grid[int(np.argmin(losses))]

    def predict(self, index: int, member: str) -> str:
        setting = self.choose(index, member)
        with threadpool_limits(limits=1):
            probs = self.probabilities(index, member, setting)
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
        """A JSON-able account of one prediction: the precedents, the setting and each feature's part."""
        index = self.position[item]
        target = self.drafts[index]
        self.predict(index, member)  # fits what the prediction needs, threads limited
        setting = self.choose(index, member)
        fitted = self.fit_for(index, member, setting)
        probs = self.probabilities(index, member, setting)
        name = member_name(member)
        out: dict[str, Any] = {
            "item": item, "member": member, "date": target.date.isoformat(),
            "predicted": VOTES[int(np.argmax(probs))], "view": setting[0], "C": setting[1],
            "n_train": len(fitted.train_ids),
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
        x = self.matrix(member, setting[0])[index]
        names = feature_names(member, setting[0])
        return {**out, "constant": None, **contributions(fitted.model, x, names, out["predicted"])}


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


_CACHE: dict[tuple[int, str], PrecedentModel] = {}


def model_for(corpus: Corpus, *, retriever: Retriever | None = None) -> PrecedentModel:
    """One fitted-on-demand model per corpus (and retriever) in a process: fits are cached inside."""
    key = (id(corpus), repr(retriever))
    if key not in _CACHE or _CACHE[key].corpus is not corpus:
        if len(_CACHE) >= 4:
            _CACHE.clear()
        _CACHE[key] = PrecedentModel(corpus, retriever=retriever)
    return _CACHE[key]


def model_predictions(
    corpus: Corpus, *, personas: Sequence[str] = P5, retriever: Retriever | None = None
) -> pd.DataFrame:
    """The learned baseline in the rule baselines' frame (item, persona, truth, pred)."""
    return model_for(corpus, retriever=retriever).predictions(personas=personas)
