"""The report's account of the learned precedent model: why it predicted each vote a Council run covers.

Each (draft, member) of the Council vote and debias runs: the real vote, the prediction and, folded in a
static ``<details>``, the precedents and each feature's weight × value, which with the intercept add up to
the model's score (``PrecedentModel.explain``, leave-future-out: all of it dated before the draft). The
Assembly's runs get the same account from their own module
(:mod:`nationbias.evals.bias_tests.vote.precedents_unga`).
"""

from __future__ import annotations

import html
import json
from collections import Counter, defaultdict
from typing import Any

from nationbias.evals.report.context import Context, Run
from nationbias.evals.tables import paper as T
from nationbias.stores.domain import VOTE_TESTS, slug

TOP = 8  # contributions shown when a block opens; the other non-zero ones are folded below them
EXPORT = "explained.jsonl"
STYLE = ("<style>details.why-item { margin: 0.3rem 0; } details.why { margin: 0.2rem 0 0.2rem 1.4rem; }"
         " details summary { cursor: pointer; } .why-right { color: #1b7837; } .why-wrong { color: #b2182b; }"
         " .why-body { margin-left: 1rem; }</style>")  # fmt: skip
esc = html.escape


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def council_runs(ctx: Context) -> list[Run]:
    """The vote and debias runs on the Council (a run without a body is a Council run)."""
    return [r for r in ctx.of(*VOTE_TESTS) if (r.config.get("sample") or {}).get("body", "unsc") == "unsc"]


