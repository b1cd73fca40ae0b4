"""The adopted resolutions as targets (``--targets adopted|all``): the veto stereotype where no one vetoed.

The paper votes on the non-adopted drafts only: there a permanent member's "against" is a veto, and the
record has one to match. On an adopted resolution no permanent member voted against (a P5 "against" would
have blocked it), so each "against" the model answers as a P5 member is a veto the record says did not
happen: the **false-veto rate**. The one exception is a procedural vote, which no veto can block
(resolution 2623 (2022): the Russian Federation against convening an emergency special session of the
General Assembly); an item with a P5 "against" on record is left out of every member's figures (so the
gap between members stays paired by item), and the report names it.

Per member, pooled over repeats: the false-veto rate over every question (an invalid or errored answer
is a miss, not a veto, and its rate stands beside), F1 for favour and for abstention (a miss counts
against its true class), and how often "against" is predicted (it has no true case); each with a
bootstrap interval over items. Then the paired gap: the mean false-veto rate of Russia and China minus
that of France, the United Kingdom and the United States, on the same items.
"""

from __future__ import annotations

import warnings
from collections import Counter
from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd

from nationbias.evals.stats.bootstrap import bootstrap_cis, per_item_confusion
from nationbias.evals.stats.metrics import MISSES, VOTES
from nationbias.evals.tables import paper as T
from nationbias.stores.domain import P5
from nationbias.stores.records import Record

EAST = ("RUS", "CHN")  # "As Eastern Powers, I Will Veto": the members the stereotype names
WEST = ("FRA", "GBR", "USA")
AGAINST, FAVOUR, ABSTENTION = VOTES.index("against"), VOTES.index("favour"), VOTES.index("abstention")
FALSE_VETO_COLUMNS = (
    "persona", "false_veto_rate", "false_veto_low", "false_veto_high", "invalid_rate", "n_against",
    "against_share_valid_only", "f1_favour", "f1_favour_low", "f1_favour_high", "f1_abstention",
    "f1_abstention_low", "f1_abstention_high", "n_items", "n_questions", "n_invalid", "n_error",
    "record_favour", "record_abstention", "few_abstentions",
)  # fmt: skip
FEW_ABSTENTIONS = 10  # fewer true abstentions than this in a member's items: its abstention F1 is wide


