"""Appendix E agreement tables: Fleiss' κ, multi-χ² and Friedman χ² over repeats, per group.

Each χ² is judged at the degrees of freedom of the table it was computed on — (runs − 1) ×
(classes present − 1) for the multi-χ², runs − 1 for Friedman — against ``chi2.ppf(0.95, dof)``,
with its p-value. The paper's fixed thresholds (which assume 3 runs and every class present) stay
beside as ``paper_threshold``, for reference only.

Where κ or a χ² is not defined (one category over every answer, one item, zero degrees of freedom) its
value is NaN, ``*_undefined`` says why, its verdict is None, and ``percent_agreement`` (the raw share of
agreeing repeats) stands beside: ``passes`` is True only where every test was made and passed.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from nationbias.evals.stats.agreement import (
    CHI2_MAX_3,
    CHI2_MAX_5,
    FRIEDMAN_MAX,
    KAPPA_MIN,
    agreement_table,
    chi2_critical,
    chi2_passes,
    chi2_undefined,
    counts_by_run,
    fleiss_kappa,
    friedman,
    friedman_undefined,
    kappa_undefined,
    multi_chi2,
    percent_agreement,
)
from nationbias.evals.stats.metrics import NEUTRAL, VOTES
from nationbias.evals.tables.explicit import association_frame, directqa_frame
from nationbias.evals.tables.paper import family_order, persona_order, vote_frame
from nationbias.graphs.labels.framing import framed_item
from nationbias.stores.domain import P5


def _kappa_pass(kappa: float) -> bool | None:
    return bool(kappa > KAPPA_MIN) if not np.isnan(kappa) else None


def overall_pass(*verdicts: bool | None) -> bool | None:
    """False when a test was made and failed; True when every test was made and passed; else None
    (something was not tested: no verdict claims agreement it did not measure)."""
    if any(v is False for v in verdicts):
        return False
    if verdicts and all(v is True for v in verdicts):
        return True
    return None


def _agreement_row(
    frame: pd.DataFrame,
    *,
    item_col: str,
    label_col: str,
    kappa_categories: list[str],
    chi2_categories: list[str],
    paper_threshold: float,
) -> dict[str, Any]:
    repeats = int(frame["repeat"].nunique())
    table = agreement_table(
        frame, item_col=item_col, repeat_col="repeat", label_col=label_col, categories=kappa_categories
    )
    kappa = fleiss_kappa(table) if len(table) and repeats > 1 else float("nan")
    chi = counts_by_run(frame, repeat_col="repeat", label_col=label_col, categories=chi2_categories)
    result = multi_chi2(chi) if repeats > 1 else None
    chi2 = result.statistic if result else float("nan")
    dof = result.dof if result else 0
    kappa_pass, chi2_pass = _kappa_pass(kappa), chi2_passes(chi2, dof)
    one_repeat = "one repeat: nothing to agree with"
    return {
        "n_items": len(table),
        "n_repeats": repeats,
        "n_invalid": int(frame[label_col].isna().sum()),
        "percent_agreement": percent_agreement(table) if repeats > 1 else float("nan"),
        "fleiss_kappa": kappa,
        "kappa_undefined": (one_repeat if repeats < 2 else kappa_undefined(table.to_numpy())) or "",
        "kappa_pass": kappa_pass,
        "chi2": chi2,
        "dof": dof,
        "critical": chi2_critical(dof),
        "p": result.pvalue if result else float("nan"),
        "chi2_undefined": (one_repeat if repeats < 2 else chi2_undefined(chi.to_numpy())) or "",
        "chi2_pass": chi2_pass,
        "passes": overall_pass(kappa_pass, chi2_pass),
        "paper_threshold": paper_threshold,
    }


def vote_agreement(samples: pd.DataFrame) -> pd.DataFrame:
    """Appendix E.3/E.4: Fleiss' κ over drafts and multi-χ² of runs × votes, per persona.

    Vote options no run chose are dropped from the χ² table, which lowers its dof; invalid and
    errored answers are in no class (``n_invalid`` counts them).
    """
    votes = vote_frame(samples)
    rows = [
        {"persona": p}
        | _agreement_row(
            votes[votes["persona"].eq(p)],
            item_col="item",
            label_col="vote",
            kappa_categories=list(VOTES),
            chi2_categories=list(VOTES),
            paper_threshold=CHI2_MAX_3,
        )
        for p in persona_order(votes["persona"].unique())
    ]
    return pd.DataFrame(rows)


def _neutral_by_run(frame: pd.DataFrame) -> str:
    counts = frame["label"].eq(NEUTRAL).groupby(frame["repeat"]).sum()
    return " / ".join(str(int(c)) for c in counts.sort_index())


def directqa_agreement(samples: pd.DataFrame) -> pd.DataFrame:
    """Appendix E.1: Fleiss' κ over questions and multi-χ² of runs × the five nations, per family.

    As in the paper, the χ² table has the five nations only (c = 5): neutral answers are left out
    of it and reported beside (``n_neutral``, per run in ``neutral_by_run``). κ keeps neutral as a
    category, since a question answered neutral in every run is agreement.
    """
    qa = directqa_frame(samples)
    # a mirrored question is its own family here (``responsible:general``), as it is stored
    qa = qa.assign(family=[framed_item(f, g) for f, g in zip(qa["family"], qa["framing"], strict=True)])
    rows = []
    for family in family_order(qa["family"].unique()):
        sub = qa[qa["family"].eq(family)]
        row = _agreement_row(
            sub,
            item_col="question",
            label_col="label",
            kappa_categories=[*P5, NEUTRAL],
            chi2_categories=list(P5),
            paper_threshold=CHI2_MAX_5,
        )
        neutral = {"n_neutral": int(sub["label"].eq(NEUTRAL).sum()), "neutral_by_run": _neutral_by_run(sub)}
        rows.append({"family": family} | row | neutral)
    return pd.DataFrame(rows)


def friedman_table(samples: pd.DataFrame) -> pd.DataFrame:
    """Appendix E.2: per category, Friedman χ² of the nations' mean ranks across repeats.

    dof = runs − 1 (runs with a valid answer in the category); scipy needs at least 3 runs, so
    with 2 the statistic is NaN and the verdict None (not tested), as where every repeat gave the same
    ranks (0/0). ``percent_agreement``: the share of nations whose mean rank is the same in every run.
    """
    assoc = association_frame(samples)
    rows = []
    for category, g in assoc.groupby("category", sort=True):
        ranks = g.pivot_table(index="nation", columns="repeat", values="rank", aggfunc="mean")
        table = ranks.reindex(list(P5))
        result = friedman(table)
        complete = table.dropna().to_numpy(float)
        same = (complete == complete[:, :1]).all(axis=1) if complete.size else np.array([])
        rows.append(
            {
                "category": category,
                "n_keywords": g["keyword"].nunique(),
                "n_repeats": ranks.shape[1],
                "percent_agreement": float(same.mean()) if len(same) and ranks.shape[1] > 1 else float("nan"),
                "friedman_chi2": result.statistic,
                "undefined": friedman_undefined(table.to_numpy(float)) or "",
                "dof": result.dof,
                "critical": chi2_critical(result.dof),
                "p": result.pvalue,
                "passes": chi2_passes(result.statistic, result.dof),
                "paper_threshold": FRIEDMAN_MAX,
            }
        )
    return pd.DataFrame(rows)