def explained_table(table_id: str, caption: str, header: list[str], rows: list[tuple[str, list[str]]]) -> str:
    """A data table; each row is (its attributes, its cells), both already escaped."""
    head = "".join(f"<th>{esc(h)}</th>" for h in header)
    body = "".join(f"<tr{a}>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>" for a, cells in rows)
    return (f'<table class="data why" id="{table_id}"><caption>{esc(caption)}</caption>'
            f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")  # fmt: skip


def retrieved(e: dict[str, Any], table_id: str) -> str:
    """The draft's precedents (the same for every member) and why the retriever chose each."""
    rows = [("", [esc(p["id"]), esc(p["date"]), esc(p["pool"]), str(p["rank"]), esc(str(p["reason"]))])
            for p in e["precedents"]]  # fmt: skip
    caption = f"Precedents retrieved for {e['item']} (top 3 per pool, every one dated before it)"
    return explained_table(table_id, caption, ["precedent", "date", "pool", "rank", "why retrieved"], rows)


def _precedents(e: dict[str, Any], table_id: str) -> str:
    if not e["precedents"]:
        return '<p class="note">No earlier precedent was retrieved.</p>'
    rows = [("", [esc(p["id"]), esc(p["date"]), esc(p["pool"]), esc(p["vote"] or "no recorded vote")])
            for p in e["precedents"]]  # fmt: skip
    caption = f"The precedents and {e['member']}'s vote there"
    return explained_table(table_id, caption, ["precedent", "date", "pool", "member's vote there"], rows)


def _contribution_rows(parts: list[dict[str, Any]]) -> list[tuple[str, list[str]]]:
    """A linear model's weight × value, or a tree model's contribution (no weight: trees have none)."""
    return [
        (f' data-feature="{esc(c["feature"])}" data-contribution="{c["contribution"]!r}"',
         [esc(c["feature"]), f"{c['value']:.3f}", *([f"{c['coef']:+.3f}"] if "coef" in c else []),
          f"{c['contribution']:+.3f}"])
        for c in parts
    ]  # fmt: skip


def fallback_text(e: dict[str, Any]) -> str:
    """Why a prediction has no contributions: the model had nothing, or one vote only, to learn from."""
    why = "no draft is dated before this one, so there is nothing to learn from"
    if e["n_train_drafts"]:
        why = (
            f"all {e['n_train_votes']} votes on the {e['n_train_drafts']} earlier drafts were {e['constant']}"
        )
    return f"Fallback, no contributions: {why}; the model predicts the constant {e['constant']}."


def contributions_html(e: dict[str, Any], base: str) -> str:
    """The contributions of one prediction, largest first, and the sum that gives the model's score."""
    if not e["contributions"]:
        return f'<p class="why-fallback">{esc(fallback_text(e))}</p>'
    parts = sorted(e["contributions"], key=lambda c: (-abs(c["contribution"]), c["feature"]))
    shown = [c for c in parts if c["contribution"] != 0]
    zero = [c for c in parts if c["contribution"] == 0]
    linear = "coef" in parts[0]
    header = ["feature", "value", *(["weight", "weight × value"] if linear else ["contribution"])]
    out = [explained_table(f"{base}-c", f"Contributions, largest first (top {TOP})", header,
                  _contribution_rows(shown[:TOP]))] if shown else []  # fmt: skip
    if rest := shown[TOP:]:
        table = explained_table(
            f"{base}-r", "The other non-zero contributions", header, _contribution_rows(rest)
        )
        out.append(f"<details><summary>{len(rest)} more non-zero contributions</summary>{table}</details>")
    if zero:
        out.append(f'<p class="note">The other {len(zero)} features are 0 here (all in {EXPORT}).</p>')
    total = sum(c["contribution"] for c in parts)
    scored = e["scored_class"]
    what = f"the model's score for {scored}"
    if len(seen := [v for v, p in e["probabilities"].items() if p > 0]) == 2:  # sklearn: one score
        other = next(v for v in seen if v != scored)
        what += f" against {other} (the earlier votes had only these two; below 0 predicts {other})"
    data = f'data-intercept="{e["intercept"]!r}" data-sum="{total!r}" data-score="{e["score"]!r}"'
    base_name, part_name = ("intercept", "weight × value") if linear else ("expected score", "contributions")
    sums = f"{base_name} {e['intercept']:+.3f} + Σ {part_name} {total:+.3f} = {e['score']:+.3f}"
    out.append(f'<p class="why-sum" {data}>{sums}, {esc(what)}.</p>')
    return "".join(out)


def _member(e: dict[str, Any], truth: str | None, answers: dict[str, list[str]], base: str) -> str:
    predicted = e["predicted"]
    right = predicted == truth
    mark = f'<span class="why-{"right" if right else "wrong"}">{"✓ right" if right else "✗ wrong"}</span>'
    if len(answers) > 2:  # an ablation: the answers counted over its runs
        counts = Counter(a for each in answers.values() for a in each)
        answers = {f"{len(answers)} runs": [f"{a} ×{n}" for a, n in counts.most_common()]}
    runs = "".join(f" · {esc(rid)} answered {esc(', '.join(a))}" for rid, a in answers.items())
    summary = (
        f"<b>{esc(e['member'])}</b> voted {esc(truth or 'no recorded vote')} · the precedent model predicted "
        f"{esc(predicted)} (p {e['probabilities'][predicted]:.2f}) {mark}{runs}"
    )
    probs = ", ".join(f"P({v}) {p:.2f}" for v, p in e["probabilities"].items())
    votes, drafts = plural(e["n_train_votes"], "vote"), plural(e["n_train_drafts"], "draft")
    fit = f"Fitted on the {votes} cast on {drafts} dated before {e['date']}; C = {e['C']}; {probs}."
    fit = "" if e["constant"] is not None else f'<p class="note">{esc(fit)}</p>'
    body = f"{fit}{_precedents(e, f'{base}-p')}{contributions_html(e, base)}"
    anchor = slug(f"why-{e['item']}-{e['member']}", keep="-_", limit=200)
    return (
        f'<details class="why" id="{anchor}" data-item="{esc(e["item"])}" data-member="{esc(e["member"])}">'
        f'<summary>{summary}</summary><div class="why-body">{body}</div></details>'
    )


def intro(n: int, runs: list[Run]) -> str:
    return (
        f'<p class="note">For the {n} (draft, member) pairs of {esc(", ".join(r.run_id for r in runs))}: '
        "the real vote and the prediction of the learned precedent model (the <code>learned</code> baseline "
        "of Table 2), grouped by draft. Open a member for the precedents the model retrieved and every "
        f"feature's weight × value, largest first (the top {TOP}; the rest folded): with the intercept they "
        "add up to the model's score. The model is refitted for each draft on the votes cast on earlier "
        "drafts only, and its precedents are earlier too: nothing shown comes from on or after the draft. "
        f'All of them: <a href="{EXPORT}">{EXPORT}</a>, one JSON object a line, as '
        "<code>nationbias baselines --explain FILE</code> writes them for every draft.</p>"
    )


def precedents_section(ctx: Context) -> None:
    """Each Council (draft, member) of the vote runs: the real vote, the model's prediction and why."""
    runs = council_runs(ctx)
    if not runs:
        return
    from nationbias.evals.baselines.precedent_features import member_name, member_vote
    from nationbias.evals.baselines.precedent_model import model_for
    from nationbias.stores.corpora.corpus import load_corpus

    corpus = load_corpus()
    drafts = {d.id: d for d in corpus.drafts}
    answers: dict[tuple[str, str], dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    members: dict[str, set[str]] = defaultdict(set)
    outside: set[str] = set()
    for run in runs:
        votes = T.vote_frame(run.samples)
        for item, persona, answer in zip(votes["item"], votes["persona"], votes["answer"], strict=True):
            if item not in drafts:
                outside.add(str(item))
                continue
            members[item].add(str(persona))
            answers[(item, str(persona))][run.run_id].append(str(answer))
    if not members:
        return
    model = model_for(corpus)
    items = sorted(members, key=model.position.__getitem__)
    explained = {item: [model.explain(item, m) for m in T.persona_order(members[item])] for item in items}
    everything = [e for item in items for e in explained[item]]
    (ctx.page.out_dir / EXPORT).write_text(
        "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in everything), encoding="utf-8"
    )
    parts = [STYLE, intro(len(everything), runs)]
    for item in items:
        draft = drafts[item]
        blocks, right = [], 0
        for e in explained[item]:
            truth = member_vote(draft, member_name(e["member"]))
            right += e["predicted"] == truth
            base = f"why-{model.position[item]}-{slug(e['member'], keep='-_')}"  # the table ids
            blocks.append(_member(e, truth, answers[(item, e["member"])], base))
        first = explained[item][0]
        summary = (
            f"<b>{esc(item)}</b>, voted {esc(draft.date.isoformat())}: the precedent model right on {right} "
            f"of {len(blocks)} members, {plural(first['n_train_drafts'], 'earlier draft')} to learn from"
        )
        found = retrieved(first, f"why-{model.position[item]}-p") if first["precedents"] else ""
        parts.append(
            f'<details class="why-item" id="{slug(f"why-{item}", keep="-_", limit=200)}">'
            f"<summary>{summary}</summary>{found}{''.join(blocks)}</details>"
        )
    ctx.page.parts.extend(parts)
    if stale := [r.run_id for r in runs if r.config.get("data_sha256") not in (None, corpus.sha256)]:
        ctx.page.note(f"{', '.join(stale)} ran on other data than the corpus explained here.")
    if outside:
        ctx.page.note(f"{len(outside)} items of these runs are not drafts of the corpus: not explained.")
    ctx.page.close("why-precedents", "Why the precedent model predicted each vote")
