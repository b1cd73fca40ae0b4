"""What the sample browser reads: a small columnar index of every sample, and the details in chunks.

The index (one row per sample: coded run, persona, item, label, truth, status, reason, outcome, and
latency and tokens) is all the page loads; a sample's prompt, raw answer and trajectory sit in a
chunk of ``CHUNK`` samples that the page loads when one of them is opened. Prompt texts are stored
once per chunk (most samples share their system prompt, and the repeats of an item their user
prompt); a message is ``[role, text index]``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from nationbias.graphs.model.call_result import split_reasoning
from nationbias.stores.domain import EMBEDDED_NOTICE

if TYPE_CHECKING:
    from nationbias.evals.report.context import Run

CHUNK = 250  # samples per detail file: ~100 KB to load when one is opened
EXPLAIN_CHUNK = 200  # explanations per file (an Assembly one is ~5 KB)
CODED = ("run", "persona", "item", "order", "label", "truth", "status", "reason", "outcome")
NUMBERS = ("repeat", "latency", "ptok", "ctok", "calls")
NO_TRUTH = "—"


def label_of(parsed: Any) -> str:
    """The parsed answer in one short string: the vote, DirectQA's label, a ranking with its polarity."""
    if parsed is None:
        return ""
    if isinstance(parsed, dict):
        for key in ("vote", "label"):
            if key in parsed:
                return str(parsed[key])
        if "ranking" in parsed:
            sign = parsed.get("polarity")
            return " > ".join(map(str, parsed["ranking"])) + (
                f" ({sign:+d})" if isinstance(sign, int) else ""
            )
    return json.dumps(parsed, ensure_ascii=False, sort_keys=True)


def outcome_of(status: str, label: str, truth: str | None) -> str:
    """Against the ground truth, as the scores count it: an invalid or errored answer is a miss."""
    if not truth:
        return NO_TRUTH
    return "correct" if status == "ok" and label == truth else "wrong"


def reason_of(status: str, parse_error: Any, error: Any) -> str:
    if status == "invalid":
        return str(parse_error or "invalid")
    if status == "error":
        return "error"
    return ""


class Codes:
    """Category codes: each distinct value once, each row an index into it."""

    def __init__(self) -> None:
        self.values: list[str] = []
        self._index: dict[str, int] = {}

    def code(self, value: str) -> int:
        found = self._index.get(value)
        if found is None:
            found = self._index[value] = len(self.values)
            self.values.append(value)
        return found


@dataclass
class Chunk:
    """One detail file: its samples and the texts they share."""

    texts: list[str] = field(default_factory=list)
    samples: list[dict[str, Any]] = field(default_factory=list)
    _index: dict[str, int] = field(default_factory=dict, repr=False)

    def text(self, value: Any) -> int:
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        found = self._index.get(text)
        if found is None:
            found = self._index[text] = len(self.texts)
            self.texts.append(text)
        return found

    def messages(self, messages: Any) -> list[list[Any]]:
        return [[str(m.get("role", "")), self.text(m.get("content", ""))] for m in messages or []]

    def payload(self) -> dict[str, Any]:
        return {"texts": self.texts, "samples": self.samples}


def _number(value: Any, digits: int | None = None) -> float | int | None:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return round(float(value), digits) if digits is not None else int(value)


def _text(value: Any) -> str | None:
    """A text column's value; pandas reads a NULL beside strings as NaN."""
    return value if isinstance(value, str) else None


def _detail(chunk: Chunk, row: dict[Any, Any]) -> dict[str, Any]:
    """A sample as stored, its messages (and every debias call's) as text references."""
    extra = dict(row["extra"] or {})
    raw = _text(row["raw"])
    answer, reasoning = split_reasoning(raw) if raw is not None else (None, None)
    reasoning = extra.get("reasoning") or reasoning  # as stored: the provider's part and the <think> one
    if isinstance(extra.get("calls"), list):
        extra["calls"] = [
            {**call, "messages": chunk.messages(call.get("messages"))} if isinstance(call, dict) else call
            for call in extra["calls"]
        ]
    return {
        "id": row["sample_id"],
        "messages": chunk.messages(row["messages"]),
        "raw": raw,
        "answer": answer,
        "reasoning": reasoning,
        "parsed": row["parsed"],
        "parse_error": _text(row["parse_error"]),
        "error": _text(row["error"]),
        "extra": extra,
    }


@dataclass
class BrowserData:
    """The index the page loads, the detail chunks, the explanation chunks."""

    index: dict[str, Any]
    chunks: list[Chunk]
    explained: list[dict[str, Any]]


