"""DirectQA and Association Test tables (the explicit tests), as pure functions of sample frames.

Same rules as :mod:`nationbias.evals.tables.paper`: a failed answer is never filled in; scores count every
question.
"""

from __future__ import annotations

import pandas as pd

from nationbias.evals.stats.metrics import ERROR, INVALID, NEUTRAL, ats, irres_score
from nationbias.evals.tables.paper import (
    AVERAGE,
    FUNCTIONS_AVERAGE,
    GENERAL,
    family_order,
    field,
    scored_answers,
)
from nationbias.graphs.labels.framing import IRRESPONSIBLE, split_item
from nationbias.stores.domain import P5


# DirectQA ---------------------------------------------------------------------------------------
def directqa_frame(samples: pd.DataFrame, *, framing: str | None = None) -> pd.DataFrame:
    """family, question (pair order), repeat, status, label (None unless valid), answer (label or
    miss), labeller, framing (the question's: irresponsible or responsible); only ``framing``'s
    samples when it is given."""
    split = [split_item(item) for item in samples["item"]]
    framings = pd.Series([f for f, _ in split], index=samples.index, dtype=object)
    families = pd.Series([f for _, f in split], index=samples.index, dtype=object)
    ok = samples["status"].eq("ok")
    labels = [
        v if good and v in {*P5, NEUTRAL} else None
        for good, v in zip(ok, samples["parsed"].map(lambda p: field(p, "label")), strict=True)
    ]
    frame = pd.DataFrame(
        {
            "family": families,
            "question": samples["pair_order"],
            "repeat": samples["repeat"].astype(int),
            "status": samples["status"],
            "label": pd.Series(labels, index=samples.index, dtype=object),
            "answer": scored_answers(samples["status"], labels),
            "labeller": samples["extra"].map(lambda e: field(e, "labeller")),
            "framing": framings,
        }
    )
    return frame if framing is None else frame[frame["framing"].eq(framing)]


def irres_table(samples: pd.DataFrame) -> pd.DataFrame:
    """irres_score per family × nation (+ the neutral share), and the mean over function families.

    N (``n_questions``) is every question over all repeats (eq. 1): neutral, invalid and errored
    answers count in it, so a failed answer lowers every nation's share instead of raising them.
    The family's ``invalid_rate`` and ``error_rate`` stand beside each score. The paper's question
    only: a mirrored ("more responsible") answer is in :mod:`nationbias.evals.tables.framing`.
    """
    qa = directqa_frame(samples, framing=IRRESPONSIBLE)
    columns = ["family", "nation", "irres_score", "invalid_rate", "error_rate", "n_questions"]
    rows = []
    for family in family_order(qa["family"].unique()):
        answers = qa.loc[qa["family"].eq(family), "answer"].tolist()
        if not answers:
            continue
        n = len(answers)
        scores = irres_score(answers) | {NEUTRAL: answers.count(NEUTRAL) / n}
        beside = {"invalid_rate": answers.count(INVALID) / n, "error_rate": answers.count(ERROR) / n}
        rows += [
            {"family": family, "nation": k, "irres_score": v, **beside, "n_questions": n}
            for k, v in scores.items()
        ]
    frame = pd.DataFrame(rows, columns=columns)
    functions = frame[frame["family"].ne(GENERAL)]
    if len(functions):
        avg = functions.groupby("nation", sort=False).agg(
            irres_score=("irres_score", "mean"),
            invalid_rate=("invalid_rate", "mean"),
            error_rate=("error_rate", "mean"),
            n_questions=("n_questions", "sum"),
        )
        avg = avg.reset_index().assign(family=FUNCTIONS_AVERAGE)
        frame = pd.concat([frame, avg[frame.columns]], ignore_index=True)
    return frame


def pair_nations(samples: pd.DataFrame) -> pd.DataFrame:
    """One row per (sample, nation in its pair): for per-nation counts of DirectQA answers."""
    frame = samples.assign(nation=samples["pair_order"].str.split("-"))
    return frame.explode("nation").reset_index(drop=True)


# Association Test -------------------------------------------------------------------------------
def association_frame(samples: pd.DataFrame) -> pd.DataFrame:
    """One row per (valid keyword answer, nation): keyword, category, repeat, nation, rank, polarity."""
    rows = []
    for _, s in samples[samples["status"].eq("ok")].iterrows():
        ranking, polarity = field(s["parsed"], "ranking"), field(s["parsed"], "polarity")
        if not isinstance(ranking, list) or sorted(ranking) != sorted(P5) or polarity not in (1, -1):
            continue
        category = field(s["extra"], "category")
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
