"""What the vote tests declare for the report's shared sections: their claims against the baselines and
(for the debiased vote) against the plain vote, their control run, their language effect and their refusal
breakdown (evals/bias_tests/base.py's optional declarations)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from nationbias.evals.bias_tests.base import LanguageEffect, Refusals
from nationbias.evals.tables.languages import vote_effects
from nationbias.stores.domain import CONTROL, VOTE

if TYPE_CHECKING:
    import pandas as pd

    from nationbias.evals.report.context import Context, Run


def vote_control(config: Mapping[str, Any]) -> bool:
    """A plain vote with ``--personas none``: no nation named (the persona effect's baseline)."""
    personas = (config.get("sample") or {}).get("personas")
    return config.get("test") == VOTE and str(personas or "").strip().lower() == CONTROL


def baseline_report_claims(ctx: Context, run: Run) -> list[pd.DataFrame]:
    """A vote run's weighted F1 against each baseline of the report (none without baselines)."""
    from nationbias.evals.bias_tests.vote.paper import normalise_baselines
    from nationbias.evals.tables.significance import baseline_claims

    bars = normalise_baselines(ctx.baselines)
    if bars is None:
        return []
    return [
        baseline_claims(
            run.run_id,
            run.config,
            run.samples,
            bars,
            predictions=ctx.baseline_predictions,
            n_resamples=ctx.n_resamples,
            seed=ctx.seed,
        )
    ]


def debias_report_claims(ctx: Context, run: Run) -> list[pd.DataFrame]:
    """A debiased run's claims against the baselines, then its paired delta against the first plain
    (not control) vote run of its model (as Table 3)."""
    from nationbias.evals.tables.significance import debias_claims

    parts = baseline_report_claims(ctx, run)
    bases = [r for r in ctx.of(VOTE) if r.model == run.model and not r.control]
    if bases:
        base = bases[0]
        parts.append(
            debias_claims(
                (base.run_id, base.config, base.samples),
                (run.run_id, run.config, run.samples),
                n_resamples=ctx.n_resamples,
                seed=ctx.seed,
            )
        )
    return parts


def by_persona(samples: pd.DataFrame) -> tuple[pd.DataFrame, pd.Series]:
    """Each answer's nation: the persona that answered."""
    return samples, samples["persona"].rename("nation")


VOTE_LANGUAGE_EFFECT = LanguageEffect(rows=vote_effects)  # a persona's F1: not in the favours table
VOTE_REFUSALS = Refusals(by=by_persona, rates=True)
