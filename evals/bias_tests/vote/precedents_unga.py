"""The report's account of the Assembly's learned baseline: why it predicted each vote an Assembly run covers.

Each (roll call, state) of the vote and debias runs with ``--body unga``: the real vote, the model's
prediction and, folded, the earlier roll calls its features read (same title, similar text) with the
state's vote there, and each feature's exact contribution (TreeSHAP), which with the expected score add
up to the model's score (:mod:`nationbias.evals.baselines.assembly_explain`). Every pair goes to
``explained-unga.jsonl``; the page
shows the first :data:`SHOWN` pairs so that an Assembly-scale run keeps a page a browser opens at once.
"""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any

from nationbias.evals.bias_tests.vote.precedents import (
    STYLE,
    contributions_html,
    esc,
    explained_table,
    plural,
)
from nationbias.evals.report.context import Context, Run
from nationbias.evals.tables import paper as T
from nationbias.stores.domain import VOTE_TESTS, slug

EXPORT = "explained-unga.jsonl"
SHOWN = 200  # (roll call, state) pairs on the page; all of them in EXPORT


def assembly_runs(ctx: Context) -> list[Run]:
    return [r for r in ctx.of(*VOTE_TESTS) if (r.config.get("sample") or {}).get("body") == "unga"]


def _precedents(e: dict[str, Any], table_id: str) -> str:
    if not e["precedents"]:
        return '<p class="note">No earlier roll call to read.</p>'
    rows = [
        ("", [esc(p["id"]), esc(p["date"]), esc(p["pool"]), str(p["rank"]),
              "" if p["score"] is None else f"{p['score']:.2f}", esc(p["reason"]),
              esc(p["vote"] or "no recorded vote")])
        for p in e["precedents"]
    ]  # fmt: skip
    header = ["roll call", "date", "why read", "rank", "text similarity", "title", "state's vote there"]
    caption = f"The earlier roll calls read for {e['item']} and {e['member']}'s vote there"
    return explained_table(table_id, caption, header, rows)


def _pair(e: dict[str, Any], answers: dict[str, list[str]], base: str) -> str:
    truth, predicted = e["truth"], e["predicted"]
    right = predicted == truth
    mark = f'<span class="why-{"right" if right else "wrong"}">{"✓ right" if right else "✗ wrong"}</span>'
    runs = "".join(f" · {esc(rid)} answered {esc(', '.join(a))}" for rid, a in answers.items())
    p = e["probabilities"].get(predicted)
    chance = f" (p {p:.2f})" if p is not None else ""
    summary = (f"<b>{esc(e['member'])}</b> voted {esc(truth)} · the learned baseline predicted "
               f"{esc(predicted)}{chance} {mark}{runs}")  # fmt: skip
    if e["constant"] is not None:
        body = f'<p class="why-fallback">{esc(e["constant"])}.</p>'
    else:
        probs = ", ".join(f"P({v}) {q:.2f}" for v, q in e["probabilities"].items())
        fit = f"{e['model']}, fitted on the states' votes of the 5 years before {e['date'][:4]}; {probs}."
        body = f'<p class="note">{esc(fit)}</p>{contributions_html(e, base)}'
    body = f"{_precedents(e, f'{base}-p')}{body}"
    anchor = slug(f"why-{e['item']}-{e['member']}", keep="-_", limit=200)
    data = f'data-item="{esc(e["item"])}" data-member="{esc(e["member"])}"'
    return (f'<details class="why" id="{anchor}" {data}>'
            f'<summary>{summary}</summary><div class="why-body">{body}</div></details>')  # fmt: skip


def assembly_precedents_section(ctx: Context) -> None:
    """Each Assembly (roll call, state) of the vote runs: the real vote, the model's prediction and why."""
    runs = assembly_runs(ctx)
    if not runs:
        return
    from nationbias.evals.baselines.assembly_explain import explain_assembly

    answers: dict[tuple[str, str], dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for run in runs:
        votes = T.vote_frame(run.samples)
        for item, persona, answer in zip(votes["item"], votes["persona"], votes["answer"], strict=True):
            answers[(str(item), str(persona))][run.run_id].append(str(answer))
    items = sorted({item for item, _ in answers})
    personas = sorted({persona for _, persona in answers})
    explained = [
        e for e in explain_assembly(items=items, personas=personas) if (e["item"], e["member"]) in answers
    ]
    explained.sort(key=lambda e: (e["date"], e["item"], e["member"]))
    (ctx.page.out_dir / EXPORT).write_text(
        "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in explained), encoding="utf-8"
    )
    by_item: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for e in explained[:SHOWN]:
        by_item[e["item"]].append(e)
    shown = min(len(explained), SHOWN)
    run_ids = esc(", ".join(r.run_id for r in runs))
    parts = [STYLE, (
        f'<p class="note">The learned Assembly baseline (<code>model</code>, gradient-boosted trees) on '
        f"{shown} of the {len(explained)} (roll call, state) pairs of {run_ids}, by date. Open a state for "
        "the earlier roll calls its features read and every feature's exact "
        "contribution (TreeSHAP), largest first: with the expected score they add up to the model's score "
        "for the predicted vote. The model of a year is fitted on earlier years only. All pairs: "
        f'<a href="{EXPORT}">{EXPORT}</a>, as <code>nationbias baselines --body unga --explain FILE</code> '
        "writes them.</p>")]  # fmt: skip
    for n, (item, group) in enumerate(by_item.items()):
        right = sum(e["predicted"] == e["truth"] for e in group)
        blocks = [
            _pair(e, answers[(item, e["member"])], f"whyu-{n}-{slug(e['member'], keep='-_')}") for e in group
        ]
        summary = (f"<b>{esc(item)}</b>, voted {esc(group[0]['date'])}: the learned baseline right on "
                   f"{right} of {plural(len(group), 'state')}")  # fmt: skip
        parts.append(f'<details class="why-item" id="{slug(f"why-{item}", keep="-_", limit=200)}">'
                     f"<summary>{summary}</summary>{''.join(blocks)}</details>")  # fmt: skip
    if missing := len(answers) - len(explained):
        parts.append(f'<p class="note">{missing} pairs have no recorded vote to predict: not explained.</p>')
    ctx.page.parts.extend(parts)
    ctx.page.close("why-precedents-unga", "Why the learned Assembly baseline predicted each vote")
