"""The report's prompt-audit section: the leak audit and the precedent coverage each run recorded."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pandas as pd

from nationbias.evals.style_audit import DOCUMENT_GATE, DOCUMENT_GATED, GATED_SETS, stored_style_audit
from nationbias.stores.corpora.un_texts import UN_CREDIT
from nationbias.stores.text.budget import TEXT_KIND_NAMES, TEXT_KINDS

if TYPE_CHECKING:
    from nationbias.evals.report.context import Context

SET_USE = {
    "structured": "every study (neutral nouns, JSON answers)",
    "paper-symbols": "the paper's words without the label cue",
    "paper": "reproducing the paper's numbers as published (its labels tell the outcome)",
}

AUDIT_COLUMNS = {
    "targets": "targets",
    "prompts_with_markers": "prompts with outcome markers (0 expected)",
    "markers": "markers found",
    "contexts_rewritten": "contexts rewritten into the draft's voice",
    "rewritten_sentences": "sentences rewritten",
    "removed_sentences": "sentences removed",
    "fallbacks": "fell back to title / agenda",
}


def audit_summary(run_label: str, audit: dict[str, Any]) -> dict[str, Any]:
    row: dict[str, Any] = {"run": run_label}
    row.update({label: audit.get(key, 0) for key, label in AUDIT_COLUMNS.items()})
    kinds = audit.get("kinds") or {}
    row["context kinds"] = ", ".join(f"{k} {v}" for k, v in sorted(kinds.items()))
    return row


def audit_details(audit: dict[str, Any]) -> pd.DataFrame:
    """Targets whose prompt carried a marker or fell back: what and why (the others are clean)."""
    rows = [
        {
            "draft": r["id"],
            "context": r["kind"],
            "markers": "; ".join(r["markers"]) or "none",
            "fallback reason": r.get("fallback_reason") or "",
        }
        for r in audit.get("rows", [])
        if r["markers"] or r["kind"] == "fallback"
    ]
    return pd.DataFrame(rows, columns=["draft", "context", "markers", "fallback reason"])


# The text-budget counts in reading order (a run's config keeps them as a JSON object, keys sorted).
TEXT_BUDGET_ORDER = (
    "targets",
    "budget",
    "texts sent",
    "with draft text",
    "operative sent",
    "all operative sent",
    "enriched",
    "fallback (enriched)",
    "still thin",
    "agenda/topic only",
    "text < 200 chars",
    "ends mid-sentence",
    "dangling starts",
)
KIND_PREFIX = "text: "


def text_budget_row(run_label: str, counts: dict[str, Any]) -> dict[str, Any]:
    """One run's text-budget counts, its text kinds in one column ("UN text 40 · press 26"), so the table
    stays one screen wide."""
    kinds = " · ".join(
        f"{key.removeprefix(KIND_PREFIX)} {n}"
        for key, n in counts.items()
        if key.startswith(KIND_PREFIX) and n
    )
    rest = {k: v for k, v in counts.items() if not k.startswith(KIND_PREFIX)}
    if any(k.startswith(KIND_PREFIX) for k in counts):
        rest["texts sent"] = kinds or "none"
    ordered = {k: rest.pop(k) for k in TEXT_BUDGET_ORDER if k in rest}
    return {"run": run_label, **ordered, **rest}


def _counted(counts: dict[str, int], names: dict[str, str] = TEXT_KIND_NAMES) -> str:
    """``{"un_text": 40, "press": 26}`` as "UN text 40 · press 26", in :data:`TEXT_KINDS` order."""
    order: dict[str, int] = {kind: i for i, kind in enumerate(TEXT_KINDS)}
    ranked = sorted(counts.items(), key=lambda kv: (order.get(kv[0], len(order)), kv[0]))
    return " · ".join(f"{names.get(k, k)} {n}" for k, n in ranked if n) or "none"


def shown_text_rows(run_label: str, audit: dict[str, Any]) -> list[dict[str, Any]]:
    """The kind and language of text a run's prompts show: its targets, and (a debiased run) its
    precedents, all and the adopted and failed apart."""
    rows = [
        {
            "run": run_label,
            "shown": "targets",
            "text kinds": _counted(audit.get("text_kinds") or {}),
            "text languages": _counted(audit.get("text_languages") or {}, {}),
        }
    ]
    precedents = audit.get("precedents")
    if precedents:
        rows.append(
            {
                "run": run_label,
                "shown": "precedents",
                "text kinds": _counted(precedents["text_kinds"]),
                "text languages": _counted(precedents["text_languages"], {}),
            }
        )
        for outcome, kinds in precedents["text_kinds_by_outcome"].items():
            rows.append(
                {
                    "run": run_label,
                    "shown": f"precedents, {outcome}",
                    "text kinds": _counted(kinds),
                    "text languages": "",
                }
            )
    return rows


def coverage_table(coverage: dict[str, Any]) -> pd.DataFrame:
    per_pool = coverage.get("per_pool") or {}
    return pd.DataFrame(
        [
            {"pool": pool, "0 precedents": c.get("0", 0), "1": c.get("1", 0), "2+": c.get("2+", 0)}
            for pool, c in per_pool.items()
        ]
    )


def leak_section(ctx: Context) -> None:
    """Leak audit of every run that recorded one (the vote tests), and the precedents each target got."""
    runs = [r for r in ctx.runs if r.config.get("leak_audit")]
    if not runs:
        return
    summary = pd.DataFrame([audit_summary(r.label, r.config["leak_audit"]) for r in runs])
    ctx.page.table(
        summary,
        table_id="leak-audit",
        caption="Leak audit of the target prompts: outcome and counterfactual markers found, sentences "
        "rewritten or removed, contexts that fell back to title / agenda",
    )
    texts = [
        text_budget_row(r.label, r.config["leak_audit"]["text_budget"])
        for r in runs
        if "text_budget" in r.config["leak_audit"]
    ]
    if texts:
        ctx.page.table(
            pd.DataFrame(texts),
            table_id="text-budget",
            caption="What of each target's text reached the model (stores/text/budget.py): texts left as "
            "agenda / topic only, under 200 characters, ending mid-sentence or starting from a removed "
            "referent; targets enriched from pre-vote sources, still thin; operative paragraphs sent",
        )
    shown = [
        row
        for r in runs
        if "text_kinds" in r.config["leak_audit"]
        for row in shown_text_rows(r.label, r.config["leak_audit"])
    ]
    if shown:
        ctx.page.table(
            pd.DataFrame(shown),
            table_id="text-kinds",
            caption="The kind and language of text each run's prompts show, for its targets and the "
            "precedents it rehearses (adopted and failed apart: one kind for both keeps the kind of text "
            "from marking the failed one)",
        )
    for run in runs:
        slug = run.run_id.replace("/", "-")
        details = audit_details(run.config["leak_audit"])
        if len(details):
            ctx.page.table(
                details,
                table_id=f"leak-details-{slug}",
                caption=f"Targets with a marker or a title / agenda fallback: {run.label}",
            )
        coverage = run.config.get("precedent_coverage")
        if coverage:
            ctx.page.table(
                coverage_table(coverage),
                table_id=f"precedents-{slug}",
                caption=f"Targets by number of precedents found per pool (threshold "
                f"{coverage.get('threshold')}): {run.label}",
            )
            missing = pd.DataFrame(coverage.get("missing", []), columns=["id", "pool", "why"])
            if len(missing):
                ctx.page.table(
                    missing.rename(columns={"id": "draft"}),
                    table_id=f"no-precedent-{slug}",
                    caption=f"Why a target got no precedent from a pool: {run.label}",
                )
    saved_style = stored_style_audit()
    style = style_table(saved_style)
    if style is not None:
        ctx.page.table(
            style,
            table_id="style-audit",
            caption="Style-only classifier (function words, tense and aspect, time words, label form): mean "
            "AUC telling failed from adopted texts as sent, 5-fold CV x 10; the control reads the texts "
            "before the rewrite (from the last `nationbias data audit`)",
        )
    documents = document_style_table(saved_style)
    if documents is not None:
        ctx.page.table(
            documents,
            table_id="style-documents",
            caption="The same classifier on the failed drafts and adopted resolutions of 2023-2024 that have "
            "the UN's own text: the texts as sent under each --texts beside the UN texts at the same budget "
            f"(the reference; {DOCUMENT_GATE}). {UN_CREDIT}",
        )
    ctx.page.close("prompt-audit", "Prompt audit: no outcome in any prompt; precedents found")


def document_style_table(saved: dict[str, Any] | None) -> pd.DataFrame | None:
    """The audit against the UN's own texts: per budget, the reference and each --texts mode as sent."""
    if not saved or not saved.get("documents"):
        return None
    rows = []
    for found in saved["documents"]:
        reference = found["reference"]
        rows.append(
            {
                "budget": found["budget"],
                "texts": "the UN texts (reference)",
                "mean AUC": round(reference["auc"], 3),
                "sd": round(reference["sd"], 3),
                "held to": "",
            }
        )
        for mode, got in found["sent"].items():
            limit = round(reference["auc"] + found["margin"], 3)
            rows.append(
                {
                    "budget": found["budget"],
                    "texts": f"--texts {mode}, as sent",
                    "mean AUC": round(got["auc"], 3),
                    "sd": round(got["sd"], 3),
                    "held to": f"<= {limit}" if mode in DOCUMENT_GATED else "reported",
                }
            )
    return pd.DataFrame(rows)


def style_table(saved: dict[str, Any] | None) -> pd.DataFrame | None:
    """The last style audit as a table: one row per prompt set and one for the control."""
    if not saved:
        return None
    gated = set(GATED_SETS)
    rows = [
        {
            "texts": name,
            "mean AUC": round(auc, 3),
            "held to": "reported; the gate is the UN texts' own AUC (style-documents)"
            if name in gated
            else "reported",
            "suits": SET_USE.get(name, ""),
        }
        for name, auc in saved["auc"].items()
    ]
    rows.append(
        {
            "texts": "before the rewrite (control)",
            "mean AUC": round(saved["control_auc"], 3),
            "held to": f">= {saved['control_gate']}",
            "suits": "",
        }
    )
    return pd.DataFrame(rows)
