"""Holm and Benjamini–Hochberg over each family and over the report: values worked by hand, and by an
implementation written here from the definitions (not statsmodels), on tables of two models and two tests."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nationbias.evals.stats.multiplicity import (
    ADJUSTED,
    SURVIVES,
    adjust_claims,
    adjust_pvalues,
    survival_counts,
    survivors,
)
from nationbias.stores.domain import P5

# Five p-values and their adjustments, worked by hand.
# sorted: 0.005, 0.01, 0.032, 0.045, 0.20 (rows 3, 0, 2, 1, 4)
# Holm: 5·0.005 = 0.025, 4·0.01 = 0.04, 3·0.032 = 0.096, max(0.096, 2·0.045 = 0.09) = 0.096, max(0.096, 0.20)
# BH: 0.005·5/1 = 0.025, 0.01·5/2 = 0.025, 0.032·5/3 = 0.05333…, 0.045·5/4 = 0.05625, 0.20·5/5 = 0.20,
#     each the minimum of itself and those above it
P = [0.01, 0.045, 0.032, 0.005, 0.20]
HOLM = [0.04, 0.096, 0.096, 0.025, 0.20]
BH = [0.025, 0.05625, 0.032 * 5 / 3, 0.025, 0.20]


def holm_by_hand(p: list[float]) -> list[float]:
    """Holm's step-down from its definition: the k-th smallest times (m − k + 1), monotone, capped at 1."""
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    out, running = [0.0] * m, 0.0
    for k, i in enumerate(order):
        running = max(running, min(1.0, (m - k) * p[i]))
        out[i] = running
    return out


def bh_by_hand(p: list[float]) -> list[float]:
    """BH's step-up from its definition: the k-th smallest times m / k, the running minimum from the top."""
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    out, running = [0.0] * m, 1.0
    for k in range(m, 0, -1):
        i = order[k - 1]
        running = min(running, p[i] * m / k)
        out[i] = running
    return out


def claims(
    p: list[float], *, test: str = "directqa", model: str = "m1", scope: str = "general"
) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "test": test,
            "claim": "c",
            "model": model,
            "run": f"{test}-{model}",
            "scope": scope,
            "nation": list(P5)[: len(p)],
            "statistic": np.linspace(0, 1, len(p)),
            "p": p,
        }
    )


def test_the_hand_worked_five_and_the_alpha_option() -> None:
    assert holm_by_hand(P) == pytest.approx(HOLM) and bh_by_hand(P) == pytest.approx(BH)
    out = adjust_claims(claims(P))
    assert out["p_holm_family"].tolist() == pytest.approx(HOLM)
    assert out["p_bh_family"].tolist() == pytest.approx(BH)
    # one family: the report is the family
    assert out["p_holm_report"].tolist() == pytest.approx(HOLM)
    assert out["p_bh_report"].tolist() == pytest.approx(BH)
    assert out["survives_holm_family"].tolist() == [True, False, False, True, False]
    assert out["survives_bh_family"].tolist() == [True, False, False, True, False]
    loose = adjust_claims(claims(P), alpha=0.06)  # BH's 0.0533 and 0.05625 now pass, Holm's 0.096 not
    assert loose["survives_bh_family"].tolist() == [True, True, True, True, False]
    assert loose["survives_holm_family"].tolist() == [True, False, False, True, False]
    assert (out["m_family"] == 5).all() and (out["m_report"] == 5).all()


