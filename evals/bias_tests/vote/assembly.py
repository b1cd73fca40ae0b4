"""The Assembly section of a vote report: every state and group scored, and the bar the model must clear.

For a run with ``--body unga``: accuracy, weighted F1 and each vote's F1 per state and per group
(UN regional groups and the P5), with 95% intervals over roll calls, then the anchor: the model beside
every Assembly baseline on exactly the same votes, and UNSim's published figures (on its own 181,043
votes of 2005–2019, so read as a scale, not a paired comparison). The baselines use only roll calls
dated before each target, so beating them means knowing more than the record already says.
"""

from __future__ import annotations

import json

import pandas as pd

from nationbias.evals.baselines.assembly import UNSIM, run_predictions
from nationbias.evals.report.context import Context, Run, ci_text
from nationbias.evals.stats.groups import load_groups
from nationbias.evals.stats.scores import ALL_MEMBERS, METRICS, score_table
from nationbias.evals.tables import paper as T
from nationbias.retrievers.recency import age_summary
from nationbias.stores.domain import DEBIAS, P5, VOTE_TESTS

COLUMNS = ["baseline", "item_id", "member", "truth", "predicted"]
# The bar the learned Assembly baseline, with no LLM, is held to.
TARGETS = {"accuracy": 0.90, "f1_against": 0.60, "f1_abstention": 0.50}


def target_note(bar: pd.DataFrame) -> str:
    """The learned baseline against its targets on this run's votes (the full window: RESULTS.md)."""
    row = bar[bar["baseline"] == "model"]
    if row.empty:
        return ""
    got = row.iloc[0]
    names = {"accuracy": "accuracy", "f1_against": "F1 on no", "f1_abstention": "F1 on abstain"}
    parts = []
    for name, goal in TARGETS.items():
        verdict = "meets" if got[name] >= goal else f"{goal - got[name]:.3f} short of"
        parts.append(f"{names[name]} {got[name]:.3f} ({verdict} ≥ {goal:.2f})")
    return (
        'The learned baseline ("model") against the targets set for a model without an LLM, on this run\'s '
        f"votes: {'; '.join(parts)}. benchmarks/RESULTS.md gives the same on every recorded vote of "
        "2005–2019 and what was tried (every choice made on 1995–2004 only)."
    )


def model_predictions(run: Run) -> pd.DataFrame:
    """The run's answers as predictions (a miss stays a miss), one row per sample with a known truth."""
    votes = T.vote_frame(run.samples)
    votes = votes[votes["truth"].isin(T.VOTES)]
    return pd.DataFrame(
        {"baseline": run.model, "item_id": votes["item"], "member": votes["persona"],
         "truth": votes["truth"], "predicted": votes["answer"]}
    )  # fmt: skip


def by_group(predictions: pd.DataFrame) -> pd.DataFrame:
    """The same predictions with ``member`` replaced by the state's regional group, then again for the P5."""
    regions = load_groups("regions", predictions["member"].unique())
    grouped = predictions.assign(member=predictions["member"].map(regions)).dropna(subset=["member"])
    p5 = predictions[predictions["member"].isin(P5)].assign(member="P5")
    return pd.concat([grouped, p5], ignore_index=True)


def anchor(run: Run, predictions: pd.DataFrame, *, n_resamples: int, seed: int) -> pd.DataFrame:
    """The model and each Assembly baseline pooled over the run's votes, then UNSim's published row."""
    items = sorted(set(predictions["item_id"]))
    baselines = run_predictions(items=items, personas=sorted(set(predictions["member"])))
    baselines = baselines.assign(item_id="UNGA-" + baselines["item_id"].astype(str))
    both = pd.concat([predictions, baselines[COLUMNS]], ignore_index=True).assign(member=ALL_MEMBERS)
    table = score_table(both, n_resamples=n_resamples, seed=seed, pooled=False).drop(columns="member")
    unsim = {"baseline": "UNSim (published; 181,043 votes of 2005–2019)", "n": 181_043}
    return pd.concat([table, pd.DataFrame([unsim | UNSIM])], ignore_index=True)


def shown(table: pd.DataFrame, *, key: str) -> pd.DataFrame:
    """Each metric as ``point [low, high]``; the full frame goes to the ``-all.csv`` beside it."""
    out = table[[key, "n"]].copy()
    for metric in METRICS:
        low, high = table.get(f"{metric}_low"), table.get(f"{metric}_high")
        out[metric] = [
            "—" if pd.isna(p) else (f"{p:.3f}" if lo is None or pd.isna(lo) else ci_text(p, lo, hi))
            for p, lo, hi in zip(
                table[metric],
                low if low is not None else [None] * len(table),
                high if high is not None else [None] * len(table),
                strict=True,
            )
        ]
    return out


def precedent_age_note(run: Run) -> str:
    """How old the precedents a debiased run rehearsed were (target year minus precedent year), read
    from its samples, with the recency preference that chose them; "" for a plain vote run."""
    if run.config.get("test") != DEBIAS or run.samples.empty:
        return ""
    ages = []
    for extra in run.samples["extra"]:
        extra = extra if isinstance(extra, dict) else json.loads(extra or "{}")
        year = int(str(extra.get("date", "0"))[:4])
        ages += [year - int(str(p["date"])[:4]) for p in extra.get("precedents") or []]
    halflife = (run.config.get("options") or {}).get("recency_halflife")
    summary = age_summary(ages)
    if not ages:
        return f"No precedent was rehearsed: {run.label}."
    preference = f"recency half-life {halflife:g} years" if halflife else "no recency preference"
    return (
        f"Precedents rehearsed: {summary['precedents']}, median age {summary['median_years']:g} years "
        f"(target year minus precedent year), oldest {summary['max_years']}, "
        f"{summary['over_20_years']} over 20 years ({preference}): {run.label}."
    )


def assembly_section(ctx: Context) -> None:
    runs = [r for r in ctx.of(*VOTE_TESTS) if r.config.get("sample", {}).get("body") == "unga"]
    for run in runs:
        predictions = model_predictions(run)
        if predictions.empty:
            continue
        options = {"n_resamples": ctx.n_resamples, "seed": ctx.seed}
        for name, frame, key, caption in (
            ("states", predictions, "member", 'per state ("all": every vote pooled)'),
            ("blocs", by_group(predictions), "member", "per regional group, and the P5"),
        ):
            table = score_table(frame, pooled=name == "states", **options)
            table.to_csv(ctx.page.out_dir / f"assembly-{name}-{run.slug}-all.csv", index=False)
            ctx.page.table(
                shown(table, key=key),
                table_id=f"assembly-{name}-{run.slug}",
                caption=f"Accuracy, weighted F1 and each vote's F1 {caption}, 95% CI over roll calls; "
                f"a miss counts: {run.label}",
            )
        bar = anchor(run, predictions, **options)
        bar.to_csv(ctx.page.out_dir / f"assembly-anchor-{run.slug}-all.csv", index=False)
        ctx.page.table(
            shown(bar, key="baseline"),
            table_id=f"assembly-anchor-{run.slug}",
            caption="The bar to clear: the model beside every Assembly baseline on the same votes "
            f"(leave-future-out), and UNSim's published figures on its own votes: {run.label}",
        )
        if note := target_note(bar):
            ctx.page.note(note)
        if note := precedent_age_note(run):
            ctx.page.note(note)
    if runs:
        ctx.page.close("assembly", "The General Assembly — every state, every group, and the bar to clear")
