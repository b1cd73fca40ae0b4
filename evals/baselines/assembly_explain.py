"""Why the Assembly's learned baseline predicted each vote: its precedents and exact contributions.

For a (roll call, state) pair the model of the roll call's year (fitted on earlier years only) gives
three class scores; LightGBM's TreeSHAP contributions (``pred_contrib``) split each score into one part
per feature plus the expected score (the "intercept"), and they add up to it exactly. The precedents are
the earlier roll calls the features read: the latest and second-latest with the same title, and the
most similar ones by text, each with the state's vote there. Everything is dated before the roll call.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import cache
from typing import Any

import numpy as np
import pandas as pd

from nationbias.evals.baselines.assembly import Fits, assembly_predictions, prepared_features
from nationbias.evals.baselines.assembly_features import CODES, Matrix, links, texts_of
from nationbias.stores.corpora.unga import Assembly, load_assembly
from nationbias.stores.domain import VOTE_CODES
from nationbias.stores.errors import InputError

LABELS = [VOTE_CODES[c] for c in CODES]  # favour, against, abstention: the model's class order


@cache
def _links(assembly: Assembly) -> tuple[Matrix, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each roll call's same-title precedents and text neighbours (the rows the features read)."""
    m, _, _ = prepared_features(assembly)
    return (m, *links(m, texts_of(assembly)))


@cache
def _titles(assembly: Assembly) -> np.ndarray:
    """The roll calls' titles by row, as an array (read once per precedent of every explained vote)."""
    return assembly.roll_calls["title"].to_numpy()


def _precedents(assembly: Assembly, row: int, col: int) -> list[dict[str, Any]]:
    m, latest, second, near, sim = _links(assembly)
    found: list[tuple[int, str, int, float | None]] = [
        (int(latest[row]), "same title (latest)", 1, None),
        (int(second[row]), "same title (second)", 2, None),
    ]
    pairs = enumerate(zip(near[row], sim[row], strict=True))
    found += [(int(n), "similar text", i + 1, float(s)) for i, (n, s) in pairs]
    titles = _titles(assembly)
    out = []
    for index, pool, rank, score in found:
        if index < 0:
            continue
        code = int(m.votes[index, col])
        out.append({
            "id": f"UNGA-{int(m.rcids[index])}", "date": str(m.dates[index]), "pool": pool, "rank": rank,
            "score": score, "reason": str(titles[index]) or "(no title)",
            "vote": VOTE_CODES[CODES[code - 1]] if code else None,
        })  # fmt: skip
    return out


def explain_assembly(
    *,
    items: Sequence[str],
    personas: Sequence[str],
    assembly: Assembly | None = None,
) -> list[dict[str, Any]]:
    """One JSON-able account per (roll call ``UNGA-<rcid>``, state) the model predicted: the same models
    as :func:`nationbias.evals.baselines.assembly.run_predictions` (trained on the same states), so the same
    votes."""
    assembly = assembly or load_assembly()
    rcids = sorted({int(i.removeprefix("UNGA-")) for i in items if i.startswith("UNGA-")})
    if not rcids:
        raise InputError("Assembly explanations: no roll call (ids like UNGA-5221)")
    voters = set(assembly.votes["member"].unique())  # not 870,000 boxed strings one by one
    members = sorted(set(personas) & voters)
    years = assembly.roll_calls.loc[rcids, "date"].dt.year
    fits: Fits = {}
    predicted = assembly_predictions(
        years=(int(years.min()), int(years.max())), methods=("model",), members=members,
        assembly=assembly, within=set(years), fits=fits,
    )  # fmt: skip
    predicted = predicted[predicted["item_id"].isin(rcids)].reset_index(drop=True)
    m, meta, x = prepared_features(assembly)
    key = pd.MultiIndex.from_arrays([m.rcids[meta["row"]], m.members[meta["col"]]])
    where = key.get_indexer(pd.MultiIndex.from_arrays([predicted["item_id"], predicted["member"]]))
    out: list[dict[str, Any]] = []
    year_of = predicted["date"].dt.year.to_numpy()
    for year in sorted(set(year_of.tolist())):
        rows = np.flatnonzero(year_of == year)
        out += _explained(assembly, predicted.iloc[rows], where[rows], x, meta, fits.get(int(year)))
    return out


def _explained(
    assembly: Assembly,
    predicted: pd.DataFrame,
    positions: np.ndarray,
    x: pd.DataFrame,
    meta: pd.DataFrame,
    booster: Any,
) -> list[dict[str, Any]]:
    """The accounts of one year's predictions (one model)."""
    names = list(x.columns)
    features = x.iloc[positions]
    if booster is not None:
        contrib = booster.predict(features, pred_contrib=True).reshape(len(features), 3, len(names) + 1)
        raw = booster.predict(features, raw_score=True)
        proba = booster.predict(features)
    out = []
    records: list[dict[str, Any]] = [{str(k): v for k, v in r.items()} for r in predicted.to_dict("records")]
    # arrays, not a pandas lookup per vote (a year of the Assembly explains thousands)
    cells = zip(
        meta["row"].to_numpy()[positions].tolist(), meta["col"].to_numpy()[positions].tolist(), strict=True
    )
    values_of = features.to_numpy(dtype=float)
    for i, (row, cell) in enumerate(zip(records, cells, strict=True)):
        e: dict[str, Any] = {
            "item": f"UNGA-{row['item_id']}", "member": row["member"], "date": row["date"].date().isoformat(),
            "predicted": row["predicted"], "truth": row["truth"], "model": "LightGBM, 80 trees a class",
            "precedents": _precedents(assembly, *cell),
        }  # fmt: skip
        if booster is None:
            why = "fewer than two kinds of vote in the training window: the same-title rule predicted"
            out.append({**e, "constant": why, "probabilities": {}, "scored_class": None, "score": None,
                        "intercept": None, "contributions": []})  # fmt: skip
            continue
        c = LABELS.index(row["predicted"])
        values = values_of[i]
        parts = [
            {"feature": n, "value": float(v), "contribution": float(p)}
            for n, v, p in zip(names, values, contrib[i, c, :-1], strict=True)
        ]
        out.append({
            **e, "constant": None, "probabilities": dict(zip(LABELS, map(float, proba[i]), strict=True)),
            "scores": dict(zip(LABELS, map(float, raw[i]), strict=True)), "scored_class": row["predicted"],
            "score": float(raw[i, c]), "intercept": float(contrib[i, c, -1]), "contributions": parts,
        })  # fmt: skip
    return out


def explain_years(years: tuple[int, int], *, assembly: Assembly | None = None) -> Iterator[dict[str, Any]]:
    """Every recorded vote of ``years`` explained, a year at a time (one model each), every state."""
    assembly = assembly or load_assembly()
    calls = assembly.roll_calls
    states = sorted(set(assembly.votes["member"].unique()))
    for year in range(years[0], years[1] + 1):
        rcids = calls.index[calls["date"].dt.year == year]
        if len(rcids):
            items = [f"UNGA-{r}" for r in rcids]
            yield from explain_assembly(items=items, personas=states, assembly=assembly)
