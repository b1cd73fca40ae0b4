"""What of the 66 targets' texts reaches the model, before and after ``nationbias.stores.text.budget``.

``uv run python -m benchmarks.prompt_texts`` prints the markdown table kept in RESULTS.md. "Before"
is the text as db56d5d sent it: the leak-guarded text cut at the budget's last space, " …" added.
"""

from __future__ import annotations

from nationbias.stores.corpora.corpus import load_corpus
from nationbias.stores.guard.leak import MIN_CONTEXT_CHARS, PromptContext, context_for_prompt, fallback_text
from nationbias.stores.records import Record
from nationbias.stores.text.audit import audit_summary, text_audit
from nationbias.stores.text.cut import BUDGETS, ends_cleanly, is_operative
from nationbias.stores.text.enrich import THIN_CHARS
from nationbias.stores.text.mend import count_dangling


def old_clip(text: str, limit: int) -> str:
    """db56d5d's ``nationbias.graphs.vote.clip``: the first ``limit`` characters, back to a space."""
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + " …"


def before(drafts: list[Record], budget: int) -> dict[str, object]:
    rows = []
    for record in drafts:
        ctx = context_for_prompt(record)
        text = ctx.text
        if ctx.kind != "fallback" and len(text) < MIN_CONTEXT_CHARS:  # db56d5d took no shorter text
            ctx = PromptContext(fallback_text(record), "fallback")
        sent = old_clip(ctx.text, budget)
        ops_all = [p for p in ctx.text.splitlines() if is_operative(p)] if ctx.kind == "draft_text" else []
        ops_sent = [p for p in sent.splitlines() if is_operative(p)] if ctx.kind == "draft_text" else []
        whole_ops = [p for p in ops_sent if p in ops_all]
        rows.append((ctx.kind, sent, len(ops_all), len(whole_ops)))
    with_ops = [r for r in rows if r[2]]
    return {
        "agenda/topic only": sum(1 for r in rows if r[0] == "fallback"),
        "text < 200 chars": sum(1 for r in rows if len(r[1]) < THIN_CHARS),
        "ends mid-sentence": sum(
            1 for r in rows if r[1].endswith(" …") or not ends_cleanly(r[1], prose=r[0] != "draft_text")
        ),
        "dangling starts": sum(1 for r in rows if count_dangling(r[1])),
        "all operative sent": sum(1 for r in with_ops if r[3] == r[2]),
        "operative sent": f"{sum(r[3] for r in with_ops)}/{sum(r[2] for r in with_ops)}",
    }


def main() -> None:
    drafts = load_corpus().drafts
    after = audit_summary(text_audit(drafts)).set_index("budget")
    print("| measure | " + " | ".join(f"{b} chars: before → after" for b in BUDGETS) + " |")
    print("|---|" + "---|" * len(BUDGETS))
    olds = {b: before(drafts, b) for b in BUDGETS}
    for measure in olds[BUDGETS[0]]:
        cells = [f"{olds[b][measure]} → {after.loc[b, measure]}" for b in BUDGETS]
        print(f"| {measure} | " + " | ".join(cells) + " |")
    for measure in ("fallback (enriched)", "enriched", "still thin"):
        print(f"| {measure} | " + " | ".join(f"– → {after.loc[b, measure]}" for b in BUDGETS) + " |")
    print()
    per_target(drafts)


def per_target(drafts: list[Record]) -> None:
    """One row per target: text kind and why, characters and operative paragraphs sent per budget,
    enrichments (their sources are in ``text_audit``), thin and why."""
    table = text_audit(drafts)
    wide = table.pivot(index="id", columns="budget", values=["chars_sent", "operative_sent"])
    first = table[table["budget"] == BUDGETS[0]].set_index("id")
    head = ["target", "text kind", "why", "chars sent (3000; 1200) / in its text", "operative (3000; 1200)"]
    print("| " + " | ".join([*head, "enriched with", "thin: why"]) + " |")
    print("|---|---|---|---|---|---|---|")
    for record in drafts:
        row = first.loc[record.id]
        sent = "; ".join(str(wide.loc[record.id, ("chars_sent", b)]) for b in BUDGETS)
        ops = "; ".join(
            f"{wide.loc[record.id, ('operative_sent', b)]}/{row['operative_total']}" for b in BUDGETS
        )
        added = row["enriched_with"] or "–"
        thin = row["thin_reason"] if row["thin"] else "no"
        print(
            f"| {record.id} | {row['kind']} | {row['why']} | {sent} / {row['chars_available']} | "
            f"{ops if row['operative_total'] else '–'} | {added} | {thin} |"
        )


if __name__ == "__main__":
    main()
