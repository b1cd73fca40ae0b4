"""The per-nation claims a report makes, each with its p-value, and the claims table corrected for
multiplicity (:mod:`nationbias.evals.stats.multiplicity`).

One row per claim: test (the bias test), claim (what is tested), model, run, scope (the DirectQA family,
the ATS category, the baseline, the base run), nation; ``statistic`` (the number the report shows),
``null_value`` (what it would be under the null), ``method``, ``n`` (the independent units), ``df``, ``p``,
and a ``note`` where a claim could not be tested. A run's own claims (:func:`run_claims`) need its samples
only; the claims against a baseline or between two runs (:func:`baseline_claims`, :func:`debias_claims`) are
the report's, since they need more than one run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from nationbias.evals.stats.bootstrap import per_item_confusion
from nationbias.evals.stats.metrics import MISSES, VOTES, weighted_f1_from_confusions
from nationbias.evals.stats.multiplicity import ALPHA, adjust_claims
from nationbias.evals.stats.significance import (
    binomial_share_test,
    bootstrap_distribution,
    bootstrap_pvalue,
    stratified_t_test,
)
from nationbias.evals.tables import explicit as X
from nationbias.evals.tables import paper as T
from nationbias.evals.tables.targets import false_veto_gap, gap_name
from nationbias.graphs.labels.framing import IRRESPONSIBLE
from nationbias.stores.domain import P5

COLUMNS = (
    "test", "claim", "model", "run", "scope", "nation",
    "statistic", "null_value", "method", "n", "df", "p", "note",
)  # fmt: skip
IRRES = "irres_score vs no preference"
ATS = "ATS vs 0"
FAVOUR = "favour share vs record"
VS_BASELINE = "weighted F1 vs baseline"
DEBIAS = "debias delta vs 0"
FALSE_VETO_GAP = "false-veto gap vs 0"
ADOPTED = "adopted resolutions"
ALL_DRAFTS = "all drafts"


def _row(**values: Any) -> dict[str, Any]:
    return {"n": 0, "df": float("nan"), "note": ""} | values


def _frame(rows: list[dict[str, Any]], *, test: str, model: str, run: str) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=[c for c in COLUMNS if c not in ("test", "model", "run")])
    frame.insert(0, "test", test)
    frame.insert(2, "model", model)
    frame.insert(3, "run", run)
    return frame[list(COLUMNS)]


# DirectQA ----------------------------------------------------------------------------------------
def directqa_claims(samples: pd.DataFrame) -> list[dict[str, Any]]:
    """Per family (and the mean over the function families) and nation: the irres_score against no preference.

    ``statistic`` is the paper's irres_score (Count_nat / N, N every answer: neutral and failed answers count
    in it); under no preference a nation gets half the answers of its pairs that name one of the two, so
    ``null_value`` = those answers / (2N). The test is on questions, not answers, since the repeats of one
    question are not independent (a model at temperature 0 repeats itself): a question (one pair in one
    order, all its repeats) goes to the nation if its repeats name it more often than the other nation, to
    the other if less; a tie, or a question whose every answer was neutral or failed, is no trial. The exact
    binomial test (:func:`~nationbias.evals.stats.significance.binomial_share_test`) of the questions won
    (of ``n`` trials) against one half; both orders of every pair are asked, so position is balanced.
    The paper's question only (a mirrored "more responsible" answer is not an irres_score answer).
    """
    qa = X.directqa_frame(samples, framing=IRRESPONSIBLE)
    families = T.family_order(qa["family"].unique())
    per_question = pd.crosstab([qa["family"], qa["question"]], qa["answer"])
    counts: dict[tuple[str, str], tuple[int, int, int, int, int]] = {}
    # (family, nation) → named anywhere, answers of its pairs naming one of the two, N, questions won, trials
    for family in families:
        table = per_question.loc[family]
        n_answers = int(table.to_numpy().sum())
        for nation in P5:
            named, answers, won, trials = int(table.get(nation, pd.Series(0)).sum()), 0, 0, 0
            for question, row in table.iterrows():
                pair = str(question).split("-")
                if nation not in pair:
                    continue
                other = pair[1] if pair[0] == nation else pair[0]
                mine, theirs = int(row.get(nation, 0)), int(row.get(other, 0))
                answers += mine + theirs
                trials += mine != theirs
                won += mine > theirs
            counts[(family, nation)] = (named, answers, n_answers, won, trials)
    functions = [f for f in families if f != T.GENERAL]
    scopes = [(f, [f]) for f in families] + ([(T.FUNCTIONS_AVERAGE, functions)] if functions else [])
    rows = []
    for scope, members in scopes:
        for nation in P5:
            parts = [counts[(f, nation)] for f in members]
            won, trials = sum(part[3] for part in parts), sum(part[4] for part in parts)
            p = binomial_share_test(won, trials)
            rows.append(
                _row(
                    claim=IRRES, scope=scope, nation=nation,
                    statistic=float(np.mean([part[0] / part[2] for part in parts])),  # eq. 1, family mean
                    null_value=float(np.mean([part[1] / (2 * part[2]) for part in parts])),
                    method="exact binomial over questions (repeats together), against one half",
                    n=trials, p=p, note="" if trials else "no question of its pairs leaned to either nation",
                )
            )  # fmt: skip
    return rows


# Association Test --------------------------------------------------------------------------------
def association_claims(samples: pd.DataFrame) -> list[dict[str, Any]]:
    """Per category (and the average over categories) and nation: ATS against 0.

    A keyword's score for a nation, polarity·(3 − rank), is averaged over its valid repeats (repeats of one
    keyword are not independent); the keywords of a category are the independent units. The t-test is on
    nₖ − 1 dof for one category and Welch–Satterthwaite's for the average over categories
    (:func:`~nationbias.evals.stats.significance.stratified_t_test`). ``statistic`` is that keyword-level
    ATS, the point the report's interval resamples.
    """
    assoc = X.association_frame(samples)
    if assoc.empty:
        return []
    assoc = assoc.assign(score=assoc["polarity"] * (3 - assoc["rank"]))
    per_keyword = assoc.groupby(["category", "keyword", "nation"])["score"].mean().reset_index()
    categories = sorted(per_keyword["category"].unique())
    rows = []
    for scope in [*categories, T.AVERAGE]:
        chosen = categories if scope == T.AVERAGE else [scope]
        for nation in P5:
            of = per_keyword[per_keyword["nation"].eq(nation)]
            strata = [of.loc[of["category"].eq(c), "score"].to_numpy(float) for c in chosen]
            result = stratified_t_test(strata, null=0.0)
            n = int(sum(len(s) for s in strata))
            note = ""
            if np.isnan(result.p):
                note = (
                    "a category with fewer than two keywords"
                    if any(len(s) < 2 for s in strata)
                    else ("no spread across keywords: t undefined")
                )
            rows.append(
                _row(
                    claim=ATS, scope=scope, nation=nation, statistic=result.estimate, null_value=0.0,
                    method="t-test over keywords" + (" (Welch–Satterthwaite)" if len(chosen) > 1 else ""),
                    n=n, df=result.df, p=result.p, note=note,
                )
            )  # fmt: skip
    return rows


# Vote ------------------------------------------------------------------------------------------
def _scored_votes(samples: pd.DataFrame) -> pd.DataFrame:
    votes = T.vote_frame(samples)
    return votes[votes["truth"].isin(VOTES)]


def favour_claims(samples: pd.DataFrame) -> list[dict[str, Any]]:
    """Per persona: the share of its simulated votes that are favour against the share of its recorded votes
    that are (the paper's Table 1 reading: more favour than the record is a positive bias).

    Per draft, the favour share over its repeats (a failed answer counts in the share's denominator, as in
    Table 1) minus 1 if the member voted favour, else 0; the drafts are the independent units, the
    one-sample t-test of their mean against 0 is on drafts − 1 dof.
    """
    votes = _scored_votes(samples)
    flags = votes.assign(share=votes["answer"].eq("favour"), truth=votes["truth"].eq("favour"))
    per_draft = flags.groupby(["persona", "item"]).agg(share=("share", "mean"), truth=("truth", "first"))
    diffs = (per_draft["share"] - per_draft["truth"].astype(float)).groupby(level="persona")
    by_persona = {str(persona): d.to_numpy(float) for persona, d in diffs}
    rows = []
    for persona in T.persona_order(by_persona):
        diff = by_persona[persona]
        result = stratified_t_test([diff], null=0.0)
        rows.append(
            _row(
                claim=FAVOUR, scope=ALL_DRAFTS, nation=persona, statistic=result.estimate, null_value=0.0,
                method="paired t-test over drafts", n=len(diff), df=result.df, p=result.p,
                note="" if not np.isnan(result.p) else "fewer than two drafts, or no spread across drafts",
            )
        )  # fmt: skip
    return rows


def false_veto_claims(
    samples: pd.DataFrame, *, n_resamples: int = 1000, seed: int = 0
) -> list[dict[str, Any]]:
    """On the adopted resolutions a run asked about (``--targets adopted|all``): the false-veto rate of
    Russia and China minus that of the other three, paired by item, against 0
    (:func:`nationbias.evals.tables.targets.false_veto_gap`; none without adopted items)."""
    gap = false_veto_gap(samples, n_resamples=n_resamples, seed=seed)
    if gap is None:
        return []
    spread = np.full(int(gap.get("n_resamples", 0)), np.nan)
    untested = "fewer than two adopted resolutions voted on by every member compared"
    return [
        _row(
            claim=FALSE_VETO_GAP, scope=ADOPTED, nation=gap_name(gap), statistic=gap["gap"], null_value=0.0,
            method=f"paired percentile bootstrap over adopted resolutions ({len(spread)} resamples)",
            n=gap["n_items"], p=gap["p"], note=_bootstrap_note(gap["p"], spread, untested),
        )
    ]  # fmt: skip


def vote_claims(samples: pd.DataFrame) -> list[dict[str, Any]]:
    """A vote run's own claims: the favour share on the paper's items, and the false-veto gap on the
    adopted ones."""
    return favour_claims(samples) + false_veto_claims(samples)


def _confusions(frame: pd.DataFrame) -> np.ndarray:
    return per_item_confusion(
        frame, item_col="item", truth_col="truth", pred_col="answer", labels=list(VOTES), misses=MISSES
    )[1]


def _f1(batch: np.ndarray) -> np.ndarray:
    return weighted_f1_from_confusions(batch.sum(axis=1))[:, None]


def _bootstrap_note(p: float, spread: np.ndarray, untested: str) -> str:
    """Why a bootstrap claim was not tested, or that its p sits at the floor its resamples allow."""
    if np.isnan(p):
        return untested
    floor = 2 / (len(spread) + 1)
    if p <= floor:
        return f"p at its floor 2/(B + 1) = {floor:.2g}: more resamples could show a smaller p"
    return ""


def baseline_claims(
    run_id: str,
    config: dict[str, Any],
    samples: pd.DataFrame,
    baselines: pd.DataFrame,
    *,
    n_resamples: int = 1000,
    seed: int = 0,
    predictions: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Per persona and baseline: the run's pooled weighted F1 against the baseline's on the same drafts.

    With ``predictions`` (baseline, item, persona, truth, pred: each baseline's vote per draft) the baseline
    is scored on the run's own questions and the two are resampled together, paired by draft
    (:func:`paired_baseline_claims`); without them, as follows.

    ``baselines`` is long (baseline, persona, weighted_f1). The baseline's score is taken as a fixed bar (its
    per-draft predictions are not in the report); the model's drafts are resampled exactly as for the
    interval of Table 2, and the p-value is the percentile-bootstrap one
    (:func:`~nationbias.evals.stats.significance.bootstrap_pvalue`) of the model's F1 against that bar.
    ``statistic`` is the model's F1 minus the baseline's.
    """
    if predictions is not None and not predictions.empty:
        return paired_baseline_claims(
            run_id, config, samples, predictions, n_resamples=n_resamples, seed=seed
        )
    votes = _scored_votes(samples)
    bars = baselines.dropna(subset=["weighted_f1"])
    rows = []
    for persona in T.persona_order(votes["persona"].unique()):
        mine = bars[bars["persona"].astype(str).eq(persona)]
        if mine.empty:
            continue
        confusions = _confusions(votes[votes["persona"].eq(persona)])
        point, spread = bootstrap_distribution(confusions, _f1, n_resamples=n_resamples, seed=seed)
        for baseline, bar in zip(mine["baseline"], mine["weighted_f1"].astype(float), strict=True):
            p = bootstrap_pvalue(spread, null=bar)
            rows.append(
                _row(
                    claim=VS_BASELINE, scope=f"vs {baseline}", nation=persona, statistic=point - bar,
                    null_value=0.0, method=f"percentile bootstrap over drafts ({len(spread)} resamples)",
                    n=len(confusions), p=p, note=_bootstrap_note(p, spread, "fewer than two drafts"),
                )
            )  # fmt: skip
    return _frame(rows, test=str(config.get("test")), model=str(config.get("model")), run=run_id)


def paired_baseline_claims(
    run_id: str,
    config: dict[str, Any],
    samples: pd.DataFrame,
    predictions: pd.DataFrame,
    *,
    n_resamples: int = 1000,
    seed: int = 0,
) -> pd.DataFrame:
    """Per persona and baseline: the run's pooled weighted F1 minus the baseline's on the run's own
    questions (the baseline's one prediction per draft laid on each repeat), drafts resampled jointly; the
    p-value is the percentile-bootstrap one of the delta against 0."""
    from nationbias.evals.tables.paired import baseline_as_run

    votes = _scored_votes(samples)
    rows = []
    for baseline in predictions["baseline"].unique():
        bar = baseline_as_run(predictions, str(baseline), like=votes)
        for persona in T.persona_order(votes["persona"].unique()):
            mine, theirs = votes[votes["persona"].eq(persona)], bar[bar["persona"].eq(persona)]
            if theirs.empty:
                continue
            keys = ["item", "persona", "repeat"]
            mine = mine.merge(theirs[keys], on=keys, how="inner")
            stacked = np.stack([_confusions(theirs), _confusions(mine)], axis=1)

            def delta(batch: np.ndarray) -> np.ndarray:
                scores = weighted_f1_from_confusions(batch.sum(axis=1))
                return (scores[:, 1] - scores[:, 0])[:, None]

            point, spread = bootstrap_distribution(stacked, delta, n_resamples=n_resamples, seed=seed)
            p = bootstrap_pvalue(spread, null=0.0)
            rows.append(
                _row(
                    claim=VS_BASELINE, scope=f"vs {baseline}", nation=persona, statistic=point,
                    null_value=0.0, method=f"paired bootstrap over drafts ({len(spread)} resamples)",
                    n=len(stacked), p=p, note=_bootstrap_note(p, spread, "fewer than two drafts"),
                )
            )  # fmt: skip
    return _frame(rows, test=str(config.get("test")), model=str(config.get("model")), run=run_id)


def debias_claims(
    base: tuple[str, dict[str, Any], pd.DataFrame],
    debiased: tuple[str, dict[str, Any], pd.DataFrame],
    *,
    n_resamples: int = 1000,
    seed: int = 0,
) -> pd.DataFrame:
    """Per persona: the debiased run's pooled weighted F1 minus the base run's, on the questions both asked
    (drafts, members, repeats), against 0.

    The drafts are resampled jointly, as in Table 3's paired bootstrap
    (:func:`nationbias.evals.stats.bootstrap.paired_bootstrap_delta`, the same resamples for the same seed);
    the p-value is the percentile-bootstrap one of the delta against 0. ``base`` and ``debiased`` are
    (run id, config, samples).
    """
    from nationbias.evals.tables.paired import shared_questions

    (base_id, _, base_samples), (run_id, config, samples) = base, debiased
    a, b, _ = shared_questions(T.vote_frame(base_samples), T.vote_frame(samples))  # what both asked
    rows = []
    for persona in T.persona_order(set(a["persona"]) | set(b["persona"])):
        sa, sb = a[a["persona"].eq(persona)], b[b["persona"].eq(persona)]
        shared = sorted(set(sa["item"]) & set(sb["item"]))
        if not shared:
            rows.append(
                _row(claim=DEBIAS, scope=f"vs {base_id}", nation=persona, statistic=float("nan"),
                     null_value=0.0, method="paired bootstrap over shared drafts", p=float("nan"),
                     note="no draft in both runs")
            )  # fmt: skip
            continue
        stacked = np.stack(
            [_confusions(sa[sa["item"].isin(shared)]), _confusions(sb[sb["item"].isin(shared)])], axis=1
        )

        def delta(batch: np.ndarray) -> np.ndarray:
            scores = weighted_f1_from_confusions(batch.sum(axis=1))
            return (scores[:, 1] - scores[:, 0])[:, None]

        point, spread = bootstrap_distribution(stacked, delta, n_resamples=n_resamples, seed=seed)
        p = bootstrap_pvalue(spread, null=0.0)
        rows.append(
            _row(
                claim=DEBIAS, scope=f"vs {base_id}", nation=persona, statistic=point, null_value=0.0,
                method=f"paired percentile bootstrap over shared drafts ({len(spread)} resamples)",
                n=len(shared), p=p, note=_bootstrap_note(p, spread, "fewer than two shared drafts"),
            )
        )  # fmt: skip
    return _frame(rows, test=str(config.get("test")), model=str(config.get("model")), run=run_id)


# A run's claims, and the table ----------------------------------------------------------------------
Claims = Callable[[pd.DataFrame], list[dict[str, Any]]]  # a test's ``claims``: rows from one run's samples


def run_claims(
    run_id: str, config: dict[str, Any], samples: pd.DataFrame, *, claims: Claims | None = None
) -> pd.DataFrame:
    """The claims one run makes on its own: its test's ``claims`` (none for a test that declares none)."""
    test = str(config.get("test"))
    rows = claims(samples) if claims is not None and len(samples) else []
    return _frame(rows, test=test, model=str(config.get("model")), run=run_id)


def significance_table(
    run_id: str,
    config: dict[str, Any],
    samples: pd.DataFrame,
    *,
    claims: Claims | None = None,
    alpha: float = ALPHA,
) -> pd.DataFrame:
    """A run's claims with Holm and BH adjustments over each family and over the run's claims (its
    ``report`` family: a report over several runs adjusts over all of theirs)."""
    return adjust_claims(run_claims(run_id, config, samples, claims=claims), alpha=alpha)
