"""The text audit: per target and budget, what reached the model and why (``nationbias data audit``
and a run's config).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import pandas as pd

from nationbias.stores.guard.leak import (
    PromptContext,
    context_for_prompt,
)
from nationbias.stores.records import Record
from nationbias.stores.text.budget import TEXT_KIND_NAMES, TEXT_KINDS, prompt_text
from nationbias.stores.text.cut import BUDGETS, ends_cleanly
from nationbias.stores.text.enrich import THIN_CHARS
from nationbias.stores.text.mend import count_dangling
from nationbias.stores.text.un_prompt import TextsMode, target_shown

# --- the audit ---------------------------------------------------------------------------------


def text_audit(
    records: Iterable[Record], *, budgets: Sequence[int] = BUDGETS, text_mode: TextsMode = "press"
) -> pd.DataFrame:
    """Per record and budget: text kind and why, characters sent of available, operative paragraphs
    sent of all, enrichments with their sources, mended sentences, thin or not and why; each record
    shown as a target is under ``text_mode`` (``--texts``)."""
    rows = []
    for record in records:
        ctx = context_for_prompt(record)
        for budget in budgets:
            pt = prompt_text(record, budget=budget, shown=target_shown(record, text_mode))
            rows.append(
                {
                    "id": record.id,
                    "budget": budget,
                    "text_kind": pt.text_kind,
                    "kind": pt.kind,
                    "label": pt.label,
                    "why": "the UN's own text"
                    if pt.shown == "un"
                    else ctx.fallback_reason or _why_kind(record, ctx),
                    "chars_sent": pt.chars_sent,
                    "chars_available": pt.chars_available,
                    "operative_sent": pt.operative_sent,
                    "operative_total": pt.operative_total,
                    "enriched_with": ", ".join(e.kind for e in pt.enrichments),
                    "enrichments": "; ".join(f"{e.kind} ({e.source})" for e in pt.enrichments),
                    "mended": len(pt.fixes),
                    "ends_whole": ends_cleanly(pt.text, prose=pt.kind != "draft_text"),
                    "dangling": count_dangling(pt.text),
                    "thin": pt.thin,
                    "thin_reason": pt.thin_reason,
                }
            )
    return pd.DataFrame(rows)


def _why_kind(record: Record, ctx: PromptContext) -> str:
    if ctx.kind == "draft_text":
        whole = record.draft_text is not None and bool(record.draft_text.complete)
        return (
            "a complete copy of the draft's text"
            if whole
            else "a partial copy of the draft (no usable description)"
        )
    return "no complete copy of the draft's text; a description of it" + (
        " (a partial copy exists)" if record.draft_text else ""
    )


def audit_summary(table: pd.DataFrame) -> pd.DataFrame:
    """The audit's counts per budget: what the issue measures, before → after."""
    rows = []
    for budget, sub in table.groupby("budget", sort=False):
        drafts = sub[sub["operative_total"] > 0]
        ops_sent, ops_all = int(drafts["operative_sent"].sum()), int(drafts["operative_total"].sum())
        kinds = sub["text_kind"].value_counts() if "text_kind" in sub else pd.Series(dtype=int)
        rows.append(
            {
                "budget": budget,
                "targets": len(sub),
                **{f"text: {TEXT_KIND_NAMES[k]}": int(kinds.get(k, 0)) for k in TEXT_KINDS},
                "agenda/topic only": int(((sub["kind"] == "fallback") & (sub["enrichments"] == "")).sum()),
                "fallback (enriched)": int(((sub["kind"] == "fallback") & (sub["enrichments"] != "")).sum()),
                "text < 200 chars": int((sub["chars_sent"] < THIN_CHARS).sum()),
                "ends mid-sentence": int((~sub["ends_whole"]).sum()),
                "dangling starts": int((sub["dangling"] > 0).sum()),
                "enriched": int((sub["enrichments"] != "").sum()),
                "still thin": int(sub["thin"].sum()),
                "with draft text": len(drafts),
                "all operative sent": int((drafts["operative_sent"] == drafts["operative_total"]).sum()),
                "operative sent": f"{ops_sent}/{ops_all}",
            }
        )
    return pd.DataFrame(rows)


def budget_counts(
    records: Iterable[Record], *, budget: int, text_mode: TextsMode = "press"
) -> dict[str, int | str]:
    """:func:`audit_summary`'s counts for one budget, as plain values a run's config can keep."""
    row = audit_summary(text_audit(records, budgets=(budget,), text_mode=text_mode)).iloc[0].to_dict()
    return {str(k): (v.item() if hasattr(v, "item") else v) for k, v in row.items()}
