"""Who proposed it: the same draft under each permanent member as its proposer (graphs/attribution.py).

A counterfactual: only the proposer line changes across a draft's arms, so any difference in the votes is
the proposer's. Scores, per proposer: the favour rate, and its effect, the paired difference from the
draft's mean over the five proposer arms (a 95% bootstrap interval over drafts); the East–West gap (Russia
and China against the other three) paired by draft; the flip rate (the share of a draft's arms whose vote
differs from their most common vote) beside its noise floor (the same within one arm across repeats). An
invalid answer counts as a vote not in favour and is shown per arm.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from nationbias.evals.bias_tests.base import RunContext, RunRequest, StudyPart, bias_test
from nationbias.evals.errors import UsageError
from nationbias.evals.report import figures as F
from nationbias.evals.report.context import Context, Run
from nationbias.evals.report.headline import NOT_IN_PAPER, Headline, ci_cell
from nationbias.evals.report.html_table import Cell
from nationbias.evals.report.sample_browser import samples_link
from nationbias.evals.stats.bootstrap import CI, bootstrap_cis
from nationbias.evals.tables import paper as T
from nationbias.graphs.attribution import (
    ARMS,
    ATTRIBUTION,
    EAST,
    GROUP,
    NO_PROPOSER,
    PROPOSERS,
    WEST,
    split_persona,
    voter_kind,
)
from nationbias.stores.domain import CONTROL

if TYPE_CHECKING:
    from nationbias.graphs.study.runner import RunSummary
    from nationbias.graphs.study.sampling import SampleOptions
    from nationbias.prompts import PromptSet

ALL_VOTERS = "all"  # the effects over every voter of a run, each draft's rate their mean
GAP = "east-west gap"
EFFECT_CLAIM = "proposer effect vs 0"
GAP_CLAIM = "east-west gap vs 0"
TOP_FLIPS = 10
N_RESAMPLES = 2000


def attribution_frame(samples: pd.DataFrame) -> pd.DataFrame:
    """One row per answer: item, arm, voter, repeat, status, vote (None unless ok), favour (1 for a vote in
    favour; an invalid answer or an error is 0: a miss, as in the other tests)."""
    arms, voters = (
        zip(*(split_persona(p) for p in samples["persona"]), strict=True) if len(samples) else ((), ())
    )
    vote = samples["parsed"].map(lambda p: (p or {}).get("vote"))
    frame = pd.DataFrame(
        {
            "item": samples["item"].to_numpy(),
            "arm": list(arms),
            "voter": list(voters),
            "repeat": samples["repeat"].to_numpy(),
            "status": samples["status"].to_numpy(),
            "vote": vote.to_numpy(),
        }
    )
    frame["favour"] = frame["vote"].eq("favour").astype(float)
    frame["answer"] = frame["vote"].where(frame["status"].eq("ok"), frame["status"])
    return frame


def arm_table(samples: pd.DataFrame) -> pd.DataFrame:
    """Per voter and arm: answers, favour rate (invalid counted as a miss), ok, invalid, error."""
    frame = attribution_frame(samples)
    rows = []
    for (voter, arm), sub in frame.groupby(["voter", "arm"], sort=False):
        counts = sub["status"].value_counts()
        rows.append(
            {
                "voter": voter,
                "arm": arm,
                "n": len(sub),
                "favour_rate": sub["favour"].mean(),
                "ok": int(counts.get("ok", 0)),
                "invalid": int(counts.get("invalid", 0)),
                "error": int(counts.get("error", 0)),
            }
        )
    table = pd.DataFrame(rows, columns=["voter", "arm", "n", "favour_rate", "ok", "invalid", "error"])
    order = {arm: i for i, arm in enumerate(ARMS)}
    return table.sort_values(
        ["voter", "arm"], key=lambda s: s.map(order) if s.name == "arm" else s
    ).reset_index(drop=True)


def draft_rates(frame: pd.DataFrame) -> pd.DataFrame:
    """Drafts × arms: each draft's favour rate in each arm over the voters and repeats given."""
    rates = frame.pivot_table(index="item", columns="arm", values="favour", aggfunc="mean")
    return rates.reindex(columns=list(ARMS)).dropna()  # a draft missing an arm is not paired: left out


def _contrasts(rates: np.ndarray) -> np.ndarray:
    """Per draft (rows): each arm's rate less the draft's mean over the five proposer arms, then the gap."""
    proposers = rates[..., : len(PROPOSERS)]
    mean = proposers.mean(axis=-1, keepdims=True)
    east = [PROPOSERS.index(c) for c in EAST]
    west = [PROPOSERS.index(c) for c in WEST]
    gap = proposers[..., east].mean(axis=-1) - proposers[..., west].mean(axis=-1)
    return np.concatenate([rates - mean, gap[..., None]], axis=-1)


