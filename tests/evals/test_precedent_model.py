"""The learned precedent model: nothing dated on or after a target reaches its prediction, and every
prediction's contributions add up to the model's score."""

from __future__ import annotations

import random

import numpy as np
import pytest

from nationbias.evals.baselines.precedent_features import FEATURES, FeatureBuilder
from nationbias.evals.baselines.precedent_model import GRID, NAMES, K, PrecedentModel, explanations_frame
from nationbias.retrievers import get_retriever
from nationbias.stores.corpora.augment import augmented_for
from nationbias.stores.corpora.corpus import Corpus
from nationbias.stores.domain import P5, VOTES
from nationbias.stores.records import Record


@pytest.fixture(scope="module")
def augmented(corpus):  # type: ignore[no-untyped-def]
    """One augmentation for every corpus variant, so only what a test changes differs between them."""
    return augmented_for(corpus)


def make_model(corpus: Corpus, augmented) -> PrecedentModel:  # type: ignore[no-untyped-def]
    retriever = get_retriever("keyword", threshold=0, augmented=augmented)
    return PrecedentModel(corpus, retriever=retriever, augmented=augmented)


@pytest.fixture(scope="module")
def full(corpus, augmented) -> PrecedentModel:  # type: ignore[no-untyped-def]
    return make_model(corpus, augmented)


def without_future(corpus: Corpus, target: Record) -> Corpus:
    """The corpus as it stood before ``target``'s vote, plus the target itself."""
    return Corpus(records=[r for r in corpus.records if r.date < target.date or r.id == target.id])


def scrambled_future(corpus: Corpus, target: Record, seed: int) -> Corpus:
    """Every other item dated on or after ``target``: votes permuted among the members, sponsors
    shuffled between items, dates permuted among them; and the items in a shuffled order."""
    rng = random.Random(seed)
    later = [r for r in corpus.records if r.date >= target.date and r.id != target.id]
    sponsors = [r.sponsors for r in later]
    dates = [r.date for r in later]
    rng.shuffle(sponsors)
    rng.shuffle(dates)
    changed = {}
    for record, new_sponsors, new_date in zip(later, sponsors, dates, strict=True):
        names, votes = list(record.votes), list(record.votes.values())
        rng.shuffle(votes)
        changed[record.id] = record.model_copy(
            update={"votes": dict(zip(names, votes, strict=True)), "sponsors": new_sponsors, "date": new_date}
        )
    records = [changed.get(r.id, r) for r in corpus.records]
    rng.shuffle(records)
    return Corpus(records=records)


def test_no_feature_of_any_target_uses_an_item_dated_on_or_after_it(corpus, augmented, full) -> None:
    """Property over every target: its feature rows are the same with the future removed."""
    nations = {rid: a.target_nations for rid, a in augmented.items()}
    retriever = get_retriever("keyword", threshold=0, augmented=augmented)
    for target in corpus.drafts:
        past = without_future(corpus, target)

        def found(record: Record, pool: list[Record] = past.records):  # type: ignore[no-untyped-def]
            return retriever.retrieve(record, pool, K)

        builder = FeatureBuilder(past, nations=nations, precedents=found)
        for member in P5:
            expected = full.x(full.position[target.id], member)[: len(FEATURES)]
            np.testing.assert_array_equal(builder.row(target, member), expected, err_msg=target.id)


@pytest.mark.parametrize("position", [4, 21, 38, 52, 65])
def test_a_model_with_the_future_removed_predicts_the_same(corpus, augmented, full, position) -> None:
    target = corpus.drafts[position]
    member = P5[position % len(P5)]
    past = make_model(without_future(corpus, target), augmented)
    index = full.position[target.id]
    assert past.choose(past.position[target.id], member) == full.choose(index, member)
    assert past.predict(past.position[target.id], member) == full.predict(index, member)
    assert past.explain(target.id, member) == full.explain(target.id, member)


def test_permuting_the_future_changes_no_prediction(corpus, augmented, full) -> None:
    # a draft with a competing draft voted the same day (future too: only earlier days count)
    target = next(d for d in corpus.drafts[40:] if sum(o.date == d.date for o in corpus.drafts) > 1)
    scrambled = make_model(scrambled_future(corpus, target, seed=7), augmented)
    for member in P5:
        assert scrambled.explain(target.id, member) == full.explain(target.id, member)


def test_the_target_is_scored_on_earlier_drafts_only(corpus, full) -> None:
    for position in (0, 10, 40, 65):
        target = corpus.drafts[position]
        explained = full.explain(target.id, "RUS")
        fitted = full.fit_for(position, explained["C"])
        assert all(corpus.get(rid).date < target.date for rid in fitted.train_ids)
        assert len(fitted.train_ids) == sum(d.date < target.date for d in corpus.drafts)
        assert all(p["date"] < target.date.isoformat() for p in explained["precedents"])
        assert explained["C"] in GRID


@pytest.mark.parametrize("member", P5)
def test_contributions_add_up_to_the_decision_score(corpus, full, member) -> None:
    classes_seen = set()
    for position in range(10, len(corpus.drafts), 5):
        explained = full.explain(corpus.drafts[position].id, member)
        parts = explained["contributions"]
        assert [p["feature"] for p in parts] == list(NAMES)
        total = sum(p["contribution"] for p in parts) + explained["intercept"]
        assert total == pytest.approx(explained["score"], abs=1e-9)
        for part in parts:
            assert part["contribution"] == pytest.approx(part["coef"] * part["value"])
        fitted = full.fit_for(position, explained["C"])
        assert fitted.model is not None
        scores = fitted.model.decision_function(full.x(position, member)[None, :])
        n_classes = len(fitted.model.classes_)
        classes_seen.add(n_classes)
        if n_classes == 2:  # the second class against the first
            assert explained["scored_class"] == fitted.model.classes_[1]
            assert scores[0] == pytest.approx(explained["score"])
        else:  # the predicted class scores highest
            assert explained["scored_class"] == explained["predicted"]
            assert scores[0].max() == pytest.approx(explained["score"])
        assert max(explained["probabilities"], key=explained["probabilities"].get) == explained["predicted"]
    assert classes_seen == {3}  # every seat's votes: all three votes seen early


def test_the_first_draft_is_a_constant_with_nothing_to_learn_from(corpus, full) -> None:
    explained = full.explain(corpus.drafts[0].id, "USA")
    assert explained["n_train_drafts"] == 0 and explained["constant"] == "favour"
    assert explained["contributions"] == [] and explained["predicted"] == "favour"


def test_predictions_and_export_frames(corpus, full) -> None:
    frame = full.predictions(personas=["CHN"])
    assert list(frame.columns) == ["item", "persona", "truth", "pred"]
    assert len(frame) == len(corpus.drafts) and set(frame["pred"]) <= set(VOTES)
    explained = [full.explain(d.id, "CHN") for d in corpus.drafts[-3:]]
    export = explanations_frame(explained)
    assert set(export["feature"]) == set(NAMES)
    assert len(export) == sum(len(e["contributions"]) for e in explained)
