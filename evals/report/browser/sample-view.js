/* One opened sample: its prompt, answer, label or invalid reason, ground truth, a debias trajectory,
   and the precedent model's explanation. Text goes through textContent only (NB.el's "text"). */
"use strict";
(function () {
  const NB = window.NB;
  const el = (...args) => NB.el(...args);
  const SHOWN_EXTRA = ["date", "context_kind", "cached", "finish_reason", "max_tokens", "reasoning_tokens",
    "labeller", "rules_reason", "judge_error", "history_empty", "visited"];

  function pre(text, cls) { return el("pre", { cls: cls || "text", text: text == null ? "" : text }); }
  function folded(summary, children, cls) {
    return el("details", { cls: cls || "" }, [el("summary", { text: summary }), ...children]);
  }
  function fmt(v) {
    if (v == null) return "—";
    if (typeof v === "number") return Number.isInteger(v) ? String(v) : v.toFixed(3);
    return typeof v === "object" ? JSON.stringify(v) : String(v);
  }
  function facts(pairs) {
    const dl = el("dl", { cls: "facts" });
    for (const [key, v] of pairs) {
      dl.appendChild(el("dt", { text: key }));
      dl.appendChild(el("dd", { text: fmt(v), "data-key": key }));
    }
    return dl;
  }
  function table(records, cls) {
    const keys = [...new Set(records.flatMap((r) => Object.keys(r)))];
    const head = el("tr", {}, keys.map((k) => el("th", { text: k })));
    const rows = records.map((r) => el("tr", {}, keys.map((k) => el("td", { text: fmt(r[k]) }))));
    return el("table", { cls: "data " + (cls || "") }, [el("thead", {}, [head]), el("tbody", {}, rows)]);
  }
  function messages(chunk, list, cls) {
    return el("div", { cls: cls || "messages" }, list.map(([role, text]) =>
      el("div", { cls: "message" }, [el("h4", { cls: "role", text: role }), pre(chunk.texts[text], "content")])));
  }
  function answer(raw, text, reasoning, cls) {
    const parts = [];
    if (raw == null) return [el("p", { cls: "muted", text: "No answer was received." })];
    parts.push(pre(text == null ? raw : text, "answer " + (cls || "")));
    if (reasoning) parts.push(folded("reasoning (" + reasoning.length + " characters)", [pre(reasoning, "reasoning")], "reasoning"));
    parts.push(folded("raw answer as received", [pre(raw, "raw")], "raw"));
    return parts;
  }
  function call(chunk, c, title) {
    const body = [facts([["latency s", c.latency_s], ["tokens", c.prompt_tokens + " / " + c.completion_tokens],
      ["cached", c.cached], ["finish", c.finish_reason], ["error", c.error]]),
      el("h4", { text: "prompt" }), messages(chunk, c.messages || []), el("h4", { text: "answer" }),
      ...answer(c.raw, null, c.reasoning)];
    return folded(title, body, "call call-" + c.node);
  }

  // what the question listed, in its order: a DirectQA pair as (a) and (b), an Association ranking's names
  function asked(order, extra) {
    const out = [];
    if (order) {
      const [a, b] = order.split("-");
      out.push(["pair asked", "(a) " + a + ", (b) " + b]);
    }
    if (Array.isArray(extra.order_presented)) out.push(["names listed, in order", extra.order_presented.join(", ")]);
    return out;
  }

  NB.renderDetail = function (box, row, chunk, s) {
    const run = NB.runOf(row), extra = s.extra || {}, status = NB.value("status", row);
    const parts = [el("h2", { text: s.id, cls: "sample-id" }),
      facts([["run", run.id], ["model", run.model], ["test", run.test], ["item", NB.value("item", row)],
        ["nation / state", NB.value("persona", row) || "—"], ...asked(NB.value("order", row), extra), ["status", status],
        [status === "ok" ? "label" : "invalid reason", status === "ok" ? NB.value("label", row) : (s.parse_error || "—")],
        ["error", s.error], ["ground truth", extra.truth], ["outcome", NB.value("outcome", row)],
        ["latency s", NB.detailNumbers(row).latency], ["tokens (prompt / completion)", NB.detailNumbers(row).tokens],
        ...SHOWN_EXTRA.filter((k) => k in extra).map((k) => [k, extra[k]])])];
    parts.push(el("h3", { text: "Prompt" }), messages(chunk, s.messages));
    parts.push(el("h3", { text: "Answer" }), ...answer(s.raw, s.answer, s.reasoning, "final"));
    if (s.parsed != null) parts.push(el("h3", { text: "Parsed" }), pre(JSON.stringify(s.parsed, null, 2), "parsed"));
    if (extra.judge_raw != null) parts.push(folded("the judge's raw answer", [pre(extra.judge_raw, "judge")]));
    if (Array.isArray(extra.precedents)) parts.push(trajectory(chunk, extra, row));
    box.replaceChildren(...parts);
  };

  NB.detailNumbers = function (row) {
    const c = (name) => NB.column(name)[row];
    const tok = (v) => (v < 0 ? "—" : String(v));
    return { latency: c("latency"), tokens: tok(c("ptok")) + " / " + tok(c("ctok")) + " over " + c("calls") + " call(s)" };
  };

  function trajectory(chunk, extra, row) {
    const calls = extra.calls || [], history = extra.history || [];
    const out = el("section", { cls: "trajectory" }, [el("h3", { text: "Debias trajectory" })]);
    out.appendChild(el("h4", { text: "Precedents retrieved (" + extra.precedents.length + ")" }));
    out.appendChild(extra.precedents.length
      ? table(extra.precedents.map((p) => ({ id: p.id, symbol: p.symbol, pool: p.pool, date: p.date, score: p.score,
        why: p.reason, "real vote": p.truth })), "precedents")
      : el("p", { cls: "muted", text: "None passed the retriever's threshold: the final vote saw no history." }));
    extra.precedents.forEach((p, i) => {
      const step = el("div", { cls: "step" }, [el("h4", { text: "Rehearsal " + (i + 1) + ": " + p.id +
        (p.symbol && p.symbol !== p.id ? " (the prompt quoted it as " + p.symbol + ")" : "") })]);
      const h = history[i];
      const rehearsal = calls.find((c) => c.node === "rehearse" && c.precedent === p.id);
      const reflection = calls.find((c) => c.node === "reflect" && c.precedent === p.id);
      if (h) {
        const agree = h.predicted === h.truth ? "same as" : "differs from";
        step.appendChild(el("p", { cls: "vote-vs-truth", text: "rehearsal vote " + h.predicted + " " + agree + " the real vote " + h.truth }));
      } else step.appendChild(el("p", { cls: "muted", text: "This rehearsal did not finish (the sample stopped here)." }));
      if (rehearsal) step.appendChild(call(chunk, rehearsal, "rehearsal call: prompt and answer"));
      if (h && h.reflection != null) step.appendChild(el("blockquote", { cls: "reflection", text: h.reflection }));
      if (reflection) {
        const st = reflection.statement;
        step.appendChild(st
          ? el("div", { cls: "statement" }, [el("p", { text: "Statement it read (" + st.source + "):" }), pre(st.text, "statement-text")])
          : el("p", { cls: "muted", text: "statement" in reflection ? "Statement read: none on record for this nation."
            : "Statement read: inside the reflection prompt below (not stored apart by this run's version)." }));
        step.appendChild(call(chunk, reflection, "reflection call: prompt and answer"));
      }
      out.appendChild(step);
    });
    const final = calls.find((c) => c.node === "final_vote");
    out.appendChild(el("h4", { text: "History as the final prompt saw it" }));
    out.appendChild(final && final.history != null ? pre(final.history, "history")
      : el("p", { cls: "muted", text: "Not stored apart by this run's version: it is inside the final prompt above." }));
    out.appendChild(el("h4", { text: "Final vote" }));
    const label = NB.value("label", row) || "invalid (" + (NB.value("reason", row) || "no answer") + ")";
    out.appendChild(el("p", { cls: "final-vote", text: label + " — real vote " + (extra.truth || "—") }));
    return out;
  }

  NB.renderExplanation = function (box, e) {
    const rows = (e.contributions || []).slice().sort((a, b) => Math.abs(b.contribution) - Math.abs(a.contribution));
    const parts = [el("h3", { text: "The precedent model's prediction for this vote" }),
      el("p", { cls: "why-summary", text: (e.model ? e.model + ": " : "") + "predicted " + e.predicted +
        (e.truth != null ? ", real vote " + e.truth : "") + " (" + e.item + ", " + e.member + ")" })];
    if ((e.precedents || []).length) parts.push(el("h4", { text: "Precedents it read" }), table(e.precedents, "why-precedents"));
    parts.push(el("h4", { text: "Contributions, largest first" }));
    parts.push(rows.length ? table(rows, "contributions") : el("p", { cls: "muted", text: "Fallback: no contributions." }));
    box.appendChild(el("section", { cls: "explanation" }, parts));
  };
})();
