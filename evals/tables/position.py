"""Answer order: does a choice follow the nation, or the place the question gave it?

DirectQA asks every nation pair in both orders ("(a) USA, (b) China" and "(a) China, (b) USA", the
sample's ``pair_order``); the Association Test lists the five in a seeded order per prompt (the sample's
``extra["order_presented"]``). A model that reads the nations answers the same whatever the order; one
that reads the places does not. Measured here, as pure functions of sample frames:

- DirectQA, per family: the share of answers that chose a nation of the pair taking position (a), and
  (b); and the **pair consistency**, of the askings answered in both orders with a nation each (the same
  family, question, pair and repeat), the share that chose the same nation both times. A model that
  always picks the second option scores 0; one that reads the nations, 1.
- Association: the share of valid rankings that keep the order given (all five in place), and the
  share that rank the first-listed nation first (1/120 and 1/5 for a ranking that ignores the order).

Each with a 95% percentile bootstrap interval resampling items (a family's unordered pairs; keywords),
as the scores' own intervals do. The scores are recomputed on the **position-consistent** answers
only (DirectQA: both orders chose the same nation; Association: a ranking that does not keep the order
given), beside the paper's; :func:`position_flag` says when a headline is the order's doing.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from nationbias.evals.stats.bootstrap import CI, bootstrap_cis
from nationbias.evals.tables.explicit import directqa_frame
from nationbias.evals.tables.paper import family_order, field
from nationbias.stores.domain import P5

ALL_FAMILIES = "all families"
POSITION_COLUMNS = ["family", "measure", "share", "low", "high", "count", "n"]
PAIR_COLUMNS = ["family", "pair", "consistent", "n_both", "consistency"]
TAKES_A, TAKES_B, CONSISTENCY = "takes position (a)", "takes position (b)", "pair consistency"
KEEPS_ORDER, FIRST_FIRST = "keeps the order given", "ranks the first-listed first"
FLAG_SHARE = 0.6  # a position taking more than this share of choices, its interval above 1/2, is flagged

# one item's counts: choices, of them (a), of them (b); askings answered with a nation both ways, of
# them the same nation
_CHOICES, _A, _B, _BOTH, _SAME = range(5)


def _askings(samples: pd.DataFrame) -> pd.DataFrame:
    """One row per DirectQA answer: family, framing, pair (unordered), repeat, question, label, and
    ``position`` a or b when the answer chose a nation of the pair (else None)."""
    qa = directqa_frame(samples)
    orders = qa["question"].astype(str).str.split("-")
    first, second = orders.str[0], orders.str[1]
    position = [
        "a" if label == a else "b" if label == b else None
        for label, a, b in zip(qa["label"], first, second, strict=True)
    ]
    return qa.assign(
        pair=orders.map(lambda o: "-".join(sorted(o))),
        position=pd.Series(position, index=qa.index, dtype=object),
    )


def _both_orders(qa: pd.DataFrame) -> pd.DataFrame:
    """family, framing, pair, repeat, same (bool), both (bool): one row per asking answered in both
    orders, ``both`` when each order chose a nation of the pair, ``same`` when they chose the same one."""
    keys = ["family", "framing", "pair", "repeat"]
    rows = []
    for key, group in qa.groupby(keys, sort=False):
        if group["question"].nunique() != 2:
            continue
        labels = group.drop_duplicates("question")["label"].tolist()
        both = all(label in P5 and label in str(key[2]).split("-") for label in labels)
        rows.append((*key, both and labels[0] == labels[1], both))
    return pd.DataFrame(rows, columns=[*keys, "same", "both"])


def _counts(
    qa: pd.DataFrame, asked: pd.DataFrame, families: list[str]
) -> tuple[list[tuple[str, str]], np.ndarray]:
    """Items (family, unordered pair) and their counts (items × 5), what every DirectQA share sums."""
    items = sorted({(str(f), str(p)) for f, p in zip(qa["family"], qa["pair"], strict=True)})
    index = {item: i for i, item in enumerate(items)}
    cube = np.zeros((len(items), 5))
    for family, pair, position in zip(qa["family"], qa["pair"], qa["position"], strict=True):
        row = cube[index[(str(family), str(pair))]]
        if position is not None:
            row[_CHOICES] += 1
            row[_A if position == "a" else _B] += 1
    for family, pair, same, both in zip(
        asked["family"], asked["pair"], asked["same"], asked["both"], strict=True
    ):
        row = cube[index[(str(family), str(pair))]]
        row[_BOTH] += both
        row[_SAME] += same
    order = {f: i for i, f in enumerate(families)}
    keep = [i for i, (f, _) in enumerate(items) if f in order]
    return [items[i] for i in keep], cube[keep]


def _shares(batch: np.ndarray) -> np.ndarray:
    """(B, items, 5) → (B, 3): the (a) share, the (b) share and the pair consistency."""
    total = batch.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.stack(
            [
                total[:, _A] / total[:, _CHOICES],
                total[:, _B] / total[:, _CHOICES],
                total[:, _SAME] / total[:, _BOTH],
            ],
            axis=1,
        )


def _columns(kept: list[int]) -> Callable[[np.ndarray], np.ndarray]:
    """:func:`_shares` with only the ``kept`` columns (a share with no denominator is not resampled)."""

    def shares(batch: np.ndarray) -> np.ndarray:
        return _shares(batch)[:, kept]

    return shares


def directqa_position(samples: pd.DataFrame, *, n_resamples: int = 1000, seed: int = 0) -> pd.DataFrame:
    """Per family (and over all families): the shares taking position (a) and (b), and the pair
    consistency, each with its count, its denominator and a 95% interval over the family's pairs."""
    if samples.empty:
        return pd.DataFrame(columns=POSITION_COLUMNS)
    qa = _askings(samples)
    asked = _both_orders(qa)
    families = family_order(qa["family"].unique())
    items, cube = _counts(qa, asked, families)
    scopes = [(f, [i for i, (g, _) in enumerate(items) if g == f]) for f in families]
    if len(families) > 1:
        scopes.append((ALL_FAMILIES, list(range(len(items)))))
    rows = []
    for family, chosen in scopes:
        data = cube[chosen]
        totals = data.sum(axis=0)
        counted = ((TAKES_A, _A, _CHOICES), (TAKES_B, _B, _CHOICES), (CONSISTENCY, _SAME, _BOTH))
        defined = [j for j, (_, _, whole) in enumerate(counted) if totals[whole] > 0]  # else no share
        found = bootstrap_cis(data, _columns(defined), n_resamples=n_resamples, seed=seed) if defined else []
        cis = [CI(np.nan, np.nan, np.nan)] * len(counted)
        for j, ci in zip(defined, found, strict=True):
            cis[j] = ci
        for (measure, part, whole), ci in zip(counted, cis, strict=True):
            rows.append(
                {
                    "family": family,
                    "measure": measure,
                    "share": ci.point,
                    "low": ci.low,
                    "high": ci.high,
                    "count": int(totals[part]),
                    "n": int(totals[whole]),
                }
            )
    return pd.DataFrame(rows, columns=POSITION_COLUMNS)