def effect_table(samples: pd.DataFrame, *, n_resamples: int = N_RESAMPLES, seed: int = 0) -> pd.DataFrame:
    """Per voter (and over all voters) and arm: the favour rate, the paired effect (the arm's rate less the
    draft's mean over the five proposer arms; for a control, its difference from that mean) with a 95%
    percentile bootstrap interval over drafts, and the East–West gap as one more row."""
    frame = attribution_frame(samples)
    groups: list[tuple[str, pd.DataFrame]] = [(ALL_VOTERS, frame)]
    voters = list(dict.fromkeys(frame["voter"]))
    if len(voters) > 1:
        groups += [(v, frame[frame["voter"].eq(v)]) for v in voters]
    rows = []
    for voter, sub in groups:
        rates = draft_rates(sub)
        if rates.empty:
            continue
        values = rates.to_numpy(float)
        cis = bootstrap_cis(values, lambda x: _contrasts(x).mean(axis=-2), n_resamples=n_resamples, seed=seed)
        favour = [*values.mean(axis=0), np.nan]
        for name, ci, rate in zip([*ARMS, GAP], cis, favour, strict=True):
            rows.append(
                {
                    "voter": voter,
                    "arm": name,
                    "drafts": len(rates),
                    "favour_rate": rate,
                    "effect": ci.point,
                    "low": ci.low,
                    "high": ci.high,
                }
            )
    return pd.DataFrame(rows, columns=["voter", "arm", "drafts", "favour_rate", "effect", "low", "high"])


def _flip_share(answers: pd.Series) -> float:
    """The share of answers that differ from their most common one (ties: the first in sorted order)."""
    counts = answers.astype(str).value_counts()
    return 1.0 - counts.iloc[0] / counts.sum() if len(counts) else np.nan


def flip_frame(samples: pd.DataFrame) -> pd.DataFrame:
    """Per draft: the flip rate across its arms (each voter and repeat's seven answers, averaged) and the
    noise floor (each voter and arm's answers across repeats, averaged; NaN with one repeat)."""
    frame = attribution_frame(samples)
    across = frame.groupby(["item", "voter", "repeat"])["answer"].agg(_flip_share).groupby("item").mean()
    repeats = frame.groupby(["item", "voter", "arm"])["answer"]
    noise = repeats.agg(lambda a: _flip_share(a) if len(a) > 1 else np.nan).groupby("item").mean()
    return pd.DataFrame({"flip_rate": across, "noise_floor": noise}).rename_axis("item").reset_index()


def flip_table(samples: pd.DataFrame, *, n_resamples: int = N_RESAMPLES, seed: int = 0) -> pd.DataFrame:
    """The flip rate and its noise floor over drafts, each with a 95% bootstrap interval over drafts."""
    per = flip_frame(samples)
    rows = []
    for measure in ("flip_rate", "noise_floor"):
        values = per[measure].dropna().to_numpy(float)
        if len(values) == 0:
            rows.append({"measure": measure, "drafts": 0, "value": np.nan, "low": np.nan, "high": np.nan})
            continue
        (ci,) = bootstrap_cis(values[:, None], lambda x: x.mean(axis=-2), n_resamples=n_resamples, seed=seed)
        rows.append(
            {"measure": measure, "drafts": len(values), "value": ci.point, "low": ci.low, "high": ci.high}
        )
    return pd.DataFrame(rows, columns=["measure", "drafts", "value", "low", "high"])


def top_flips(samples: pd.DataFrame, n: int = TOP_FLIPS) -> pd.DataFrame:
    """The drafts whose arms disagree most, each with its noise floor."""
    per = flip_frame(samples)
    return (
        per.sort_values(["flip_rate", "item"], ascending=[False, True], kind="stable")
        .head(n)
        .reset_index(drop=True)
    )


def _signed_rank_p(differences: np.ndarray) -> float:
    """The two-sided Wilcoxon signed-rank p of paired per-draft differences against 0 (NaN: no non-zero
    difference, nothing to test)."""
    from scipy.stats import wilcoxon

    nonzero = differences[differences != 0]
    if len(nonzero) == 0:
        return float("nan")
    return float(wilcoxon(nonzero).pvalue)


