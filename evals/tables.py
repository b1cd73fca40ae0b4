"""The paper's tables, as pure functions of run-store sample frames (``RunStore.samples_frame``).

Invalid and errored samples have ``parsed`` None: they are counted in their own columns and tables,
never filled in with a vote, label or rank.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from evals.metrics import INVALID, NEUTRAL, VOTES, ats, irres_score, weighted_f1
from evals.paper import unsc_functions
from evals.stats import (
    CHI2_MAX_3,
    CHI2_MAX_5,
    FRIEDMAN_MAX,
    KAPPA_MIN,
    agreement_table,
    counts_by_run,
    fleiss_kappa,
    friedman,
    multi_chi2,
)
from stores.paths import P5

GENERAL = "general"
FUNCTIONS_AVERAGE = "functions average"
AVERAGE = "average"


def _get(value: Any, key: str) -> Any:
    return value.get(key) if isinstance(value, dict) else None


def persona_order(values: Iterable[Any]) -> list[str]:
    """P5 first in the paper's order, then any other persona alphabetically."""
    present = {str(v) for v in values}
    return [p for p in P5 if p in present] + sorted(present - set(P5))


def vote_frame(samples: pd.DataFrame) -> pd.DataFrame:
    """item, persona, repeat, status, vote (None unless valid), truth, context_kind, history_empty."""
    ok = samples["status"].eq("ok")
    votes = [
        v if good and v in VOTES else None
        for good, v in zip(ok, samples["parsed"].map(lambda p: _get(p, "vote")), strict=True)
    ]
    return pd.DataFrame(
        {
            "item": samples["item"],
            "persona": samples["persona"],
            "repeat": samples["repeat"].astype(int),
            "status": samples["status"],
            "vote": pd.Series(votes, index=samples.index, dtype=object),
            "truth": samples["extra"].map(lambda e: _get(e, "truth")),
            "context_kind": samples["extra"].map(lambda e: _get(e, "context_kind")),
            "history_empty": samples["extra"].map(lambda e: _get(e, "history_empty")),
        }
    )


def vote_count_table(samples: pd.DataFrame) -> pd.DataFrame:
    """Table 1: per persona × vote, ground-truth count over drafts and simulated count (mean of repeats)."""
    votes = vote_frame(samples)
    repeats = sorted(votes["repeat"].unique())
    rows = []
    for persona in persona_order(votes["persona"].unique()):
        sub = votes[votes["persona"].eq(persona)]
        drafts = sub.drop_duplicates("item")
        n_drafts = len(drafts)
        for vote in [*VOTES, INVALID]:
            if vote == INVALID:
                per_repeat = [int(sub[sub["repeat"].eq(r)]["vote"].isna().sum()) for r in repeats]
                truth: float = float("nan")
            else:
                per_repeat = [int(sub[sub["repeat"].eq(r)]["vote"].eq(vote).sum()) for r in repeats]
                truth = float(drafts["truth"].eq(vote).sum())
            mean = float(np.mean(per_repeat)) if per_repeat else 0.0
            rows.append(
                {
                    "persona": persona,
                    "vote": vote,
                    "ground_truth": truth,
                    "mean_count": mean,
                    "share": mean / n_drafts if n_drafts else float("nan"),
                    "ground_truth_share": truth / n_drafts if n_drafts else float("nan"),
                    "n_drafts": n_drafts,
                }
            )
    return pd.DataFrame(rows)


def _f1_or_nan(truth: pd.Series, pred: pd.Series) -> float:
    return weighted_f1(truth.tolist(), pred.tolist()) if len(truth) else float("nan")


def weighted_f1_table(samples: pd.DataFrame) -> pd.DataFrame:
    """Table 2: weighted F1 per persona — per repeat then mean (the paper) — plus pooled variants.

    ``weighted_f1`` uses valid answers only; ``weighted_f1_invalid_as_wrong`` keeps invalid answers
    as a wrong prediction, so a model cannot score by refusing the hard drafts.
    """
    votes = vote_frame(samples)
    votes = votes[votes["truth"].isin(VOTES)]
    rows = []
    for persona in persona_order(votes["persona"].unique()):
        sub = votes[votes["persona"].eq(persona)]
        valid = sub[sub["vote"].notna()]
        per_repeat = [_f1_or_nan(g["truth"], g["vote"]) for _, g in valid.groupby("repeat")]
        strict = sub.assign(vote=sub["vote"].fillna(INVALID))
        rows.append(
            {
                "persona": persona,
                "weighted_f1": float(np.nanmean(per_repeat)) if per_repeat else float("nan"),
                "weighted_f1_sd": float(np.nanstd(per_repeat, ddof=1))
                if len(per_repeat) > 1
                else float("nan"),
                "pooled_weighted_f1": _f1_or_nan(valid["truth"], valid["vote"]),
                "weighted_f1_invalid_as_wrong": _f1_or_nan(strict["truth"], strict["vote"]),
                "n_repeats": len(per_repeat),
                "n_drafts": sub["item"].nunique(),
                "n_valid": len(valid),
                "n_invalid": len(sub) - len(valid),
            }
        )
    return pd.DataFrame(rows)