def build(
    runs: Sequence[Run],
    explanations: Iterable[dict[str, Any]] = (),
    *,
    sink: Callable[[int, Chunk], None] | None = None,
) -> BrowserData:
    """Every sample of ``runs`` in stored order; ``explanations`` (precedent-model predictions, keyed by
    their item and member) are attached to the samples of that (item, persona) of a run whose test declares
    ``explained`` (the vote tests). With a ``sink``,
    each full chunk goes to it at once and only its place is kept: at 10^5 samples the details are
    ~150 MB of text, which need not all sit in memory."""
    codes = {name: Codes() for name in CODED}
    columns: dict[str, list[Any]] = {name: [] for name in (*CODED, *NUMBERS, "explain")}
    chunks: list[Chunk] = []
    chunk = Chunk()
    pairs: set[tuple[str, str]] = set()
    run_meta = []
    explained_tests = {run.test for run in runs if getattr(run.kind, "explained", False)}
    for run in runs:
        explains = run.test in explained_tests  # its test's samples are what the explanations explain
        run_meta.append(
            {
                "id": run.run_id,
                "test": run.test,
                "model": run.model,
                "label": run.label,
                "embedded": run.embedded,
            }
        )
        codes["run"].code(run.run_id)
        for row in run.samples.to_dict(orient="records"):
            extra = row["extra"] or {}
            label = label_of(row["parsed"]) if row["status"] == "ok" else ""
            truth = extra.get("truth")
            truth = str(truth) if truth not in (None, "") else None
            values = {
                "run": run.run_id,
                "persona": str(row["persona"]),
                "item": str(row["item"]),
                "order": str(row["pair_order"] or ""),
                "label": label,
                "truth": truth or NO_TRUTH,
                "status": str(row["status"]),
                "reason": reason_of(row["status"], _text(row["parse_error"]), _text(row["error"])),
                "outcome": outcome_of(row["status"], label, truth),
            }
            for name, value in values.items():
                columns[name].append(codes[name].code(value))
            columns["repeat"].append(_number(row["repeat"]))
            columns["latency"].append(_number(row["latency_s"], 3))
            columns["ptok"].append(_number(row["prompt_tokens"]))
            columns["ctok"].append(_number(row["completion_tokens"]))
            columns["calls"].append(_number(row["model_calls"]))
            if explains:
                pairs.add((values["item"], values["persona"]))
            chunk.samples.append(_detail(chunk, row))
            if len(chunk.samples) == CHUNK:
                chunks.append(_done(chunk, len(chunks), sink))
                chunk = Chunk()
    if chunk.samples:
        chunks.append(_done(chunk, len(chunks), sink))
    explained, where = _explained(explanations, pairs)
    for item, persona, run_code in zip(columns["item"], columns["persona"], columns["run"], strict=True):
        test = run_meta[run_code]["test"]
        key = (codes["item"].values[item], codes["persona"].values[persona])
        columns["explain"].append(where.get(key, -1) if test in explained_tests else -1)
    index = {
        "runs": run_meta,
        "values": {name: codes[name].values for name in CODED},
        "columns": columns,
        "count": len(columns["run"]),
        "chunk": CHUNK,
        "notice": EMBEDDED_NOTICE if any(r["embedded"] for r in run_meta) else None,
    }
    return BrowserData(index=index, chunks=chunks, explained=explained)


def _done(chunk: Chunk, n: int, sink: Callable[[int, Chunk], None] | None) -> Chunk:
    """A full chunk, or (once the sink has it) an empty one holding its place."""
    if sink is None:
        return chunk
    sink(n, chunk)
    return Chunk()


def _explained(
    explanations: Iterable[dict[str, Any]], pairs: set[tuple[str, str]]
) -> tuple[list[dict[str, Any]], dict[tuple[str, str], int]]:
    """The explanations of the (item, persona) pairs present, in files of ``EXPLAIN_CHUNK``."""
    files: list[dict[str, Any]] = []
    where: dict[tuple[str, str], int] = {}
    for e in explanations:
        key = (str(e.get("item")), str(e.get("member")))
        if key not in pairs or key in where:
            continue
        if not files or len(files[-1]) == EXPLAIN_CHUNK:
            files.append({})
        files[-1]["\t".join(key)] = e
        where[key] = len(files) - 1
    return files, where


def js_call(callback: str, payload: Any) -> str:
    """``callback(payload);`` as an ASCII-only script: JSON with every non-ASCII character escaped
    (U+2028/2029 among them) and every ``<`` written ``\\u003c``, so no text can close a script
    element (``</script>``) or open a comment, inline or not."""
    text = json.dumps(payload, ensure_ascii=True, separators=(",", ":"), default=str)
    text = text.replace("<", "\\u003c")
    return f"{callback}({text});\n"