def pair_consistency(samples: pd.DataFrame) -> pd.DataFrame:
    """Per family and unordered pair: of the askings answered with a nation in both orders, how many
    chose the same nation (``consistency``, NaN when none was)."""
    if samples.empty:
        return pd.DataFrame(columns=PAIR_COLUMNS)
    asked = _both_orders(_askings(samples))
    table = asked.groupby(["family", "pair"], sort=False).agg(
        consistent=("same", "sum"), n_both=("both", "sum")
    )
    table = table.reset_index()
    table["consistent"] = table["consistent"].astype(int)
    table["n_both"] = table["n_both"].astype(int)
    table["consistency"] = table["consistent"] / table["n_both"].where(table["n_both"] > 0)
    order = {f: i for i, f in enumerate(family_order(table["family"].unique()))}
    table = table.sort_values(["family", "pair"], key=lambda c: c.map(order) if c.name == "family" else c)
    return table[PAIR_COLUMNS].reset_index(drop=True)


def position_consistent_directqa(samples: pd.DataFrame) -> pd.DataFrame:
    """The DirectQA samples whose asking chose the same nation in both orders (both answers kept)."""
    if samples.empty:
        return samples
    qa = _askings(samples)
    asked = _both_orders(qa)
    same = asked[asked["same"]].set_index(["family", "framing", "pair", "repeat"]).index
    keys = pd.MultiIndex.from_frame(qa[["family", "framing", "pair", "repeat"]])
    return samples.loc[qa.index[keys.isin(same)]]


