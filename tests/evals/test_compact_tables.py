"""The paper's compact Tables 1–3, the first screen's headline and the HTML cells, from hand-built
frames whose figures are worked out by hand below."""

from __future__ import annotations

import math
from html.parser import HTMLParser

import pandas as pd
import pytest

from nationbias.evals.bias_tests.vote import headline as S
from nationbias.evals.report.compact_tables import (
    debias_compact,
    f1_compact,
    paper_debias_rows,
    votes_compact,
)
from nationbias.evals.report.html_table import Cell, render
from tests.support.samples import sample

NAN = float("nan")


def test_votes_compact_counts_truth_and_count_intervals() -> None:
    counts = pd.DataFrame(
        [  # USA on 4 drafts, mean of the repeats
            {"persona": "USA", "vote": "favour", "ground_truth": 2.0, "mean_count": 1.5, "n_drafts": 4},
            {"persona": "USA", "vote": "against", "ground_truth": 1.0, "mean_count": 2.0, "n_drafts": 4},
            {"persona": "USA", "vote": "abstention", "ground_truth": 1.0, "mean_count": 0.0, "n_drafts": 4},
            {"persona": "USA", "vote": "invalid", "ground_truth": NAN, "mean_count": 0.5, "n_drafts": 4},
            {"persona": "USA", "vote": "error", "ground_truth": NAN, "mean_count": 0.0, "n_drafts": 4},
        ]
    )
    ci = pd.DataFrame(  # share intervals: × 4 drafts gives the count's
        {
            "persona": ["USA"] * 3,
            "vote": ["favour", "against", "abstention"],
            "low": [0.25, 0.25, 0.0],
            "high": [0.5, 0.75, 0.0],
        }
    )
    table = votes_compact(counts, ci, paper={("USA", "favour"): 49.3})
    usa = table.loc["USA"]
    assert usa[("favour", "model")] == Cell("1.5", "[1.0, 2.0]")
    assert usa[("favour", "G.T.")].text == "2" and usa[("favour", "paper")].text == "49.3"
    assert usa[("against", "model")] == Cell("2.0", "[1.0, 3.0]")
    assert usa[("against", "paper")].text == "—"  # the paper has no such count
    assert usa[("abstention", "model")] == Cell("0.0", "[0.0, 0.0]")
    assert usa[("not a vote", "invalid")].text == "0.5" and usa[("drafts", "")].text == "4"
    assert [c for c in table.columns.get_level_values(0).unique()][:3] == ["favour", "against", "abstention"]
    assert "paper" not in set(votes_compact(counts, ci).columns.get_level_values(1))  # not the same model


def test_f1_compact_rows_are_models_columns_nations_with_intervals_under() -> None:
    run = pd.DataFrame(
        {"persona": ["GBR", "USA"], "point": [0.6, 0.5], "low": [NAN, 0.25], "high": [NAN, 0.75]}
    )
    table = f1_compact(
        {"gpt-4o-mini": ("run-1", run)}, plain={"baseline: majority": ("no LLM", {"USA": 0.4, "CHN": 0.3})}
    )
    assert table.columns.tolist() == ["run", "USA", "GBR", "CHN"]  # the paper's order of the P5
    assert table.loc["gpt-4o-mini", "USA"] == Cell("0.50", "[0.25, 0.75]")
    assert table.loc["gpt-4o-mini", "GBR"] == Cell("0.60", None)  # no interval, none drawn
    assert table.loc["gpt-4o-mini", "CHN"].text == "—"
    assert table.loc["baseline: majority", "CHN"].text == "0.30"
    assert table.loc["baseline: majority", "GBR"].text == "—"
    assert table.loc["baseline: majority", "run"] == "no LLM"


def test_debias_compact_prints_delta_before_the_score_and_its_paired_interval_under() -> None:
    long = pd.DataFrame(
        {
            "persona": ["USA", "GBR"],
            "base": [0.4, 0.5],
            "debiased": [0.6, 0.45],
            "delta": [0.2, -0.05],
            "paired_delta_low": [0.05, -0.2],
            "paired_delta_high": [0.3, 0.1],
        }
    )
    table = debias_compact(long, base=("m", "b1"), debiased=("m + RAG", "d1"))
    assert table.loc["m", "USA"].text == "0.40" and table.loc["m", "run"] == "b1"
    assert table.loc["m + RAG", "USA"] == Cell("(+0.20) 0.60", "Δ [+0.05, +0.30]")
    assert table.loc["m + RAG", "GBR"] == Cell("(-0.05) 0.45", "Δ [-0.20, +0.10]")
    paper = paper_debias_rows({"USA": 0.60}, {"USA": 0.59}, name="4o-mini")
    assert paper.loc["paper: 4o-mini + RAG, Rflx", "USA"].text == "(-0.01) 0.59"  # the paper's (-1) 59


def _votes(rows: list[tuple[str, str, str, str | None]]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            sample("vote", item, 0, None if vote is None else {"vote": vote}, {"truth": truth}, persona=who)
            for who, item, truth, vote in rows
        ]
    )


HEADLINE_ROWS = [  # USA right on both drafts (F1 1); GBR wrong on d1, invalid on d2 (F1 0)
    ("USA", "d1", "favour", "favour"),
    ("USA", "d2", "against", "against"),
    ("GBR", "d1", "favour", "against"),
    ("GBR", "d2", "against", None),
]


def test_headline_mean_f1_over_nations_and_its_interval() -> None:
    ci, nations, pooled = S.mean_f1_ci(_votes(HEADLINE_ROWS), n_resamples=200, seed=0)
    assert nations == 2 and not pooled
    # every resample of the two drafts keeps USA at 1 and GBR at 0: the mean is 0.5, the interval a point
    assert (ci.point, ci.low, ci.high) == pytest.approx((0.5, 0.5, 0.5))


