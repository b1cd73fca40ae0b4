"""The paper's tables, as pure functions of run-store sample frames (``RunStore.samples_frame``).

Invalid and errored samples have ``parsed`` None: they are never filled in with a vote, label or
rank. Every headline score counts every question, such a sample as a miss (``answer`` is
``invalid`` or ``error``), and shows the invalid rate beside it; the valid-only figure is a second,
clearly named column. DirectQA and Association Test tables live in
:mod:`nationbias.evals.tables.explicit`, agreement tables in :mod:`nationbias.evals.tables.agreement`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd

from nationbias.evals.stats.metrics import ERROR, INVALID, MISSES, VOTES, weighted_f1
from nationbias.evals.tables.published import unsc_functions
from nationbias.stores.domain import CONTROL, P5

GENERAL = "general"
FUNCTIONS_AVERAGE = "functions average"
AVERAGE = "average"


def _get(value: Any, key: str) -> Any:
    return value.get(key) if isinstance(value, dict) else None


field = _get  # ``value[key]`` of a sample's parsed/extra dict, for the sibling table modules


def scored_answers(status: pd.Series, values: list[Any]) -> pd.Series:
    """The scored answer per sample: the valid vote/label, else ``error`` or ``invalid`` (a miss)."""
    out = [
        v if v is not None else (ERROR if s == "error" else INVALID)
        for s, v in zip(status, values, strict=True)
    ]
    return pd.Series(out, index=status.index, dtype=object)


def _rate(part: int, whole: int) -> float:
    return part / whole if whole else float("nan")


def persona_order(values: Iterable[Any]) -> list[str]:
    """P5 first in the paper's order, then any other persona alphabetically."""
    present = {str(v) for v in values}
    return [p for p in P5 if p in present] + sorted(present - set(P5))


Scope = Literal["paper", "adopted", "every"]


def adopted_rows(samples: pd.DataFrame) -> pd.Series:
    """Which samples ask about an adopted Council resolution (``--targets adopted|all``); the Assembly's
    rows and a run's stored before the option are never."""
    return samples["extra"].map(lambda e: _get(e, "adopted") is True).astype(bool)


def paper_rows(samples: pd.DataFrame) -> pd.Series:
    """The samples the paper's tables read: the non-adopted drafts' (the paper's 66) when the run has
    any, else every sample (a run of ``--targets adopted`` alone). The adopted resolutions of a run with
    both have their own tables (evals/tables/targets.py)."""
    adopted = adopted_rows(samples)
    return ~adopted if (~adopted).any() else pd.Series(True, index=samples.index)


def vote_frame(samples: pd.DataFrame, *, scope: Scope = "paper") -> pd.DataFrame:
    """item, persona, repeat, status, vote (None unless valid), answer (vote or miss), truth, context_kind,
    history_empty, adopted; the rows of ``scope``: the paper's (:func:`paper_rows`), the adopted
    resolutions' or every row.

    A sample that failed before its draft was read (an internal error) carries no truth; it takes
    the truth that the other repeats of the same (draft, persona) recorded, so it is still scored.
    """
    if scope != "every":
        samples = samples[paper_rows(samples) if scope == "paper" else adopted_rows(samples)]
    ok = samples["status"].eq("ok")
    votes = [
        v if good and v in VOTES else None
        for good, v in zip(ok, samples["parsed"].map(lambda p: _get(p, "vote")), strict=True)
    ]
    frame = pd.DataFrame(
        {
            "item": samples["item"],
            "persona": samples["persona"],
            "repeat": samples["repeat"].astype(int),
            "status": samples["status"],
            "vote": pd.Series(votes, index=samples.index, dtype=object),
            "answer": scored_answers(samples["status"], votes),
            "truth": samples["extra"].map(lambda e: _get(e, "truth")).astype(object),
            "context_kind": samples["extra"].map(lambda e: _get(e, "context_kind")),
            "history_empty": samples["extra"].map(lambda e: _get(e, "history_empty")),
            "adopted": adopted_rows(samples),
        }
    )
    known = frame["truth"].where(frame["truth"].isin(VOTES))
    shared = known.groupby([frame["item"], frame["persona"]]).transform("first")
    frame["truth"] = frame["truth"].where(frame["truth"].isin(VOTES), shared).astype(object)
    if frame["persona"].eq(CONTROL).any():
        frame = _control_as_members(frame, samples["extra"])
    return frame


