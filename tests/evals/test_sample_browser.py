"""The sample browser in real Chromium: a vote and a debias run against a real local HTTP server, the
report, then samples.html from disk: filter, open a sample, and compare what is shown with the run store."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pandas as pd
from typer.testing import CliRunner

from nationbias.evals.cli.main import app
from nationbias.evals.report.sample_browser import samples_link
from nationbias.stores.state.runstore import RunStore
from tests.support.browser import CHROMIUM_ARGS, chromium_or_skip
from tests.support.fake_answers import default_content, schema_of

MODEL = "openai-compatible:fault-model"
INJECTED = "I cannot say </script><img src=x onerror=\"document.title='pwned'\"> \u2028 <b>no</b>"
THINK = "<think>Weigh <b>both</b> camps\u2029 first.</think>"


def answers(body: dict[str, Any]) -> str:
    """Schema-shaped answers; a third of the votes are not JSON (invalid, with HTML in them), a third
    carry a reasoning part."""
    content = default_content(body)
    schema = schema_of(body.get("response_format")) or {}
    if "vote" not in schema.get("properties", {}):
        return content
    digest = int(hashlib.sha256(body["messages"][-1]["content"].encode()).hexdigest(), 16) % 3
    return INJECTED if digest == 0 else THINK + content if digest == 1 else content


def run_study(base_url: str) -> Path:
    common = f"--model {MODEL} --base-url {base_url} --limit 4 --repeats 1 --concurrency 8".split()
    for extra in (["--run-id", "plain"], ["--debias", "--k", "1", "--run-id", "deb"]):
        result = CliRunner().invoke(app, ["run", "vote", *common, *extra])
        assert result.exit_code == 0, result.output
    result = CliRunner().invoke(app, ["report", "plain", "deb"])
    assert result.exit_code == 0, result.output
    return Path(result.output.strip().splitlines()[-1])


def choose(page: Any, name: str, value: str) -> None:
    """Pick ``value`` in a filter (options read "value (count)"); "" picks "(any)"."""
    page.evaluate(
        """([name, value]) => { const s = document.getElementById('filter-' + name);
             const o = [...s.options].find(o => value ? o.text.startsWith(value + ' (') : o.value === '-1');
             s.value = o.value; s.dispatchEvent(new Event('change')); }""",
        [name, value],
    )


def shown_count(page: Any) -> int:
    text = page.inner_text("#count")
    return 0 if text.startswith("no sample") else int(text.split(" of ")[1].split()[0])


def column(page: Any, n: int) -> list[str]:
    return page.eval_on_selector_all(f"#list tbody td:nth-child({n})", "tds => tds.map(t => t.textContent)")


def test_filter_open_and_compare_with_the_store(fault_server, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    browser_path = chromium_or_skip()
    report = run_study(fault_server(responder=answers).base_url)
    store = RunStore()
    frame = pd.concat([store.samples_frame("plain"), store.samples_frame("deb")], ignore_index=True)
    by_id = {(r["run_id"], r["sample_id"]): r for r in frame.to_dict(orient="records")}
    invalid = frame[frame["status"].eq("invalid")]
    assert len(invalid) and frame["status"].eq("ok").any(), frame["status"].value_counts()
    explained = [json.loads(line) for line in (report.parent / "explained.jsonl").read_text().splitlines()]
    deb = frame[frame["run_id"].eq("deb")]
    traj = next(
        r for r in deb.to_dict(orient="records") if r["extra"]["precedents"] and r["extra"]["history"]
    )

    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=browser_path, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(report.as_uri())
        page.click("#samples-link")
        page.wait_for_selector("body[data-ready='1']")
        assert page.url.endswith("/samples.html") and shown_count(page) == len(frame)

        choose(page, "test", "debias")
        assert shown_count(page) == len(deb) and set(column(page, 1)) <= {"deb", "…deb"}
        choose(page, "test", "")
        choose(page, "model", MODEL)
        assert shown_count(page) == len(frame)
        choose(page, "outcome", "correct")
        votes = frame["parsed"].map(lambda p: (p or {}).get("vote"))
        truths = frame["extra"].map(lambda e: (e or {}).get("truth"))
        assert shown_count(page) == int((frame["status"].eq("ok") & votes.eq(truths)).sum())
        choose(page, "outcome", "")
        persona = str(frame["persona"].iloc[0])
        choose(page, "persona", persona)
        assert shown_count(page) == int(frame["persona"].eq(persona).sum())
        assert set(column(page, 3)) == {persona}
        choose(page, "persona", "")
        choose(page, "status", "invalid")
        assert shown_count(page) == len(invalid)
        reason = str(invalid["parse_error"].iloc[0])
        choose(page, "reason", reason)
        assert shown_count(page) == int(invalid["parse_error"].eq(reason).sum())

        page.click("#list tbody tr >> nth=0")  # an invalid answer, with model-written HTML in it
        page.wait_for_selector("#detail h2.sample-id")
        run_id = page.text_content('#detail dd[data-key="run"]')
        row = by_id[(run_id, page.text_content("#detail h2.sample-id"))]
        roles = page.eval_on_selector_all("#detail > .messages h4.role", "hs => hs.map(h => h.textContent)")
        texts = page.eval_on_selector_all(
            "#detail > .messages pre.content", "ps => ps.map(p => p.textContent)"
        )
        assert [{"role": r, "content": t} for r, t in zip(roles, texts, strict=True)] == row["messages"]
        assert page.text_content("#detail > details.raw pre.raw") == row["raw"] == INJECTED
        assert page.text_content('#detail dd[data-key="invalid reason"]') == row["parse_error"]
        assert page.text_content('#detail dd[data-key="ground truth"]') == row["extra"]["truth"]
        assert page.locator("#detail img, #detail b").count() == 0 and page.title() != "pwned"

        choose(page, "reason", "")
        choose(page, "status", "ok")  # a valid plain vote: its reasoning folded, its explanation
        choose(page, "run", "plain")
        pairs = {(e["item"], e["member"]): e for e in explained}
        ok = frame[frame["run_id"].eq("plain") & frame["status"].eq("ok")]
        target = next(r for r in ok.to_dict(orient="records") if (r["item"], r["persona"]) in pairs)
        choose(page, "item", target["item"])
        choose(page, "persona", target["persona"])
        page.click("#list tbody tr >> nth=0")
        page.wait_for_selector("#detail .explanation")
        assert page.text_content("#detail h2.sample-id") == target["sample_id"]
        assert page.text_content("#detail > details.raw pre.raw") == target["raw"]
        assert page.text_content('#detail dd[data-key="label"]') == target["parsed"]["vote"]
        latency = page.text_content('#detail dd[data-key="latency s"]')
        assert latency == f"{round(target['latency_s'], 3):.3f}", latency
        tokens = page.text_content('#detail dd[data-key="tokens (prompt / completion)"]')
        assert tokens.startswith(f"{target['prompt_tokens']} / {target['completion_tokens']}"), tokens
        if target["extra"].get("reasoning"):
            assert page.text_content("#detail > details.reasoning pre") == target["extra"]["reasoning"]
        why = pairs[(target["item"], target["persona"])]
        assert f"predicted {why['predicted']}" in page.text_content("#detail .explanation .why-summary")

        choose(page, "status", "")  # a debiased sample: its whole trajectory
        choose(page, "run", "deb")
        choose(page, "item", traj["item"])
        choose(page, "persona", traj["persona"])
        page.click("#list tbody tr >> nth=0")
        page.wait_for_selector("#detail .trajectory")
        extra = traj["extra"]
        ids = page.eval_on_selector_all(".trajectory table.precedents tbody tr td:first-child",
                                        "tds => tds.map(t => t.textContent)")  # fmt: skip
        assert ids == [p["id"] for p in extra["precedents"]]
        reflections = page.eval_on_selector_all("blockquote.reflection", "bs => bs.map(b => b.textContent)")
        assert reflections == [h["reflection"] for h in extra["history"]]
        statements = [c["statement"] for c in extra["calls"] if c["node"] == "reflect"]
        shown = page.eval_on_selector_all(".statement-text", "ps => ps.map(p => p.textContent)")
        assert shown == [s["text"] for s in statements if s]
        final = next(c for c in extra["calls"] if c["node"] == "final_vote")
        assert page.text_content(".trajectory pre.history") == final["history"]
        assert final["history"] in final["messages"][-1]["content"]  # what the final prompt saw
        votes = page.eval_on_selector_all(".vote-vs-truth", "ps => ps.map(p => p.textContent)")
        assert votes == [
            f"rehearsal vote {h['predicted']} {'same as' if h['predicted'] == h['truth'] else 'differs from'}"
            f" the real vote {h['truth']}"
            for h in extra["history"]
        ]

        # a link to one run's samples of one item (as the report's sections make) opens the page filtered
        item = str(frame["item"].iloc[-1])
        page.goto(report.as_uri())
        page.goto(f"{report.parent.as_uri()}/{samples_link(run_id='plain', item=item)}")
        page.wait_for_selector("body[data-ready='1']")
        linked = frame[frame["run_id"].eq("plain") & frame["item"].eq(item)]
        assert len(linked) and shown_count(page) == len(linked) and set(column(page, 2)) == {item}
        assert page.eval_on_selector("#filter-item", "s => s.selectedOptions[0].text").startswith(item + " (")
        page.goto(f"{report.parent.as_uri()}/{samples_link(run_id='plain', item='S/1900/0')}")  # no such item
        page.wait_for_function("document.getElementById('count').textContent === 'no sample matches'")
        assert page.eval_on_selector("#filter-item", "s => s.selectedOptions[0].text") == "S/1900/0 (0)"
        browser.close()
    assert not errors, errors
