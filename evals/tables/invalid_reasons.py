"""Answers without a usable choice, per test and nation, by reason; and the refusal rate as a bias signal.

A refusal is a finding of its own: a model that refuses to speak as one nation and not the others treats
that nation differently. Each failed answer's reason (the rules' or the judge's, stored with the sample)
falls in one of :data:`REASONS`. For the vote tests each nation's refusal rate has a 95% interval (drafts
resampled), and is compared with the other four members' on the same drafts: per draft, the nation's
rate minus the mean of the others' (paired by draft); a two-sided sign test over the drafts where they
differ, its p-value adjusted by Holm over the five nations (evals/stats/multiplicity.py).
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pandas as pd

from nationbias.evals.stats.bootstrap import CI, bootstrap_cis
from nationbias.evals.stats.multiplicity import adjust_pvalues
from nationbias.evals.tables.paper import persona_order

REFUSAL = "refusal"
REASONS = (REFUSAL, "hedge", "no option", "several options", "loop", "cut off", "error", "other")
_REASON = {
    "refusal": REFUSAL,
    "hedged": "hedge",
    "hedged_choice": "hedge",
    "hedge": "hedge",
    "no_option": "no option",
    "negated_choice": "no option",
    "outside_pair": "no option",
    "outside_pair_mention": "no option",
    "multiple_options": "several options",
    "repetition_loop": "loop",
    "truncated": "cut off",
}
REFUSAL_COLUMNS = [
    "nation",
    "n_drafts",
    "n_answers",
    "refusals",
    "refusal_rate",
    "low",
    "high",
    "others_rate",
    "difference",
    "difference_low",
    "difference_high",
    "drafts_higher",
    "drafts_lower",
    "p",
    "p_holm",
    "survives_holm",
]


def reason_of(status: str, parse_error: Any, extra: Any) -> str | None:
    """The reason a sample has no usable choice (one of :data:`REASONS`), else None. A DirectQA answer the
    rules kept as neutral because it refused or hedged counts under that reason too."""
    if status == "error":
        return "error"
    if status == "ok":
        kept = extra.get("rules_reason") if isinstance(extra, dict) else None
        return _REASON.get(str(kept)) if kept in ("refusal", "hedge") else None
    match = re.match(r"[a-z_]+", str(parse_error or ""))
    return _REASON.get(match.group(0), "other") if match else "other"


def with_reasons(samples: pd.DataFrame) -> pd.Series:
    """Each sample's reason (None for a usable answer)."""
    return pd.Series(
        [
            reason_of(s, p, e)
            for s, p, e in zip(samples["status"], samples["parse_error"], samples["extra"], strict=True)
        ],
        index=samples.index,
        dtype=object,
    )


def invalid_by_reason(samples: pd.DataFrame, *, by: pd.Series) -> pd.DataFrame:
    """Per group (``by``, aligned with ``samples``): answers, then the count of each reason, and the share of
    answers with no usable choice."""
    reasons = with_reasons(samples)
    groups = persona_order(by.dropna().unique()) if len(by) else []
    rows = []
    for group in groups:
        mine = reasons[by.eq(group)]
        counts = {r: int(mine.eq(r).sum()) for r in REASONS}
        rows.append({"group": group, "answers": len(mine)} | counts | {"share": mine.notna().mean()})
    frame = pd.DataFrame(rows, columns=["group", "answers", *REASONS, "share"])
    return frame.rename(columns={"group": str(by.name or "group")})


def _sign_test(higher: int, lower: int) -> float:
    n = higher + lower
    if n == 0:
        return float("nan")  # the nation refused exactly as often as the rest on every draft: not tested
    from scipy import stats as sps  # imported on use: scipy.stats is ~0.8 s of start-up

    return float(sps.binomtest(higher, n, 0.5).pvalue)


def refusal_rates(
    samples: pd.DataFrame, *, nations: list[str] | None = None, n_resamples: int = 1000, seed: int = 0
) -> pd.DataFrame:
    """Per nation (a vote run's persona): its refusal rate with a 95% interval, the other nations' on the
    same drafts, the paired difference with its interval, the sign test and Holm over the nations."""
    refused = with_reasons(samples).eq(REFUSAL).astype(float)
    frame = pd.DataFrame({"item": samples["item"], "persona": samples["persona"], "refused": refused})
    present = persona_order(frame["persona"].unique())
    chosen = [n for n in (nations or present) if n in present]
    rates = frame.pivot_table(index="item", columns="persona", values="refused", aggfunc="mean")
    rows = []
    for nation in chosen:
        others = [n for n in chosen if n != nation]
        pair = rates[[nation, *others]].dropna() if others else rates[[nation]].dropna()
        own = pair[nation].to_numpy(float)
        rest = pair[others].mean(axis=1).to_numpy(float) if others else np.full(len(pair), np.nan)
        data = np.column_stack([own, rest])
        nan = float("nan")
        rate = other = diff = CI(nan, nan, nan)
        if len(data):

            def stat(batch: np.ndarray) -> np.ndarray:  # (B, drafts, 2) -> (B, 3)
                means = batch.mean(axis=1)
                return np.stack([means[:, 0], means[:, 1], means[:, 0] - means[:, 1]], axis=-1)

            rate, other, diff = bootstrap_cis(data, stat, n_resamples=n_resamples, seed=seed)
        higher, lower = int((own > rest).sum()), int((own < rest).sum())
        mine = frame[frame["persona"].eq(nation)]
        rows.append(
            {
                "nation": nation,
                "n_drafts": len(pair),
                "n_answers": len(mine),
                "refusals": int(mine["refused"].sum()),
                "refusal_rate": rate.point,
                "low": rate.low,
                "high": rate.high,
                "others_rate": other.point,
                "difference": diff.point,
                "difference_low": diff.low,
                "difference_high": diff.high,
                "drafts_higher": higher,
                "drafts_lower": lower,
                "p": _sign_test(higher, lower) if others else nan,
            }
        )
    out = pd.DataFrame(rows, columns=REFUSAL_COLUMNS[:-2])
    out["p_holm"] = adjust_pvalues(out["p"].to_numpy(float), method="holm") if len(out) else []
    out["survives_holm"] = out["p_holm"].lt(0.05)
    return out[REFUSAL_COLUMNS]