def attribution_claims(samples: pd.DataFrame) -> list[dict[str, Any]]:
    """Each proposer's effect and the East–West gap over all voters, each tested against 0 by the signed-rank
    test over drafts (the drafts are the independent units: a draft's arms share its text)."""
    rates = draft_rates(attribution_frame(samples))
    if rates.empty:
        return []
    contrasts = _contrasts(rates.to_numpy(float))
    rows = []
    names = [*PROPOSERS, GAP]
    columns = [*range(len(PROPOSERS)), contrasts.shape[1] - 1]
    for name, column in zip(names, columns, strict=True):
        diffs = contrasts[:, column]
        p = _signed_rank_p(diffs)
        rows.append(
            {
                "claim": GAP_CLAIM if name == GAP else EFFECT_CLAIM,
                "scope": ALL_VOTERS,
                "nation": "RUS+CHN − USA+GBR+FRA" if name == GAP else name,
                "statistic": float(diffs.mean()),
                "null_value": 0.0,
                "method": "Wilcoxon signed-rank over drafts",
                "n": len(diffs),
                "df": float("nan"),
                "p": p,
                "note": "no draft's arms differ: nothing to test" if np.isnan(p) else "",
            }
        )
    return rows


def attribution_figure(effects: pd.DataFrame, path: Path, *, model: str, embedded: bool) -> Path:
    """One dot with its 95% interval per proposer (and each control beside, hollow), one panel per voter."""
    F.use_agg()
    import matplotlib.pyplot as plt

    voters = list(dict.fromkeys(effects["voter"]))
    fig, axes = plt.subplots(
        1, len(voters), figsize=(min(F.MAX_WIDTH, 4.2 * len(voters) + 1.0), 3.6), squeeze=False
    )
    for ax, voter in zip(axes[0], voters, strict=True):
        sub = (
            effects[effects["voter"].eq(voter) & effects["arm"].isin(ARMS)]
            .set_index("arm")
            .reindex(list(ARMS))
        )
        x = np.arange(len(ARMS))
        for i, arm in enumerate(ARMS):
            row = sub.loc[arm]
            control = arm in (NO_PROPOSER, GROUP)
            ax.errorbar(
                [x[i]],
                [row["effect"]],
                yerr=[[row["effect"] - row["low"]], [row["high"] - row["effect"]]],
                fmt="o",
                mfc="white" if control else F.SERIES_COLOURS[0],
                color="#777777" if control else F.SERIES_COLOURS[0],
                capsize=4,
            )
        ax.axhline(0, color="#444444", lw=0.8)
        ax.set_xticks(x, [a if a not in (NO_PROPOSER, GROUP) else f"({a})" for a in ARMS])
        ax.set_ylabel("favour rate − draft's proposer mean")
        ax.set_title(f"voters: {voter}", fontsize=10)
    return F.finish_figure(fig, path, title=f"Who proposed it — {model}", embedded=embedded)


def _fmt_ci(frame: pd.DataFrame, value: str) -> pd.Series:
    return pd.Series(
        [
            "—" if pd.isna(v) else f"{v:+.3f} [{lo:+.3f}, {hi:+.3f}]"
            for v, lo, hi in zip(frame[value], frame["low"], frame["high"], strict=True)
        ],
        index=frame.index,
    )


def _attribution(ctx: Context) -> None:
    for run in ctx.of(ATTRIBUTION):
        effects = run.tables["effects"]
        shown = effects.assign(effect_95ci=_fmt_ci(effects, "effect")).drop(columns=["effect", "low", "high"])
        ctx.page.table(
            shown,
            table_id=f"attribution-effects-{run.slug}",
            caption=f"Favour rate and proposer effect per arm (95% CI over drafts): {run.label}",
            csvs={f"attribution-effects-{run.slug}": effects},
        )
        if not effects.empty:
            out = ctx.page.out_dir / f"attribution-{run.slug}.png"
            path = attribution_figure(effects, out, model=run.model, embedded=run.embedded)
            ctx.page.figure(path, alt=f"Proposer effects with 95% intervals, controls hollow, {run.label}")
        ctx.page.table(
            run.tables["arms"],
            table_id=f"attribution-arms-{run.slug}",
            caption=f"Answers per arm, invalid ones counted as misses: {run.label}",
        )
        flips = run.tables["flips"]
        ctx.page.table(
            flips.assign(value_95ci=_fmt_ci(flips, "value")).drop(columns=["value", "low", "high"]),
            table_id=f"attribution-flips-{run.slug}",
            caption="Flip rate across a draft's arms beside its noise floor (within one arm across repeats): "
            + run.label,
            csvs={f"attribution-flips-{run.slug}": flips},
        )
        top = run.tables["top_flips"]
        items = [str(item) for item in top["item"]]
        links = [Cell(item, href=samples_link(run_id=run.run_id, item=item)) for item in items]
        ctx.page.table(
            top.assign(item=pd.Series(links, index=top.index, dtype=object)),
            table_id=f"attribution-top-{run.slug}",
            caption=f"The drafts with the highest flip rate, each linked to its samples: {run.label}",
            csvs={f"attribution-top-{run.slug}": top},
        )
        left_out = (run.config.get("attribution_audit") or {}).get("excluded") or {}
        rewritten = (run.config.get("attribution_audit") or {}).get("drafts_rewritten", 0)
        ctx.page.note(
            f"Proposer phrases rewritten in {rewritten} drafts' texts; {len(left_out)} drafts left out"
            + (f" ({'; '.join(f'{k}: {v}' for k, v in left_out.items())})" if left_out else "")
            + ". Every arm of a draft shows the same text; only the proposer line differs."
        )
    ctx.page.close("attribution", "Who proposed it — the same draft under each proposer")


