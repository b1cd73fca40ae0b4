"""Bias read as a gap between groups of members: the P5, the UN regional groups, or a user's CSV.

For each baseline (or model) and group, the score of the group's votes, the score of everyone
else's on the same items, and the gap with a 95% interval from a paired bootstrap over items (an
item's votes stay together, so the gap's interval reflects that the groups vote on the same texts).
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from nationbias.evals.stats.bootstrap import bootstrap_cis, per_item_confusion
from nationbias.evals.stats.metrics import MISSES, weighted_f1_from_confusions
from nationbias.stores.domain import P5, VOTES
from nationbias.stores.errors import InputError

BUILT_IN = ("regions", "p5")
REST = "rest"


def load_groups(spec: str, members: Iterable[str]) -> dict[str, str]:
    """member → group for ``members``: ``regions`` (UN regional groups), ``p5`` (the P5 and the rest), or
    a CSV file with the columns ``code`` (ISO3) and ``group``. Members it does not name have no group."""
    wanted = set(members)
    if spec == "regions":
        from nationbias.stores.corpora.regions import regional_group

        return {m: g for m in wanted if (g := regional_group(m)) is not None}
    if spec == "p5":
        return {m: "P5" for m in wanted if m in P5}
    return _read_csv(Path(spec), wanted)


def _read_csv(path: Path, wanted: set[str]) -> dict[str, str]:
    if not path.is_file():
        raise InputError(f"--groups {path}: no such file; give regions, p5, or a CSV with columns code,group")
    with path.open(newline="", encoding="utf-8-sig") as handle:
        reader = csv.DictReader(handle)
        missing = {"code", "group"} - set(reader.fieldnames or [])
        if missing:
            raise InputError(
                f"--groups {path}: missing column(s) {', '.join(sorted(missing))} (need code,group)"
            )
        groups, unknown = {}, []
        for line, row in enumerate(reader, start=2):
            code, group = (row["code"] or "").strip().upper(), (row["group"] or "").strip()
            if not code or not group:
                raise InputError(f"--groups {path}, line {line}: empty code or group")
            if code not in wanted:
                unknown.append(f"{code} (line {line})")
            groups[code] = group
    if unknown:
        raise InputError(f"--groups {path}: code(s) that cast no vote here: {', '.join(unknown[:10])}")
    return groups


def _aligned(frame: pd.DataFrame, items: list[object]) -> np.ndarray:
    """Per-item truth × prediction counts of ``frame`` on ``items`` (zeros where it has no vote); a model's
    invalid or errored answer is a miss column: it counts in the support, never as a vote."""
    out = np.zeros((len(items), len(VOTES), len(VOTES) + len(MISSES)))
    if len(frame):
        found, counts = per_item_confusion(
            frame, item_col="item_id", truth_col="truth", pred_col="predicted", labels=VOTES, misses=MISSES
        )
        position = {item: i for i, item in enumerate(items)}
        out[[position[i] for i in found]] = counts
    return out


def _accuracies(confusions: np.ndarray) -> np.ndarray:
    """Accuracy over the last two axes of a stack of confusion matrices (NaN where empty)."""
    total = confusions.sum(axis=(-2, -1))
    hits = np.trace(confusions, axis1=-2, axis2=-1)
    return np.divide(hits, total, out=np.full_like(hits, np.nan, dtype=float), where=total > 0)


def _scores(pairs: np.ndarray) -> np.ndarray:
    """(B, 4): accuracy and weighted F1 of the group and of the rest, per batch of (items, 2, K, K)."""
    both = pairs.sum(axis=1)
    accuracy, f1 = _accuracies(both), weighted_f1_from_confusions(both)
    return np.column_stack([accuracy[:, 0], accuracy[:, 1], f1[:, 0], f1[:, 1]])


def group_gaps(
    predictions: pd.DataFrame, groups: dict[str, str], *, n_resamples: int = 2000, seed: int = 0
) -> pd.DataFrame:
    """One row per baseline × group: votes, accuracy and weighted F1 of the group and of the rest, and
    each gap (group − rest) with its 95% paired-bootstrap interval over items."""
    if not groups:
        raise InputError("--groups: no member of these predictions belongs to any group")
    rows = []
    for baseline, frame in predictions.groupby("baseline", sort=False):
        items = sorted(frame["item_id"].unique().tolist())
        labels = frame["member"].map(groups)
        for group in sorted(set(groups.values())):
            inside = frame[labels.eq(group)]
            if inside.empty:
                continue
            pair = np.stack([_aligned(inside, items), _aligned(frame[~labels.eq(group)], items)], axis=1)
            total = _scores(pair[None])[0]
            row: dict[str, object] = {"baseline": baseline, "group": group, "votes": len(inside),
                                      "members": inside["member"].nunique()}  # fmt: skip

            def gaps(batch: np.ndarray) -> np.ndarray:
                scores = _scores(batch)
                return np.column_stack([scores[:, 0] - scores[:, 1], scores[:, 2] - scores[:, 3]])

            cis = bootstrap_cis(pair, gaps, n_resamples=n_resamples, seed=seed)
            for j, (name, ci) in enumerate(zip(("accuracy", "weighted_f1"), cis, strict=True)):
                row |= {name: total[2 * j], f"{name}_{REST}": total[2 * j + 1]}
                row |= {f"{name}_gap": ci.point, f"{name}_gap_low": ci.low, f"{name}_gap_high": ci.high}
            rows.append(row)
    return pd.DataFrame(rows)