def _control_as_members(frame: pd.DataFrame, extra: pd.Series) -> pd.DataFrame:
    """The control's samples (``--personas none``: no nation named) as one row per permanent member, its one
    answer scored against that member's record; a member with no recorded vote on a draft is left out
    there. Each row keeps its sample's index, so several rows share one sample."""
    control = frame["persona"].eq(CONTROL)
    truths: dict[Any, dict[str, Any]] = {}
    for item, e in zip(frame.loc[control, "item"], extra[control], strict=True):
        found = _get(e, "member_truths")
        if isinstance(found, dict) and item not in truths:
            truths[item] = found  # a sample that failed before its draft was read takes another repeat's
    parts = [frame[~control]]
    for member in P5:
        rows = frame[control].copy()
        rows["persona"] = member
        rows["truth"] = rows["item"].map(lambda i, m=member: (truths.get(i) or {}).get(m)).astype(object)
        parts.append(rows[rows["truth"].isin(VOTES)])
    return pd.concat(parts)


def vote_count_table(samples: pd.DataFrame) -> pd.DataFrame:
    """Table 1: per persona × vote, ground-truth count over drafts and simulated count (mean of repeats).

    ``invalid`` and ``error`` are rows of their own, so the shares of a persona sum to 1.
    """
    votes = vote_frame(samples)
    repeats = sorted(votes["repeat"].unique())
    rows = []
    for persona in persona_order(votes["persona"].unique()):
        sub = votes[votes["persona"].eq(persona)]
        drafts = sub.drop_duplicates("item")
        n_drafts = len(drafts)
        for vote in [*VOTES, *MISSES]:
            per_repeat = [int(sub[sub["repeat"].eq(r)]["answer"].eq(vote).sum()) for r in repeats]
            truth = float("nan") if vote in MISSES else float(drafts["truth"].eq(vote).sum())
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


def _f1(frame: pd.DataFrame, pred_col: str) -> float:
    return weighted_f1(frame["truth"].tolist(), frame[pred_col].tolist()) if len(frame) else float("nan")


def _mean(values: list[float]) -> float:
    return float(np.nanmean(values)) if values and not np.isnan(values).all() else float("nan")


def weighted_f1_table(samples: pd.DataFrame) -> pd.DataFrame:
    """Table 2: weighted F1 per persona over every question — per repeat then mean (the paper).

    An invalid or errored answer is a miss for its true class (eq. 3's N_tot counts every question),
    so refusing the hard drafts cannot raise the score; ``invalid_rate`` and ``error_rate`` stand
    beside it. ``weighted_f1_valid_only`` is the same mean over valid answers only, for reference.
    ``n_unscored`` counts samples whose draft has no recorded vote for the persona (no truth).
    """
    votes = vote_frame(samples)
    rows = []
    for persona in persona_order(votes["persona"].unique()):
        everything = votes[votes["persona"].eq(persona)]
        sub = everything[everything["truth"].isin(VOTES)]
        valid = sub[sub["vote"].notna()]
        per_repeat = [_f1(g, "answer") for _, g in sub.groupby("repeat")]
        n, n_invalid, n_error = (
            len(sub),
            int(sub["answer"].eq(INVALID).sum()),
            int(sub["answer"].eq(ERROR).sum()),
        )
        rows.append(
            {
                "persona": persona,
                "weighted_f1": _mean(per_repeat),
                "invalid_rate": _rate(n_invalid, n),
                "error_rate": _rate(n_error, n),
                "weighted_f1_sd": float(np.nanstd(per_repeat, ddof=1))
                if len(per_repeat) > 1
                else float("nan"),
                "pooled_weighted_f1": _f1(sub, "answer"),
                "weighted_f1_valid_only": _mean([_f1(g, "vote") for _, g in valid.groupby("repeat")]),
                "n_repeats": len(per_repeat),
                "n_drafts": sub["item"].nunique(),
                "n_questions": n,
                "n_valid": len(valid),
                "n_invalid": n_invalid,
                "n_error": n_error,
                "n_unscored": len(everything) - n,
            }
        )
    return pd.DataFrame(rows, columns=WEIGHTED_F1_COLUMNS)  # its columns even with no persona


WEIGHTED_F1_COLUMNS = [
    "persona",
    "weighted_f1",
    "invalid_rate",
    "error_rate",
    "weighted_f1_sd",
    "pooled_weighted_f1",
    "weighted_f1_valid_only",
    "n_repeats",
    "n_drafts",
    "n_questions",
    "n_valid",
    "n_invalid",
    "n_error",
    "n_unscored",
]


