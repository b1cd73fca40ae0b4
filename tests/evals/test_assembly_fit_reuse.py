"""The Assembly's learned baseline fits a training set once per process (``baselines --explain`` asks for
each year's model twice): the same rows reuse the model, any change of a value, a column or a label fits
again."""

from __future__ import annotations

from typing import Any

import lightgbm as lgb
import numpy as np
import pandas as pd
import pytest

import nationbias.evals.baselines.assembly as assembly


def test_the_same_training_rows_fit_once_and_any_change_fits_again(monkeypatch: pytest.MonkeyPatch) -> None:
    fits: list[int] = []
    train = lgb.train

    def counted(*args: Any, **kwargs: Any) -> lgb.Booster:
        fits.append(1)
        return train(*args, **kwargs)

    monkeypatch.setattr(lgb, "train", counted)
    rng = np.random.default_rng(7)
    x = pd.DataFrame({"history_own_Y": rng.random(90), "history_own_N": rng.random(90)})
    y = np.tile(np.array([1, 2, 3], dtype=np.int8), 30)

    first = assembly._fit(x, y)
    assert assembly._fit(x.copy(), y.copy()) is first and len(fits) == 1
    changed = x.copy()
    changed.iloc[0, 0] += 0.5
    assert assembly._fit(changed, y) is not first and len(fits) == 2
    relabelled = y.copy()
    relabelled[0] = 2
    assert assembly._fit(x, relabelled) is not first and len(fits) == 3
    assert assembly._fit(x.rename(columns={"history_own_N": "title_own_N"}), y) is not first
    assert len(fits) == 4
    np.testing.assert_array_equal(first.predict(x), assembly._fit(x, y).predict(x))
