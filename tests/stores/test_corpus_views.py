"""Views and the ground truth: `data info` must print the paper's Table 1 G.T. column."""

from __future__ import annotations

from typer.testing import CliRunner

from nationbias.evals.cli.main import app
from nationbias.stores.corpora.corpus import Corpus, field_coverage, ground_truth, p5_vote

PAPER_GT = {
    "USA": {"Y": 33, "N": 27, "A": 6},
    "GBR": {"Y": 34, "N": 16, "A": 16},
    "FRA": {"Y": 40, "N": 15, "A": 11},
    "RUS": {"Y": 32, "N": 32, "A": 2},
    "CHN": {"Y": 33, "N": 12, "A": 21},
}


def test_views_have_the_documented_sizes(corpus: Corpus) -> None:
    assert (len(corpus), len(corpus.drafts), len(corpus.adopted), len(corpus.amendments)) == (
        758,
        66,
        679,
        13,
    )
    assert all(not r.adopted and r.kind == "draft" for r in corpus.drafts)
    assert all(p5_vote(r, code) for r in corpus.drafts for code in PAPER_GT)


def test_ground_truth_equals_paper_table_1(corpus: Corpus) -> None:
    assert ground_truth(corpus.drafts) == PAPER_GT


def test_field_coverage_matches_coverage_json(corpus: Corpus) -> None:
    drafts, adopted = field_coverage(corpus.drafts), field_coverage(corpus.adopted)
    assert (drafts["context"], drafts["draft_text"], drafts["statements"]) == (58, 9, 61)
    assert (adopted["context"], adopted["title"], adopted["draft_text"]) == (286, 528, 22)


def test_cli_info_prints_counts_table_and_coverage(corpus: Corpus) -> None:
    result = CliRunner().invoke(app, ["data", "info"], terminal_width=200)
    assert result.exit_code == 0, result.output
    assert "66 non-adopted drafts, 679 adopted, 13 amendments" in result.output
    rows = {
        line.split("│")[1].strip(): [c.strip() for c in line.split("│")[2:5]]
        for line in result.output.splitlines()
        if line.count("│") >= 5
    }
    for code, counts in PAPER_GT.items():
        assert rows[code] == [str(counts["Y"]), str(counts["N"]), str(counts["A"])]
    assert "Field coverage" in result.output and "press_excerpt" in result.output