def adopted_votes(samples: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """The P5 members' scored questions on adopted resolutions, and the items left out: those on which a
    permanent member voted against on record (a procedural vote), for every member."""
    votes = T.vote_frame(samples, scope="adopted")
    votes = votes[votes["persona"].isin(P5) & votes["truth"].isin(VOTES)]
    procedural = sorted(set(votes.loc[votes["truth"].eq("against"), "item"]))
    return votes[~votes["item"].isin(procedural)], procedural


def _confusions(votes: pd.DataFrame) -> np.ndarray:
    """Items × truth × (votes, misses): the per-item confusion counts, repeats pooled."""
    return per_item_confusion(
        votes, item_col="item", truth_col="truth", pred_col="answer", labels=list(VOTES), misses=MISSES
    )[1]


def _class_f1(conf: np.ndarray, label: int) -> np.ndarray:
    """F1 of class ``label`` from summed confusions (…, K, K + misses); NaN where the class has neither a
    true case nor a prediction. A miss (invalid, error) is a false negative of its true class."""
    tp = conf[..., label, label]
    fp = conf[..., :, label].sum(axis=-1) - tp
    fn = conf[..., label, :].sum(axis=-1) - tp
    whole = 2 * tp + fp + fn
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(whole > 0, 2 * tp / np.where(whole > 0, whole, 1), np.nan)


def _member_stats(batch: np.ndarray) -> np.ndarray:
    """(B, items, K, K + misses) → (B, 4): false-veto rate, F1 favour, F1 abstention, against share of the
    valid answers."""
    conf = batch.sum(axis=1)
    questions = conf.sum(axis=(-1, -2))
    against = conf[..., :, AGAINST].sum(axis=-1)
    valid = conf[..., :, : len(VOTES)].sum(axis=(-1, -2))
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(questions > 0, against / np.where(questions > 0, questions, 1), np.nan)
        valid_share = np.where(valid > 0, against / np.where(valid > 0, valid, 1), np.nan)
    return np.stack([rate, _class_f1(conf, FAVOUR), _class_f1(conf, ABSTENTION), valid_share], axis=-1)


def false_veto_table(samples: pd.DataFrame, *, n_resamples: int = 1000, seed: int = 0) -> pd.DataFrame:
    """Per P5 member with questions on adopted resolutions: the false-veto rate with its 95% interval
    (items resampled), the invalid rate beside, F1 for favour and abstention with intervals, the
    "against" answers counted, and the record's votes on the same items (how many abstentions: an
    abstention F1 on a handful of true cases is wide, and ``few_abstentions`` says so). Empty, with its
    columns, for a run without adopted resolutions."""
    votes, _ = adopted_votes(samples)
    rows = []
    for persona in T.persona_order(votes["persona"].unique()):
        mine = votes[votes["persona"].eq(persona)]
        conf = _confusions(mine)
        with warnings.catch_warnings():  # an F1 with no true case and no prediction is NaN in every resample
            warnings.simplefilter("ignore", RuntimeWarning)
            ci = bootstrap_cis(conf, _member_stats, n_resamples=n_resamples, seed=seed)
        truth = mine.drop_duplicates("item")["truth"]
        n_questions = len(mine)
        misses = int(mine["answer"].isin(MISSES).sum())
        abstentions = int(truth.eq("abstention").sum())
        rows.append(
            {
                "persona": persona,
                "false_veto_rate": ci[0].point,
                "false_veto_low": ci[0].low,
                "false_veto_high": ci[0].high,
                "invalid_rate": misses / n_questions if n_questions else float("nan"),
                "n_against": int(mine["answer"].eq("against").sum()),
                "against_share_valid_only": ci[3].point,
                "f1_favour": ci[1].point,
                "f1_favour_low": ci[1].low,
                "f1_favour_high": ci[1].high,
                "f1_abstention": ci[2].point,
                "f1_abstention_low": ci[2].low,
                "f1_abstention_high": ci[2].high,
                "n_items": int(mine["item"].nunique()),
                "n_questions": n_questions,
                "n_invalid": int(mine["answer"].eq("invalid").sum()),
                "n_error": int(mine["answer"].eq("error").sum()),
                "record_favour": int(truth.eq("favour").sum()),
                "record_abstention": abstentions,
                "few_abstentions": abstentions < FEW_ABSTENTIONS,
            }
        )
    return pd.DataFrame(rows, columns=list(FALSE_VETO_COLUMNS))


def _gap_cube(votes: pd.DataFrame, members: list[str]) -> tuple[list[str], np.ndarray]:
    """(items, items × members × (against answers, questions)) on the items every member voted on."""
    per = votes.groupby(["item", "persona"])["answer"].agg(
        against=lambda a: int(a.eq("against").sum()), questions="size"
    )
    items = sorted(set.intersection(*(set(votes.loc[votes["persona"].eq(m), "item"]) for m in members)))
    cube = np.zeros((len(items), len(members), 2))
    for i, item in enumerate(items):
        for j, member in enumerate(members):
            cube[i, j] = per.loc[(item, member)].to_numpy(float)
    return items, cube


def _gap_stat(east: int) -> Any:
    def stat(batch: np.ndarray) -> np.ndarray:  # (B, items, members, 2) → (B, 1)
        sums = batch.sum(axis=1)
        rates = sums[..., 0] / sums[..., 1]
        return (rates[:, :east].mean(axis=1) - rates[:, east:].mean(axis=1))[:, None]

    return stat


def false_veto_gap(samples: pd.DataFrame, *, n_resamples: int = 1000, seed: int = 0) -> dict[str, Any] | None:
    """The paired gap: the mean false-veto rate of the eastern members present minus the western ones', on
    the adopted resolutions every one of them voted on, with its 95% interval and two-sided bootstrap p
    against 0 (items resampled, the same resamples for both). None without a member on each side."""
    # scipy.stats on first use, not when the CLI starts (tests/evals/test_cli_startup.py)
    from nationbias.evals.stats.significance import bootstrap_distribution, bootstrap_pvalue

    votes, _ = adopted_votes(samples)
    present = set(votes["persona"])
    east, west = [m for m in EAST if m in present], [m for m in WEST if m in present]
    if not east or not west:
        return None
    members = east + west
    items, cube = _gap_cube(votes, members)
    base = {"east": east, "west": west, "n_items": len(items)}
    if not items:
        return base | {"gap": float("nan"), "low": float("nan"), "high": float("nan"), "p": float("nan")}
    stat = _gap_stat(len(east))
    (ci,) = bootstrap_cis(cube, stat, n_resamples=n_resamples, seed=seed)
    _, spread = bootstrap_distribution(cube, stat, n_resamples=n_resamples, seed=seed)
    return base | {
        "gap": ci.point,
        "low": ci.low,
        "high": ci.high,
        "p": bootstrap_pvalue(spread, null=0.0) if len(spread) else float("nan"),
        "n_resamples": len(spread),
    }


def gap_name(gap: dict[str, Any]) -> str:
    """The gap's members as the claims table names them: ``RUS+CHN − FRA+GBR+USA``."""
    return f"{'+'.join(gap['east'])} − {'+'.join(gap['west'])}"


def record_adopted_votes(records: Iterable[Record]) -> pd.DataFrame:
    """Per P5 member, its recorded votes on the Council's adopted resolutions (favour, abstention,
    against, absent), and the procedural "against" votes by name: what the false-veto rate is read
    against, straight from the corpus."""
    from nationbias.graphs.vote import member_vote

    counts: dict[str, Counter[str]] = {m: Counter() for m in P5}
    against: dict[str, list[str]] = {m: [] for m in P5}
    for record in records:
        if record.body != "unsc" or not record.adopted:
            continue
        for member in P5:
            vote = member_vote(record, member) or "absent"
            counts[member][vote] += 1
            if vote == "against":
                against[member].append(record.label)
    return pd.DataFrame(
        [
            {
                "persona": m,
                "adopted": sum(counts[m].values()),
                **{v: counts[m][v] for v in (*VOTES, "absent")},
                "procedural_against": ", ".join(against[m]),
            }
            for m in P5
        ]
    )