def test_headline_pools_every_question_when_the_cube_is_too_big(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(S, "CUBE_LIMIT", 0)
    ci, _, pooled = S.mean_f1_ci(_votes(HEADLINE_ROWS), n_resamples=200, seed=0)
    # favour: P 1/1, R 1/2 -> F1 2/3; against: P 1/2, R 1/2 -> 1/2; weighted by support 2 and 2: 7/12
    assert pooled and ci.point == pytest.approx(7 / 12)
    assert 0 <= ci.low <= ci.point <= ci.high <= 1


class _Cells(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.titles: list[str] = []
        self.headers: list[tuple[str, str | None]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        data = dict(attrs)
        if data.get("title"):
            self.titles.append(str(data["title"]))
        if tag == "th":
            self.headers.append((tag, data.get("colspan")))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def test_render_shortens_ids_keeps_them_in_the_title_shows_run_ids_whole_and_escapes() -> None:
    sha = "33b2a275f6e0750462b6" + "0" * 44
    frame = pd.DataFrame(
        {
            "run_id": ["browser-debias-k1-norf-keyword"],
            "model": ["together:meta-llama/Llama-3.3-70B-Instruct-Turbo"],
            "data_sha256": [sha],
            "prompt_versions": ["final_vote=final_vote@v1:d4ccb7b7, reflexion=reflexion@v1:9e407a4f"],
            "note": ["<b>x</b>"],
            "f1": [Cell("0.50", "[0.25, 0.75]")],
            "n": [math.nan],
        }
    )
    html = render(frame, table_id="t", caption="c")
    cells = _Cells()
    cells.feed(html)
    text = "".join(cells.text)
    assert set(cells.titles) >= {
        "together:meta-llama/Llama-3.3-70B-Instruct-Turbo",
        sha,
        "final_vote=final_vote@v1:d4ccb7b7, reflexion=reflexion@v1:9e407a4f",
    }
    # a run id whole, in a <code> one click selects (to copy it into `nationbias report`)
    assert '<td class="run-id"><code>browser-debias-k1-norf-keyword</code></td>' in html
    assert "33b2a275f6…" in text and sha not in text
    assert "Llama-3.3-7…struct-Turbo" in text  # provider and organisation dropped, cut to 24
    assert "final_vote@v1, reflexion@v1" in text
    assert "<b>" not in html and "&lt;b&gt;x&lt;/b&gt;" in html
    assert "0.50[0.25, 0.75]" in text and "—" in text
    assert "<th>data_sha256</th>" in html  # a short name is never broken inside
    assert "<th>prompt_<wbr>versions</th>" in html  # a longer one may wrap after its underscore


def test_render_two_level_header_spans_its_groups() -> None:
    frame = pd.DataFrame(
        [[Cell("1"), Cell("2"), Cell("3")]],
        columns=pd.MultiIndex.from_tuples([("favour", "model"), ("favour", "G.T."), ("drafts", "")]),
        index=pd.Index(["USA"], name="nation"),
    )
    cells = _Cells()
    cells.feed(render(frame, table_id="t", caption="c", index=True))
    assert ("th", "2") in cells.headers and ("th", "1") in cells.headers  # favour spans model and G.T.


def test_runs_display_shows_what_differs_and_says_what_is_shared_once() -> None:
    from nationbias.evals.report.runs_table import runs_display

    sha = "ab" * 32
    meta = pd.DataFrame(
        {
            "run_id": ["study-vote", "study-debias"],
            "test": ["vote", "debias"],
            "seed": [0, 0],
            "data_sha256": [sha, sha],
        }
    )
    shown, shared = runs_display(meta)
    assert shown.index.tolist() == ["study-vote", "study-debias"] and shown.columns.tolist() == ["test"]
    assert shared == f"Every run here shares seed: 0; data_sha256: {sha}."
    single, none = runs_display(meta.iloc[:1])
    assert none is None and single.index.tolist() == ["run_id", "test", "seed", "data_sha256"]
    assert single.loc["data_sha256", "value"] == Cell("ababababab…", title=sha)  # 10 characters, whole
    assert single.loc["seed", "value"] == Cell("0")


def test_many_nations_turn_into_rows() -> None:
    from nationbias.evals.report.compact_tables import fit

    codes = [f"S{i:02d}" for i in range(12)]
    run = pd.DataFrame({"persona": codes, "point": 0.5, "low": 0.4, "high": 0.6})
    wide = f1_compact({"m": ("r", run)})
    turned = fit(wide)
    assert turned.index.tolist() == ["run", *codes] and turned.columns.tolist() == ["m"]
    assert turned.loc["S03", "m"] == Cell("0.50", "[0.40, 0.60]")
    assert fit(wide.iloc[:, :6]).columns.tolist()[0] == "run"  # five nations stay columns


def test_a_model_row_keeps_its_framework_suffix_whole() -> None:
    """Two debiased rows of one model differ only in their suffix: shortening must not hide it."""
    from nationbias.evals.report.html_table import model_name

    assert model_name("local:smollm2 + RAG k=1, Rflx, keyword") == "smollm2 + RAG k=1, Rflx, keyword"
    assert model_name("local:smollm2 + RAG k=1, no Rflx, keyword") == "smollm2 + RAG k=1, no Rflx, keyword"
    assert (
        model_name("together:meta-llama/Llama-3.3-70B-Instruct-Turbo-Extra") == "Llama-3.3-7…-Turbo-Extra"
    )  # 24 characters, cut in the middle