def confusion_table(samples: pd.DataFrame) -> pd.DataFrame:
    """Confusion counts pooled over repeats, long form: persona, truth, predicted, count.

    Every scored question is in it: ``predicted`` is a vote or a miss (``invalid``, ``error``).
    """
    votes = vote_frame(samples)
    votes = votes[votes["truth"].isin(VOTES)]
    rows = []
    for persona in persona_order(votes["persona"].unique()):
        sub = votes[votes["persona"].eq(persona)]
        for truth in VOTES:
            for pred in [*VOTES, *MISSES]:
                count = int((sub["truth"].eq(truth) & sub["answer"].eq(pred)).sum())
                rows.append({"persona": persona, "truth": truth, "predicted": pred, "count": count})
    return pd.DataFrame(rows, columns=["persona", "truth", "predicted", "count"])


def confusion_matrices(samples: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """One truth × predicted matrix per persona (predicted: the votes, then invalid and error)."""
    long = confusion_table(samples)
    return {
        str(persona): g.pivot(index="truth", columns="predicted", values="count").reindex(
            index=list(VOTES), columns=[*VOTES, *MISSES]
        )
        for persona, g in long.groupby("persona", sort=False)
    }


SIDE_COLUMNS = ("invalid_rate", "error_rate", "weighted_f1_valid_only")


def debias_table(base: pd.DataFrame, debiased: pd.DataFrame) -> pd.DataFrame:
    """Table 3: weighted F1 per persona (every question), base vs debiased, and the delta.

    Invalid and error rates of both runs stand beside; ``delta_valid_only`` is the valid-only delta.
    """
    a = weighted_f1_table(base).set_index("persona")
    b = weighted_f1_table(debiased).set_index("persona")
    personas = persona_order(list(set(a.index) | set(b.index)))
    a, b = a.reindex(personas), b.reindex(personas)
    out = pd.DataFrame({"persona": personas, "base": a["weighted_f1"].to_numpy()})
    out["debiased"] = b["weighted_f1"].to_numpy()
    out["delta"] = out["debiased"] - out["base"]
    for column in SIDE_COLUMNS:
        out[f"base_{column}"] = a[column].to_numpy()
        out[f"debiased_{column}"] = b[column].to_numpy()
    out["delta_valid_only"] = out["debiased_weighted_f1_valid_only"] - out["base_weighted_f1_valid_only"]
    return out


def ablation_table(runs: Sequence[tuple[dict[str, Any], pd.DataFrame]], *, ablated: str) -> pd.DataFrame:
    """Table 4: one row per (model, k, reflexion, retriever) cell, mean weighted F1 over personas.

    The score counts every question (invalid = miss); the mean invalid/error rates and the
    valid-only score stand beside it. A run of the ``ablated`` test (the debiased vote) is a cell of the
    framework; any other (the plain vote) is the framework-free cell (k = 0, no reflexion, no retriever).
    """
    values = ["mean_weighted_f1", *(f"mean_{c}" for c in SIDE_COLUMNS)]
    rows = []
    for config, samples in runs:
        options = config.get("options") or {}
        framework = config.get("test") == ablated
        table = weighted_f1_table(samples)
        means = {
            f"mean_{c}": float(table[c].mean()) if len(table) else float("nan")
            for c in ("weighted_f1", *SIDE_COLUMNS)
        }
        rows.append(
            {
                "model": config.get("model"),
                "k": int(options.get("k", 0)) if framework else 0,
                "reflexion": bool(options.get("reflexion", False)) if framework else False,
                "retriever": str(options.get("retriever", "")) if framework else "none",
                **means,
            }
        )
    keys = ["model", "k", "reflexion", "retriever"]
    frame = pd.DataFrame(rows, columns=[*keys, *values])
    grouped = frame.groupby(keys, dropna=False, sort=True)
    out = grouped[values].mean()
    out["n_runs"] = grouped.size()
    return out.reset_index()


def missing_contexts(samples: pd.DataFrame) -> pd.DataFrame:
    """Per persona: drafts/samples whose prompt fell back to no context, samples shown the corpus's
    draft text or the UN's own text (``--texts``), and empty debias histories."""
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
                "un_text_samples": int(sub["context_kind"].eq("un_text").sum()),
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


def labeller_counts(samples: pd.DataFrame, *, by: pd.Series | str) -> pd.DataFrame:
    """Per group: how many labels came from the rules and how many from the LLM judge."""
    key = samples[by] if isinstance(by, str) else by
    labeller = samples["extra"].map(lambda e: _get(e, "labeller") or "none")
    table = pd.crosstab(key, labeller).reindex(columns=["rules", "judge", "none"], fill_value=0)
    table.columns.name = None
    table.index.name = by if isinstance(by, str) else str(by.name or "group")
    return table.reset_index()
