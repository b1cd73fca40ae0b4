"""The report's section on the adopted resolutions as targets: the false-veto rate per member and the
paired gap between Russia and China and the other three (evals/tables/targets.py).

The paper tests the vote on non-adopted drafts only, where each permanent member's "against" is a veto
on record. On an adopted resolution the record says no permanent member vetoed, so a model that answers
"against" as Russia or China more often than as the others there is the stereotype "As Eastern Powers,
I Will Veto" with nothing in the record behind it.
"""

from __future__ import annotations

import pandas as pd

from nationbias.evals.report.context import Context, ci_text
from nationbias.evals.tables.targets import (
    FEW_ABSTENTIONS,
    adopted_votes,
    false_veto_gap,
    false_veto_table,
    gap_name,
    record_adopted_votes,
)
from nationbias.stores.domain import VOTE_TESTS


def _shown(table: pd.DataFrame) -> pd.DataFrame:
    """The compact view: each figure with its interval, the misses and the record beside."""
    out = pd.DataFrame({"persona": table["persona"]})
    for name, low, high in (
        ("false_veto_rate", "false_veto_low", "false_veto_high"),
        ("f1_favour", "f1_favour_low", "f1_favour_high"),
        ("f1_abstention", "f1_abstention_low", "f1_abstention_high"),
    ):
        out[f"{name}_95ci"] = [
            ci_text(p, lo, hi) for p, lo, hi in zip(table[name], table[low], table[high], strict=True)
        ]
        if name == "false_veto_rate":
            out["invalid_rate"] = table["invalid_rate"].round(3)
            out["against_answers"] = table["n_against"]
    out["items"] = table["n_items"]
    out["questions"] = table["n_questions"]
    out["record_abstentions"] = table["record_abstention"]
    return out.set_index("persona")


def record() -> str:
    """Each permanent member's abstentions on every adopted resolution of the corpus, as a phrase."""
    from nationbias.stores.corpora.corpus import load_corpus

    counts = record_adopted_votes(load_corpus().records).set_index("persona")["abstention"]
    return ", ".join(f"{persona} {count}" for persona, count in counts.items())


def false_veto_section(ctx: Context) -> None:
    """For each vote-like run with adopted resolutions among its targets: the per-member table, the items
    left out, and the gap with its interval and p (corrected with the other claims in the significance
    section)."""
    written = False
    for run in ctx.of(*VOTE_TESTS):
        votes, procedural = adopted_votes(run.samples)
        if votes.empty:
            continue
        written = True
        table = false_veto_table(run.samples, n_resamples=ctx.n_resamples, seed=ctx.seed)
        ctx.page.table(
            table,
            shown=_shown(table),
            table_id=f"false-veto-{run.slug}",
            caption=(
                "False-veto rate per member on adopted resolutions (the share of its questions answered "
                "'against'; an invalid or errored answer is a miss, not a veto, its rate beside), F1 for "
                "favour and for abstention, 95% bootstrap intervals over items (repeats pooled): "
                f"{run.label}"
            ),
        )
        if procedural:
            ctx.page.note(
                f"Left out of every member's figures: {', '.join(procedural)}, on which a permanent member "
                "voted against on record. Such a vote was procedural (resolution 2623 (2022): the Russian "
                "Federation against convening an emergency special session of the General Assembly), which "
                "no veto can block; it is no veto the model could match."
            )
        none = table.loc[table["record_abstention"].eq(0), "persona"].tolist()
        few = table.loc[table["few_abstentions"] & table["record_abstention"].gt(0), "persona"].tolist()
        parts = []
        if few:
            parts.append(
                f"{', '.join(few)}: fewer than {FEW_ABSTENTIONS} recorded abstentions among these items, so"
                " the abstention F1 rests on a handful of true cases and its interval is wide"
            )
        if none:
            parts.append(
                f"{', '.join(none)}: no recorded abstention among these items, so the abstention F1 is 0"
                " where the model abstained and undefined (—) where it did not"
            )
        if parts:
            every = f" (the record's abstentions on every adopted resolution: {record()})."
            ctx.page.note("; ".join(parts) + every)
        gap = false_veto_gap(run.samples, n_resamples=ctx.n_resamples, seed=ctx.seed)
        if gap is not None:
            ctx.page.note(
                f"Paired gap {gap_name(gap)} (the mean false-veto rate of the first group minus the other's, "
                f"on the {gap['n_items']} adopted resolutions all of them voted on): "
                f"{ci_text(gap['gap'], gap['low'], gap['high'])}, bootstrap p = {gap['p']:.3g} before "
                "correction; Holm and Benjamini–Hochberg with the report's other claims in the "
                "significance section."
            )
    if written:
        ctx.page.note(
            "The paper votes on the non-adopted drafts only, where a permanent member's 'against' is a veto "
            "on record. On an adopted resolution the record says no permanent member vetoed: a model that "
            "answers 'against' as Russia or China more often than as the other three is voicing the "
            "stereotype 'As Eastern Powers, I Will Veto' where the record has no veto behind it. The one "
            "adopted resolution with a permanent member's 'against' on record, resolution 2623 (2022) (a "
            "procedural vote), is left out of the denominator whenever it is among the targets. The "
            "paper's tables above read the run's non-adopted drafts only (a run of adopted resolutions "
            "alone: those)."
        )
        ctx.page.close("false-veto", "False vetoes — the adopted resolutions as targets")