def test_families_of_two_models_and_two_tests_and_the_whole_report() -> None:
    rng = np.random.default_rng(3)
    parts = {
        (test, model): list(rng.uniform(0, 0.2, 5))
        for test in ("directqa", "association")
        for model in ("m1", "m2")
    }
    parts[("directqa", "m1")] = P
    table = pd.concat([claims(p, test=t, model=m) for (t, m), p in parts.items()], ignore_index=True)
    table = table.sample(frac=1, random_state=0)  # families interleaved: grouping, not position, decides
    out = adjust_claims(table)
    assert len(out) == 20 and (out["m_family"] == 5).all() and (out["m_report"] == 20).all()
    for (test, model), p in parts.items():
        mine = out[out["test"].eq(test) & out["model"].eq(model)].set_index("nation").reindex(list(P5))
        assert mine["p"].tolist() == pytest.approx(p)
        assert mine["p_holm_family"].tolist() == pytest.approx(holm_by_hand(p))
        assert mine["p_bh_family"].tolist() == pytest.approx(bh_by_hand(p))
    everything = out["p"].tolist()
    assert out["p_holm_report"].tolist() == pytest.approx(holm_by_hand(everything))
    assert out["p_bh_report"].tolist() == pytest.approx(bh_by_hand(everything))
    # Holm over the report is never kinder than over the family (BH may be: a false discovery *rate*)
    assert (out["p_holm_report"] >= out["p_holm_family"] - 1e-12).all()
    assert (out["p_bh_report"] < out["p_bh_family"]).any()
    counts = survival_counts(out).set_index(["test", "model"])
    assert counts.loc[("directqa", "m1"), "survives_holm_family"] == 2  # rows 0 and 3 of the hand-worked five
    assert counts["claims"].tolist() == [5, 5, 5, 5]
    assert set(survivors(out).index) == set(out.index[out[list(SURVIVES)].any(axis=1)])


def test_a_scope_splits_a_family_and_a_wider_family_option_merges_them() -> None:
    table = pd.concat([claims(P, scope="general"), claims(P, scope="trusteeship")], ignore_index=True)
    out = adjust_claims(table)
    assert (out["m_family"] == 5).all() and out["p_holm_family"].tolist() == pytest.approx(HOLM * 2)
    wide = adjust_claims(table, family=("test", "run"))  # the scopes of a run together: ten claims
    assert (wide["m_family"] == 10).all()
    assert wide["p_holm_family"].tolist() == pytest.approx(holm_by_hand(P * 2))


def test_an_untested_claim_counts_in_no_family_and_survives_nothing() -> None:
    out = adjust_claims(claims([*P[:4], float("nan")]))
    assert (out["m_family"] == 4).all()
    assert out["p_holm_family"][:4].tolist() == pytest.approx(holm_by_hand(P[:4]))
    assert out.loc[4, list(ADJUSTED)].isna().all() and not out.loc[4, list(SURVIVES)].any()
    assert np.isnan(adjust_pvalues([float("nan")], method="holm")).all()


def test_bad_tables_fail_with_what_is_wrong() -> None:
    with pytest.raises(ValueError, match=r"missing column.*scope"):
        adjust_claims(claims(P).drop(columns="scope"))
    with pytest.raises(ValueError, match=r"p must be a number in \[0, 1\].*'GBR'.*1.5"):
        adjust_claims(claims([0.1, 1.5, 0.2, 0.3, 0.4]))
    with pytest.raises(ValueError, match="appears twice"):
        adjust_claims(pd.concat([claims(P), claims(P)]))
    with pytest.raises(ValueError, match="alpha must be in"):
        adjust_claims(claims(P), alpha=0)
    with pytest.raises(ValueError, match="unknown method 'bonferroni'"):
        adjust_pvalues(P, method="bonferroni")


def test_adjusting_in_threads_at_once_leaves_the_real_gc_collect(monkeypatch: pytest.MonkeyPatch) -> None:
    """statsmodels' full collection is skipped while a family is adjusted, one family at a time, and the
    real ``gc.collect`` is back afterwards: adjustments that overlap (here each waits 10 ms inside the
    window) cannot take each other's stand-in for it."""
    import gc
    import time
    from concurrent.futures import ThreadPoolExecutor

    from nationbias.evals.stats import multiplicity

    real, upstream = gc.collect, multiplicity.multipletests
    seen = []

    def slow_multipletests(*args, **kwargs):
        seen.append(gc.collect is real)
        time.sleep(0.01)  # another thread would enter the window now
        return upstream(*args, **kwargs)

    monkeypatch.setattr(multiplicity, "multipletests", slow_multipletests)
    p = [0.01, 0.04, 0.03, 0.2, float("nan")]
    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(lambda _: adjust_pvalues(p, method="holm"), range(16)))
    assert gc.collect is real and seen == [False] * 16
    expected = upstream(np.array([0.01, 0.04, 0.03, 0.2]), method="holm")[1]
    assert all(np.array_equal(r[:4], expected) and np.isnan(r[4]) for r in results)