def attribution_scope(run: Run) -> str:
    """The vote's scope of the run's drafts, its personas counted as what they are: arms × voters (a
    sample's persona is its arm and its voter)."""
    from nationbias.evals.report.scope import persona_scope, plural

    covered = persona_scope(run)
    pairs = [split_persona(str(p)) for p in run.samples["persona"]]
    arms, voters = {arm for arm, _ in pairs}, {voter for _, voter in pairs}
    kind = ((run.config.get("options") or {}).get("voters")) or ", ".join(sorted(voters))
    shown = f"{plural(len(arms), 'arm')} × {plural(len(voters), 'voter')} ({kind})"
    return covered.replace(plural(run.samples["persona"].nunique(), "persona"), shown, 1)


def attribution_headline(ctx: Context, run: Run) -> Headline:
    """The East–West gap over all voters with its interval over drafts."""
    effects = run.tables["effects"]
    gap = effects[effects["voter"].eq(ALL_VOTERS) & effects["arm"].eq(GAP)]
    if gap.empty:
        return Headline(
            "East–West proposer gap: no paired draft", ci_cell(CI(np.nan, np.nan, np.nan)), "0", NOT_IN_PAPER
        )
    row = gap.iloc[0]
    return Headline(
        f"East–West proposer gap in favour rate (RUS+CHN − USA+GBR+FRA, {int(row['drafts'])} drafts)",
        ci_cell(CI(row["effect"], row["low"], row["high"]), 3, "+"),
        "0 = the proposer does not matter",
        NOT_IN_PAPER,
    )


@bias_test
class AttributionTest:
    """Each target draft under each P5 member as its proposer and two controls, voted by ``--personas``:
    none (the default: "a member of the Security Council"), p5 or e10 (the elected members seated then)."""

    name = ATTRIBUTION
    tables = ("arms", "effects", "flips", "top_flips", "invalid")
    agreement_table: str | None = None
    invalid_table: str | None = "invalid"
    sections = (_attribution,)
    cli_options = ("personas", "targets", "texts")  # its `run` command's shared options beyond every test's
    translates = True  # --translate-with: a draft's proposer-free text, once (graphs/attribution.py)
    # In a study: every target draft (the 66 by default, as `run attribution`), voted by its own default
    # voters whatever the study's --personas (one voter, no nation named: 7 calls a draft and repeat, not
    # 35 with the P5); in the demo one draft, after the vote
    study: StudyPart | None = StudyPart(demo=1, order=2, personas=CONTROL)
    body_note = "votes on the Council's own drafts, each under a permanent member as its proposer"

    def headline(self, ctx: Context, run: Run) -> Headline:
        return attribution_headline(ctx, run)

    def scope(self, run: Run) -> str:
        return attribution_scope(run)

    def check_judge(self, prompts: PromptSet) -> None:
        raise UsageError("attribution reads its votes by the vote's rules alone: run it without --judge")

    def prepare(self, request: RunRequest, sample: SampleOptions) -> Any:
        """The corpus and the voter kind; a language, translator or body it does not support fails here."""
        from nationbias.graphs.study.sampling import load_items, select_drafts

        if sample.body != "unsc":
            raise UsageError("attribution runs on the Council's drafts: use --body unsc")
        voters = voter_kind(request.personas or CONTROL)  # a PersonaError is one clear line
        corpus = load_items(sample)
        select_drafts(corpus, sample)  # an empty window fails before any store is opened
        return corpus, voters

    async def arun(self, ctx: RunContext) -> RunSummary:
        from dataclasses import replace

        from nationbias.graphs.attribution import run_attribution_study

        corpus, voters = ctx.inputs
        run = replace(ctx.run, sample=replace(ctx.sample, personas=voters), judge=None)
        return await run_attribution_study(run, corpus=corpus, voters=voters)

    def claims(self, samples: pd.DataFrame) -> list[dict[str, Any]]:
        """Each proposer's paired effect and the East–West gap, over drafts."""
        return attribution_claims(samples)

    def result_tables(self, samples: pd.DataFrame) -> dict[str, pd.DataFrame]:
        arms = pd.Series([split_persona(p)[0] for p in samples["persona"]], index=samples.index, name="arm")
        return {
            "arms": arm_table(samples),
            "effects": effect_table(samples),
            "flips": flip_table(samples),
            "top_flips": top_flips(samples),
            "invalid": T.status_counts(samples, by=arms),
        }