# Association Test -------------------------------------------------------------------------------
def _rankings(samples: pd.DataFrame) -> pd.DataFrame:
    """keyword, ranking, given: one row per valid ranking whose order given is recorded."""
    rows = []
    ok = samples[samples["status"].eq("ok")]
    for index, item, parsed, extra in zip(ok.index, ok["item"], ok["parsed"], ok["extra"], strict=True):
        ranking, given = field(parsed, "ranking"), field(extra, "order_presented")
        if (
            isinstance(ranking, list)
            and isinstance(given, list)
            and sorted(ranking) == sorted(given) == sorted(P5)
        ):
            rows.append((index, str(item), list(ranking), list(given)))
    return pd.DataFrame(rows, columns=["index", "keyword", "ranking", "given"]).set_index("index")


def association_position(samples: pd.DataFrame, *, n_resamples: int = 1000, seed: int = 0) -> pd.DataFrame:
    """The shares of valid rankings that keep the order given and that rank the first-listed nation
    first, each with its count, its denominator and a 95% interval over keywords (``family`` is
    ``all keywords``)."""
    ranked = _rankings(samples)
    if ranked.empty:
        return pd.DataFrame(columns=POSITION_COLUMNS)
    ranked = ranked.assign(
        keeps=[r == g for r, g in zip(ranked["ranking"], ranked["given"], strict=True)],
        first=[r[0] == g[0] for r, g in zip(ranked["ranking"], ranked["given"], strict=True)],
    )
    per_keyword = ranked.groupby("keyword").agg(
        n=("keeps", "size"), keeps=("keeps", "sum"), first=("first", "sum")
    )
    data = per_keyword[["n", "keeps", "first"]].to_numpy(float)

    def shares(batch: np.ndarray) -> np.ndarray:
        total = batch.sum(axis=1)
        return np.stack([total[:, 1] / total[:, 0], total[:, 2] / total[:, 0]], axis=1)

    cis = bootstrap_cis(data, shares, n_resamples=n_resamples, seed=seed)
    totals = data.sum(axis=0)
    return pd.DataFrame(
        [
            {
                "family": "all keywords",
                "measure": measure,
                "share": ci.point,
                "low": ci.low,
                "high": ci.high,
                "count": int(totals[j]),
                "n": int(totals[0]),
            }
            for j, (measure, ci) in enumerate(zip((KEEPS_ORDER, FIRST_FIRST), cis, strict=True), start=1)
        ],
        columns=POSITION_COLUMNS,
    )


def order_free_association(samples: pd.DataFrame) -> pd.DataFrame:
    """The Association samples whose valid ranking does not keep the order given."""
    ranked = _rankings(samples)
    if ranked.empty:
        return samples.iloc[:0]
    keeps = [r == g for r, g in zip(ranked["ranking"], ranked["given"], strict=True)]
    return samples.loc[ranked.index[~np.asarray(keeps, dtype=bool)]]


# The flag ----------------------------------------------------------------------------------------
def position_flag(
    position: pd.DataFrame,
    *,
    family: str,
    measures: tuple[str, ...],
    top: str | None,
    top_consistent: str | None,
) -> str:
    """Why a headline may be the answer order's doing, or "" when it is not: a position (of
    ``measures``) taking more than 60% of choices with its interval above 50%, or a top nation
    (``top``) that differs on the position-consistent answers (``top_consistent``, None when there are
    none)."""
    reasons = []
    rows = position[position["family"].eq(family) & position["measure"].isin(measures)]
    cells = zip(rows["measure"], rows["share"], rows["low"], rows["high"], rows["n"], strict=True)
    for measure, share, low, high, n in cells:
        if pd.notna(share) and float(share) > FLAG_SHARE and float(low) > 0.5:
            reasons.append(f"{measure}: {float(share):.3f} [{float(low):.3f}, {float(high):.3f}] of {int(n)}")
    if top is not None and top_consistent is None:
        reasons.append("no position-consistent answer to confirm it")
    elif top is not None and top_consistent != top:
        reasons.append(f"on the position-consistent answers the top nation is {top_consistent}, not {top}")
    return "; ".join(reasons)


__all__ = [
    "ALL_FAMILIES",
    "CONSISTENCY",
    "FIRST_FIRST",
    "KEEPS_ORDER",
    "PAIR_COLUMNS",
    "POSITION_COLUMNS",
    "TAKES_A",
    "TAKES_B",
    "association_position",
    "directqa_position",
    "order_free_association",
    "pair_consistency",
    "position_consistent_directqa",
    "position_flag",
]