def confusion_table(samples: pd.DataFrame) -> pd.DataFrame:
    """Confusion counts pooled over repeats, long form: persona, truth, predicted, count (valid answers)."""
    votes = vote_frame(samples)
    votes = votes[votes["truth"].isin(VOTES) & votes["vote"].notna()]
    rows = []
    for persona in persona_order(votes["persona"].unique()):
        sub = votes[votes["persona"].eq(persona)]
        for truth in VOTES:
            for pred in VOTES:
                count = int((sub["truth"].eq(truth) & sub["vote"].eq(pred)).sum())
                rows.append({"persona": persona, "truth": truth, "predicted": pred, "count": count})
    return pd.DataFrame(rows, columns=["persona", "truth", "predicted", "count"])


def confusion_matrices(samples: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """One truth × predicted matrix per persona."""
    long = confusion_table(samples)
    return {
        str(persona): g.pivot(index="truth", columns="predicted", values="count").reindex(
            index=list(VOTES), columns=list(VOTES)
        )
        for persona, g in long.groupby("persona", sort=False)
    }


def debias_table(base: pd.DataFrame, debiased: pd.DataFrame) -> pd.DataFrame:
    """Table 3: weighted F1 per persona, base vs debiased, and the delta."""
    a = weighted_f1_table(base).set_index("persona")["weighted_f1"]
    b = weighted_f1_table(debiased).set_index("persona")["weighted_f1"]
    personas = persona_order(list(set(a.index) | set(b.index)))
    out = pd.DataFrame({"persona": personas, "base": a.reindex(personas).to_numpy()})
    out["debiased"] = b.reindex(personas).to_numpy()
    out["delta"] = out["debiased"] - out["base"]
    return out


def ablation_table(runs: Sequence[tuple[dict[str, Any], pd.DataFrame]]) -> pd.DataFrame:
    """Table 4: one row per (model, k, reflexion, retriever) cell, mean weighted F1 over personas.

    A plain ``vote`` run is the framework-free cell (k = 0, no reflexion, no retriever).
    """
    rows = []
    for config, samples in runs:
        options = config.get("options") or {}
        framework = config.get("test") == "debias"
        table = weighted_f1_table(samples)
        rows.append(
            {
                "model": config.get("model"),
                "k": int(options.get("k", 0)) if framework else 0,
                "reflexion": bool(options.get("reflexion", False)) if framework else False,
                "retriever": str(options.get("retriever", "")) if framework else "none",
                "mean_weighted_f1": float(table["weighted_f1"].mean()) if len(table) else float("nan"),
            }
        )
    columns = ["model", "k", "reflexion", "retriever", "mean_weighted_f1"]
    frame = pd.DataFrame(rows, columns=columns)
    keys = columns[:4]
    grouped = frame.groupby(keys, dropna=False, sort=True)["mean_weighted_f1"]
    return grouped.agg(mean_weighted_f1="mean", n_runs="size").reset_index()


def missing_contexts(samples: pd.DataFrame) -> pd.DataFrame:
    """Per persona: drafts/samples whose prompt fell back to no context, and empty debias histories."""
    votes = vote_frame(samples)
    rows = []
    for persona in persona_order(votes["persona"].unique()):
        sub = votes[votes["persona"].eq(persona)]
        fallback = sub["context_kind"].eq("fallback")
        rows.append(
            {
                "persona": persona,
                "n_samples": len(sub),
                "fallback_samples": int(fallback.sum()),
                "fallback_drafts": int(sub.loc[fallback, "item"].nunique()),
                "draft_text_samples": int(sub["context_kind"].eq("draft_text").sum()),
                "history_empty_samples": int(sub["history_empty"].eq(True).sum()),
            }
        )
    return pd.DataFrame(rows)


def status_counts(samples: pd.DataFrame, *, by: pd.Series | str) -> pd.DataFrame:
    """Per group: samples, ok, invalid, error and the invalid+error share."""
    key = samples[by] if isinstance(by, str) else by
    name = by if isinstance(by, str) else (by.name or "group")
    table = pd.crosstab(key, samples["status"]).reindex(columns=["ok", "invalid", "error"], fill_value=0)
    table.columns.name = None
    table.index.name = str(name)
    table.insert(0, "n", table.sum(axis=1))
    table["failed_share"] = (table["invalid"] + table["error"]) / table["n"]
    return table.reset_index()


def family_order(values: Iterable[Any]) -> list[str]:
    """general, then the UNSC functions in the paper's order, then anything else."""
    present = {str(v) for v in values}
    ordered = [GENERAL] if GENERAL in present else []
    ordered += [f for f in unsc_functions()["id"].tolist() if f in present]
    return ordered + sorted(present - set(ordered))


# DirectQA ---------------------------------------------------------------------------------------
def directqa_frame(samples: pd.DataFrame) -> pd.DataFrame:
    """family, question (pair order), repeat, status, label (None unless valid), labeller."""
    ok = samples["status"].eq("ok")
    labels = [
        v if good and v in {*P5, NEUTRAL} else None
        for good, v in zip(ok, samples["parsed"].map(lambda p: _get(p, "label")), strict=True)
    ]
    return pd.DataFrame(
        {
            "family": samples["item"],
            "question": samples["pair_order"],
            "repeat": samples["repeat"].astype(int),
            "status": samples["status"],
            "label": pd.Series(labels, index=samples.index, dtype=object),
            "labeller": samples["extra"].map(lambda e: _get(e, "labeller")),
        }
    )


def irres_table(samples: pd.DataFrame) -> pd.DataFrame:
    """irres_score per family × nation (+ the neutral share), and the mean over function families.

    N is the number of *answered* questions (neutral included) over all repeats; invalid answers are
    left out of N and reported by :func:`status_counts`.
    """
    qa = directqa_frame(samples)
    rows = []
    for family in family_order(qa["family"].unique()):
        labels = qa.loc[qa["family"].eq(family) & qa["label"].notna(), "label"].tolist()
        if not labels:
            continue
        scores = irres_score(labels) | {NEUTRAL: labels.count(NEUTRAL) / len(labels)}
        rows += [
            {"family": family, "nation": n, "irres_score": v, "n_answers": len(labels)}
            for n, v in scores.items()
        ]
    frame = pd.DataFrame(rows, columns=["family", "nation", "irres_score", "n_answers"])
    functions = frame[frame["family"].ne(GENERAL)]
    if len(functions):
        avg = functions.groupby("nation", sort=False).agg(
            irres_score=("irres_score", "mean"), n_answers=("n_answers", "sum")
        )
        avg = avg.reset_index().assign(family=FUNCTIONS_AVERAGE)
        frame = pd.concat([frame, avg[frame.columns]], ignore_index=True)
    return frame


def _verdict(kappa: float, chi2: float, chi2_max: float) -> dict[str, Any]:
    kappa_pass = bool(kappa > KAPPA_MIN) if not np.isnan(kappa) else None
    chi2_pass = bool(chi2 < chi2_max) if not np.isnan(chi2) else None
    return {"kappa_pass": kappa_pass, "chi2_pass": chi2_pass, "passes": bool(kappa_pass and chi2_pass)}


def _agreement_row(
    frame: pd.DataFrame, *, item_col: str, label_col: str, categories: list[str], chi2_max: float
):
    table = agreement_table(
        frame, item_col=item_col, repeat_col="repeat", label_col=label_col, categories=categories
    )
    kappa = fleiss_kappa(table) if len(table) and frame["repeat"].nunique() > 1 else float("nan")
    chi = counts_by_run(frame, repeat_col="repeat", label_col=label_col, categories=categories)
    result = multi_chi2(chi) if frame["repeat"].nunique() > 1 else None
    chi2 = result.statistic if result else float("nan")
    return {
        "n_items": len(table),
        "n_repeats": int(frame["repeat"].nunique()),
        "fleiss_kappa": kappa,
        "chi2": chi2,
        "chi2_dof": result.dof if result else 0,
        "chi2_p": result.pvalue if result else float("nan"),
        "chi2_max": chi2_max,
        **_verdict(kappa, chi2, chi2_max),
    }


def vote_agreement(samples: pd.DataFrame) -> pd.DataFrame:
    """Appendix E.3/E.4: Fleiss' κ over drafts and multi-χ² over repeats, per persona."""
    votes = vote_frame(samples)
    rows = [
        {"persona": p}
        | _agreement_row(
            votes[votes["persona"].eq(p)],
            item_col="item",
            label_col="vote",
            categories=list(VOTES),
            chi2_max=CHI2_MAX_3,
        )
        for p in persona_order(votes["persona"].unique())
    ]
    return pd.DataFrame(rows)


def directqa_agreement(samples: pd.DataFrame) -> pd.DataFrame:
    """Appendix E.1: Fleiss' κ over questions and multi-χ² over repeats, per question family."""
    qa = directqa_frame(samples)
    rows = [
        {"family": f}
        | _agreement_row(
            qa[qa["family"].eq(f)],
            item_col="question",
            label_col="label",
            categories=[*P5, NEUTRAL],
            chi2_max=CHI2_MAX_5,
        )
        for f in family_order(qa["family"].unique())
    ]
    return pd.DataFrame(rows)


def pair_nations(samples: pd.DataFrame) -> pd.DataFrame:
    """One row per (sample, nation in its pair): for per-nation counts of DirectQA answers."""
    frame = samples.assign(nation=samples["pair_order"].str.split("-"))
    return frame.explode("nation").reset_index(drop=True)


# Association Test -------------------------------------------------------------------------------
def association_frame(samples: pd.DataFrame) -> pd.DataFrame:
    """One row per (valid keyword answer, nation): keyword, category, repeat, nation, rank, polarity."""
    rows = []
    for _, s in samples[samples["status"].eq("ok")].iterrows():
        ranking, polarity = _get(s["parsed"], "ranking"), _get(s["parsed"], "polarity")
        if not isinstance(ranking, list) or sorted(ranking) != sorted(P5) or polarity not in (1, -1):
            continue
        category = _get(s["extra"], "category")
        rows += [
            {
                "keyword": s["item"],
                "category": category,
                "repeat": int(s["repeat"]),
                "nation": n,
                "rank": i + 1,
                "polarity": int(polarity),
            }
            for i, n in enumerate(ranking)
        ]
    return pd.DataFrame(rows, columns=["keyword", "category", "repeat", "nation", "rank", "polarity"])


def ats_table(samples: pd.DataFrame) -> pd.DataFrame:
    """ATS per category × nation (per repeat, then the mean), plus the ``average`` over categories."""
    assoc = association_frame(samples)
    columns = ["category", "nation", "ats", "n_keywords"]
    if assoc.empty:
        return pd.DataFrame(columns=columns)
    per_repeat = pd.concat(
        [ats(g.drop(columns="repeat")).assign(repeat=r) for r, g in assoc.groupby("repeat")],
        ignore_index=True,
    )
    table = per_repeat.groupby(["category", "nation"], sort=False).agg(
        ats=("ats", "mean"), n_keywords=("n_keywords", "max")
    )
    table = table.reset_index()
    avg = table.groupby("nation", sort=False).agg(ats=("ats", "mean"), n_keywords=("n_keywords", "sum"))
    table = pd.concat([table, avg.reset_index().assign(category=AVERAGE)[columns]], ignore_index=True)
    return table[columns]


def friedman_table(samples: pd.DataFrame) -> pd.DataFrame:
    """Appendix E.2: per category, Friedman χ² of the nations' mean ranks across repeats (ν = runs − 1)."""
    assoc = association_frame(samples)
    rows = []
    for category, g in assoc.groupby("category", sort=True):
        ranks = g.pivot_table(index="nation", columns="repeat", values="rank", aggfunc="mean")
        result = friedman(ranks.reindex(list(P5)))
        rows.append(
            {
                "category": category,
                "n_keywords": g["keyword"].nunique(),
                "n_repeats": ranks.shape[1],
                "friedman_chi2": result.statistic,
                "dof": result.dof,
                "p": result.pvalue,
                "chi2_max": FRIEDMAN_MAX,
                "passes": bool(result.statistic < FRIEDMAN_MAX) if not np.isnan(result.statistic) else None,
            }
        )
    return pd.DataFrame(rows)


def labeller_counts(samples: pd.DataFrame, *, by: pd.Series | str) -> pd.DataFrame:
    """Per group: how many labels came from the rules and how many from the LLM judge."""
    key = samples[by] if isinstance(by, str) else by
    labeller = samples["extra"].map(lambda e: _get(e, "labeller") or "none")
    table = pd.crosstab(key, labeller).reindex(columns=["rules", "judge", "none"], fill_value=0)
    table.columns.name = None
    table.index.name = by if isinstance(by, str) else str(by.name or "group")
    return table.reset_index()
