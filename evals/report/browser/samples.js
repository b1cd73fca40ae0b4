/* The sample browser: filters over a columnar index, 100 rows a page, details loaded on demand.
   Every text from the data goes through textContent (el's "text"), never innerHTML. */
"use strict";
(function () {
  const NB = (window.NB = window.NB || {});
  const PAGE = 100;
  // [filter key, label]: "test" and "model" are read through the run a sample belongs to
  const FILTERS = [["run", "Run"], ["test", "Test"], ["model", "Model"], ["persona", "Nation or state"],
    ["item", "Item"], ["label", "Label"], ["outcome", "Correct / wrong"], ["status", "Status"],
    ["reason", "Invalid reason"]];
  const state = { index: null, cols: {}, matches: new Int32Array(0), page: 0, selects: {}, runTest: [], runModel: [] };
  const waiting = new Map(); // script src -> Promise
  const loaded = { detail: new Map(), explained: new Map() };

  function el(tag, props, children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(props || {})) {
      if (key === "text") node.textContent = value == null ? "" : String(value);
      else if (key === "cls") node.className = value;
      else node.setAttribute(key, value);
    }
    for (const child of children || []) if (child) node.appendChild(child);
    return node;
  }
  NB.el = el;

  function loadScript(src) {
    if (!waiting.has(src)) {
      waiting.set(src, new Promise((resolve, reject) => {
        const script = el("script", { src: src });
        script.onload = resolve;
        script.onerror = () => { waiting.delete(src); reject(new Error("could not load " + src)); };
        document.body.appendChild(script);
      }));
    }
    return waiting.get(src);
  }
  NB.detail = (payload) => loaded.detail.set(payload.n, payload);
  NB.explained = (payload) => loaded.explained.set(payload.n, payload.pairs);

  NB.sample = async function (row) {
    const n = Math.floor(row / state.index.chunk);
    await loadScript("samples-detail-" + n + ".js");
    const chunk = loaded.detail.get(n);
    return { chunk: chunk, sample: chunk.samples[row % state.index.chunk] };
  };
  NB.explanation = async function (row) {
    const n = state.cols.explain[row];
    if (n < 0) return null;
    await loadScript("samples-explained-" + n + ".js");
    return loaded.explained.get(n)[value("item", row) + "\t" + value("persona", row)] || null;
  };

  function value(name, row) { return state.index.values[name][state.cols[name][row]]; }
  function runOf(row) { return state.index.runs[state.cols.run[row]]; }
  NB.value = value;
  NB.column = (name) => state.cols[name];
  NB.runOf = runOf;

  NB.index = function (index) {
    state.index = index;
    for (const [name, column] of Object.entries(index.columns)) {
      const numeric = column.every((v) => v === null || Number.isInteger(v));
      state.cols[name] = numeric && !["latency"].includes(name) ? Int32Array.from(column, (v) => (v === null ? -1 : v)) : column;
    }
    const tests = [...new Set(index.runs.map((r) => r.test))], models = [...new Set(index.runs.map((r) => r.model))];
    state.values = Object.assign({}, index.values, { test: tests, model: models });
    state.runTest = Int32Array.from(index.runs, (r) => tests.indexOf(r.test));
    state.runModel = Int32Array.from(index.runs, (r) => models.indexOf(r.model));
    const ids = index.runs.map((r) => r.id);
    let common = ids.length > 1 ? ids[0].length : 0; // the run ids shown without their shared prefix
    for (const id of ids) while (common && !id.startsWith(ids[0].slice(0, common))) common--;
    state.shortRun = ids.map((id) => (common ? "…" + id.slice(common) : id));
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
    else start();
  };

  function counts(name) {
    const n = state.values[name].length, out = new Int32Array(n), count = state.index.count;
    if (name === "test" || name === "model") {
      const byRun = name === "test" ? state.runTest : state.runModel, run = state.cols.run;
      for (let i = 0; i < count; i++) out[byRun[run[i]]]++;
    } else {
      const column = state.cols[name];
      for (let i = 0; i < count; i++) out[column[i]]++;
    }
    return out;
  }

  function start() {
    const index = state.index;
    if (index.notice) {
      const banner = document.getElementById("banner");
      banner.textContent = index.notice.charAt(0).toUpperCase() + index.notice.slice(1);
      banner.hidden = false;
    }
    document.getElementById("runs").textContent = index.count + " samples of " + index.runs.map((r) => r.label).join("; ");
    const form = document.getElementById("filters");
    for (const [name, label] of FILTERS) {
      const tally = counts(name);
      const order = Array.from(state.values[name].keys()).sort((a, b) => String(state.values[name][a]).localeCompare(String(state.values[name][b])));
      const select = el("select", { name: name, id: "filter-" + name }, [el("option", { value: "-1", text: "(any)" })]);
      for (const code of order) {
        const shown = state.values[name][code] === "" ? "(none)" : state.values[name][code];
        select.appendChild(el("option", { value: String(code), text: shown + " (" + tally[code] + ")" }));
      }
      select.addEventListener("change", filter);
      state.selects[name] = select;
      form.appendChild(el("label", {}, [el("span", { text: label }), select]));
    }
    document.getElementById("prev").addEventListener("click", () => turn(-1));
    document.getElementById("next").addEventListener("click", () => turn(1));
    const body = document.querySelector("#list tbody");
    body.addEventListener("click", (event) => { const tr = event.target.closest("tr"); if (tr) open(Number(tr.dataset.row)); });
    body.addEventListener("keydown", (event) => {
      const tr = event.target.closest("tr");
      if (tr && (event.key === "Enter" || event.key === " ")) { event.preventDefault(); open(Number(tr.dataset.row)); }
    });
    fromHash();
    window.addEventListener("hashchange", () => { fromHash(); filter(); });
    filter();
    document.body.dataset.loadMs = performance.now().toFixed(1); // since navigation start
    document.body.dataset.ready = "1";
  }

  // A link such as samples.html#run=ID&item=S%2F2020%2F1 (the report's links to an item's samples) sets
  // those filters; a value no sample has matches nothing rather than everything.
  function fromHash() {
    const wanted = new URLSearchParams(window.location.hash.slice(1));
    for (const [name] of FILTERS) {
      if (!wanted.has(name)) continue;
      const select = state.selects[name], code = state.values[name].indexOf(wanted.get(name));
      let missing = select.querySelector('option[value="-2"]');
      if (code < 0 && !missing) select.appendChild((missing = el("option", { value: "-2" })));
      if (code < 0) missing.textContent = wanted.get(name) + " (0)";
      select.value = String(code < 0 ? -2 : code);
    }
  }

  function filter() {
    const t0 = performance.now(), index = state.index, count = index.count;
    const pick = (name) => Number(state.selects[name].value);
    const test = pick("test"), model = pick("model"), only = pick("run");
    const runOk = Uint8Array.from(index.runs, (_, r) =>
      (only === -1 || only === r) && (test === -1 || state.runTest[r] === test) && (model === -1 || state.runModel[r] === model));
    const active = [];
    for (const [name] of FILTERS) {
      if (["run", "test", "model"].includes(name)) continue;
      const code = pick(name);
      if (code !== -1) active.push([state.cols[name], code]); // -2: a linked value no sample has
    }
    const run = state.cols.run, out = new Int32Array(count);
    let m = 0;
    rows: for (let i = 0; i < count; i++) {
      if (!runOk[run[i]]) continue;
      for (let f = 0; f < active.length; f++) if (active[f][0][i] !== active[f][1]) continue rows;
      out[m++] = i;
    }
    state.matches = out.subarray(0, m);
    state.page = 0;
    render();
    document.body.dataset.filterMs = (performance.now() - t0).toFixed(1);
  }

  function turn(step) {
    const last = Math.max(0, Math.ceil(state.matches.length / PAGE) - 1);
    state.page = Math.min(last, Math.max(0, state.page + step));
    render();
  }

  function render() {
    const body = document.querySelector("#list tbody"), from = state.page * PAGE;
    const rows = state.matches.subarray(from, from + PAGE), fragment = document.createDocumentFragment();
    for (const row of rows) {
      const latency = state.cols.latency[row], ptok = state.cols.ptok[row], ctok = state.cols.ctok[row];
      const cells = [state.shortRun[state.cols.run[row]], value("item", row), value("persona", row),
        state.cols.repeat[row], value("label", row), value("truth", row), value("outcome", row),
        value("status", row) + (value("reason", row) ? ": " + value("reason", row) : ""),
        latency == null ? "—" : latency.toFixed(2), (ptok < 0 ? "—" : ptok) + " / " + (ctok < 0 ? "—" : ctok)];
      const tr = el("tr", { tabindex: "0", "data-row": String(row), cls: "status-" + value("status", row) },
        cells.map((c) => el("td", { text: c })));
      tr.firstChild.title = state.index.runs[state.cols.run[row]].id; // the full run id on hover
      fragment.appendChild(tr);
    }
    body.replaceChildren(fragment);
    const total = state.matches.length;
    document.getElementById("count").textContent = total
      ? (from + 1) + "–" + (from + rows.length) + " of " + total + " samples"
      : "no sample matches";
  }

  async function open(row) {
    const box = document.getElementById("detail");
    box.hidden = false;
    box.replaceChildren(el("p", { text: "Loading sample…" }));
    for (const tr of document.querySelectorAll("#list tr.open")) tr.classList.remove("open");
    const tr = document.querySelector('#list tr[data-row="' + row + '"]');
    if (tr) tr.classList.add("open");
    try {
      const found = await NB.sample(row);
      NB.renderDetail(box, row, found.chunk, found.sample);
      const why = await NB.explanation(row);
      if (why) NB.renderExplanation(box, why);
    } catch (error) {
      box.replaceChildren(el("p", { cls: "error", text: String(error.message || error) }));
    }
  }
  NB.open = open;
})();
