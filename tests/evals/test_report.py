"""The HTML report from synthetic runs of all four tests, written through a real RunStore."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from nationbias.evals.page.writer import BANNER, write_report
from nationbias.evals.report.figures import DEMO_CAPTION
from nationbias.stores.domain import P5
from nationbias.stores.state.runstore import RunStore, SampleRow

VOTES = ("favour", "against", "abstention")
EVIL = "<script>alert('x')</script>"


def _vote_run(
    store: RunStore,
    run_id: str,
    *,
    test: str,
    model: str,
    accuracy: float,
    seed: int,
    options: dict | None = None,
) -> None:
    rng = np.random.default_rng(seed)
    store.create_run(
        run_id,
        {
            "test": test,
            "model": model,
            "embedded": model.startswith("local:"),
            "seed": seed,
            "prompt_versions": {"persona_vote": "v1"},
            "data_sha256": "abc123",
            "package_version": "0.1.0",
            "options": options or {},
        },
    )
    truth_rng = np.random.default_rng(99)  # same drafts and truths in every run
    truths = {(f"S/{i}", p): VOTES[truth_rng.integers(3)] for i in range(12) for p in P5}
    for (item, persona), truth in truths.items():
        for repeat in range(3):
            if rng.random() < 0.08:
                row = SampleRow(
                    test=test,
                    item=item,
                    persona=persona,
                    repeat=repeat,
                    status="invalid",
                    messages=[],
                    raw=EVIL,
                    parse_error="no vote",
                    extra={"truth": truth},
                )
            else:
                vote = truth if rng.random() < accuracy else VOTES[rng.integers(3)]
                extra = {
                    "truth": truth,
                    "context_kind": "fallback" if item == "S/0" else "context",
                    "date": "2020",
                }
                if test == "debias":
                    extra |= {"history_empty": item == "S/1", "precedents": []}
                row = SampleRow(
                    test=test,
                    item=item,
                    persona=persona,
                    repeat=repeat,
                    status="ok",
                    messages=[],
                    raw=EVIL,
                    parsed={"vote": vote, "rationale": EVIL},
                    extra=extra,
                )
            store.write(run_id, row)


def _directqa_run(store: RunStore, run_id: str, model: str) -> None:
    rng = np.random.default_rng(1)
    store.create_run(run_id, {"test": "directqa", "model": model, "embedded": model.startswith("local:")})
    for family in ("general", "trusteeship", "military_action"):
        for i, a in enumerate(P5):
            for b in P5[i + 1 :]:
                for first, second in ((a, b), (b, a)):
                    for repeat in range(3):
                        label = [a, b, "neutral", None][rng.integers(4)]
                        store.write(
                            run_id,
                            SampleRow(
                                test="directqa",
                                item=family,
                                persona="",
                                repeat=repeat,
                                pair_order=f"{first}-{second}",
                                status="ok" if label else "invalid",
                                messages=[],
                                parsed={"label": label} if label else None,
                                extra={"labeller": "rules"},
                            ),
                        )


def _association_run(store: RunStore, run_id: str, model: str) -> None:
    rng = np.random.default_rng(2)
    store.create_run(run_id, {"test": "association", "model": model, "embedded": model.startswith("local:")})
    keywords = {
        "human rights": "Human Rights",
        "sanctions": "Human Rights",
        "veto": "Armament",
        "nuclear": "Armament",
    }
    for keyword, category in keywords.items():
        for repeat in range(3):
            ranking = list(rng.permutation(P5))
            polarity = [1, -1, None][rng.integers(3)]
            label = {1: "positive", -1: "negative", None: "inconsistent"}[polarity]
            store.write(
                run_id,
                SampleRow(
                    test="association",
                    item=keyword,
                    persona="",
                    repeat=repeat,
                    status="ok",
                    messages=[],
                    parsed={"ranking": ranking, "polarity": polarity},
                    extra={"category": category, "polarity_label": label, "labeller": "judge"},
                ),
            )


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: list[str] = []
        self.imgs: list[dict[str, str | None]] = []
        self.tables = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        data = dict(attrs)
        if data.get("id"):
            self.ids.append(str(data["id"]))
        if tag == "img":
            self.imgs.append(data)
        if tag == "table":
            self.tables += 1


@pytest.fixture(scope="module")
def demo_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("report")
    store = RunStore(tmp / "runs.sqlite")
    model = "local:smollm2"
    _vote_run(store, "vote1", test="vote", model=model, accuracy=0.4, seed=1)
    _vote_run(
        store,
        "deb1",
        test="debias",
        model=model,
        accuracy=0.8,
        seed=2,
        options={"k": 1, "reflexion": True, "retriever": "bm25"},
    )
    _directqa_run(store, "qa1", model)
    _association_run(store, "at1", model)
    baselines = pd.DataFrame(
        {"majority": [0.5] * 5, "precedent": [0.4] * 5}, index=pd.Index(list(P5), name="persona")
    )
    return write_report(
        ["vote1", "deb1", "qa1", "at1"],
        out_dir=tmp / "out",
        store=store,
        baselines=baselines,
        n_resamples=200,
    )


def test_report_files_and_sections(demo_report: Path) -> None:
    assert demo_report.name == "index.html"
    text = demo_report.read_text(encoding="utf-8")
    parser = _Collector()
    parser.feed(text)
    for section in (
        "runs",
        "table1",
        "table2",
        "confusion",
        "table3",
        "table4",
        "table5",
        "figure2-directqa",
        "figure3-association",
        "agreement",
        "quality",
    ):
        assert section in parser.ids, section
    assert parser.tables >= 10
    assert parser.imgs and all(img.get("alt") for img in parser.imgs)
    for img in parser.imgs:
        assert (demo_report.parent / str(img["src"])).is_file()
    assert text.count(BANNER) == 2
    assert "<script>" not in text
    csvs = {p.name for p in demo_report.parent.glob("*.csv")}
    assert {"run-metadata.csv", "table4-ablation.csv", "table5-vote-distribution.csv"} <= csvs
    assert len(list(demo_report.parent.glob("*.png"))) >= 5  # the confusion matrices are HTML grids


def test_every_table_has_id_and_caption(demo_report: Path) -> None:
    text = demo_report.read_text(encoding="utf-8")
    tables = re.findall(r"<table[^>]*>\s*<caption>", text)
    assert len(tables) == text.count("<table")
    assert all('id="' in t for t in tables)


def test_headline_numbers_have_cis(demo_report: Path) -> None:
    out = demo_report.parent
    table1 = pd.read_csv(out / "table1-vote1.csv")
    assert table1["share_95ci"].str.match(r"\d\.\d{3} \[\d\.\d{3}, \d\.\d{3}\]").all()
    table3 = pd.read_csv(out / "table3-deb1.csv")
    assert (table3["delta"] > 0).all()  # the synthetic debiased run is more accurate
    assert table3["pooled_delta_95ci"].str.contains(r"\[").all()
    assert pd.read_csv(out / "irres-qa1.csv")["irres_95ci"].str.contains(r"\[").all()
    ats = pd.read_csv(out / "ats-at1.csv")
    assert "average" in set(ats["category"])
    quality = pd.read_csv(out / "invalid-vote1.csv")
    assert quality["invalid"].sum() > 0


def test_report_scores_count_invalid_answers_and_judge_chi2_at_its_dof(demo_report: Path) -> None:
    out = demo_report.parent
    table2 = pd.read_csv(out / "table2-vote1.csv")
    assert {"weighted_f1", "invalid_rate", "error_rate", "weighted_f1_valid_only"} <= set(table2.columns)
    assert list(table2.columns).index("invalid_rate") == list(table2.columns).index("weighted_f1") + 1
    assert (table2["invalid_rate"] > 0).all()  # ~8% invalid in the synthetic run
    assert (table2["weighted_f1"] < table2["weighted_f1_valid_only"]).all()  # misses lower the score
    confusion = pd.read_csv(out / "confusion-vote1.csv")
    missed = confusion[confusion["predicted"].eq("invalid")]["count"].sum()
    assert missed == pd.read_csv(out / "invalid-vote1.csv")["invalid"].sum()
    table3 = pd.read_csv(out / "table3-deb1.csv")
    assert {"base_invalid_rate", "debiased_invalid_rate", "delta_valid_only"} <= set(table3.columns)
    table4 = pd.read_csv(out / "table4-ablation.csv")
    assert "mean_invalid_rate" in table4.columns
    bars = table4.set_index("model")[
        "mean_weighted_f1"
    ]  # the fixture's baselines: 0.5 and 0.4 for each nation
    assert bars["baseline: majority"] == pytest.approx(0.5) and bars["baseline: precedent"] == pytest.approx(
        0.4
    )
    assert "invalid_rate" in pd.read_csv(out / "irres-qa1.csv").columns
    votes = pd.read_csv(out / "agreement-vote1.csv")
    assert (votes["dof"] == 4).all() and votes["critical"].round(3).eq(9.488).all()  # 3 runs × 3 votes
    assert votes["paper_threshold"].eq(9.488).all()
    qa = pd.read_csv(out / "agreement-qa1.csv")
    assert (qa["dof"] == 8).all() and qa["critical"].round(3).eq(15.507).all()  # neutral not a class
    assert (qa["n_neutral"] > 0).all()
    friedman = pd.read_csv(out / "agreement-at1.csv")
    assert (friedman["dof"] == 2).all() and friedman["critical"].round(3).eq(5.991).all()
    assert "judged at its own dof" in demo_report.read_text(encoding="utf-8")


def test_report_without_embedded_runs_has_no_banner(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs.sqlite")
    _vote_run(store, "gpt", test="vote", model="openai:gpt-4o-mini", accuracy=0.5, seed=3)
    path = write_report(["gpt"], out_dir=tmp_path / "out", store=store, n_resamples=50)
    text = path.read_text(encoding="utf-8")
    assert BANNER not in text and DEMO_CAPTION not in text
    assert 'id="table1"' in text and 'id="figure2-directqa"' not in text
    table2 = pd.read_csv(tmp_path / "out" / "table2-gpt.csv")
    assert table2["paper_weighted_f1"].tolist() == [0.60, 0.43, 0.49, 0.41, 0.28]  # published, same model
    table1 = pd.read_csv(tmp_path / "out" / "table1-gpt.csv")
    assert {"paper_ground_truth", "paper_gpt-4o-mini"} <= set(table1.columns)
    with pytest.raises(ValueError):
        write_report([], out_dir=tmp_path / "x", store=store)


def test_report_states_both_families_and_which_claims_survive(demo_report: Path) -> None:
    """Significance after correction: every run's per-nation claims in one table, each p beside Holm and BH
    over its family (one test of one run, one scope: the five nations) and over the whole report."""
    out = demo_report.parent
    text = demo_report.read_text(encoding="utf-8")
    parser = _Collector()
    parser.feed(text)
    assert {"significance", "significance-summary"} <= set(parser.ids)
    claims = pd.read_csv(out / "significance.csv")
    adjusted = ["p_holm_family", "p_bh_family", "p_holm_report", "p_bh_report"]
    assert {"statistic", "p", "null_value", "method", "n", "df", *adjusted} <= set(claims.columns)
    # vote: favour + 2 baselines; debias: the same + the paired delta; DirectQA: 3 families + the function
    # mean; Association: 2 categories + the average — each for the five nations
    by_claim = claims.groupby(["test", "claim"]).size().to_dict()
    assert by_claim == {
        ("association", "ATS vs 0"): 15,
        ("debias", "debias delta vs 0"): 5,
        ("debias", "favour share vs record"): 5,
        ("debias", "weighted F1 vs baseline"): 10,
        ("directqa", "irres_score vs no preference"): 20,
        ("vote", "favour share vs record"): 5,
        ("vote", "weighted F1 vs baseline"): 10,
    }
    tested = claims[claims["p"].notna()]
    assert (tested["m_report"] == len(tested)).all()
    assert (claims.loc[claims["test"].ne("association"), "m_family"] == 5).all()
    assert (tested["p_holm_report"] >= tested["p_holm_family"] - 1e-12).all()
    assert (tested[adjusted].ge(tested[["p"] * 4].to_numpy() - 1e-12)).all().all()  # never below the raw p
    # the synthetic debiased run (accuracy 0.8 against 0.4) beats its base for most personas, and says so
    delta = claims[claims["claim"].eq("debias delta vs 0")]
    assert delta["survives_bh_family"].sum() >= 3 and (delta["scope"] == "vs vote1").all()
    summary = pd.read_csv(out / "significance-summary.csv").set_index(["test", "model"])
    for flag in ("survives_holm_family", "survives_bh_report"):
        assert summary[flag].sum() == claims[flag].sum()
    section = text.split('<section id="significance">', 1)[1].split("</section>", 1)[0]
    assert "The family: the nations of one kind of claim of one test of one run" in section
    assert f"The report: all {len(tested)} tested claims at once" in section
    assert section.count("debias delta vs 0") >= 3  # the surviving deltas are listed on the page


def test_a_report_where_no_claim_survives_says_so(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs.sqlite")
    _directqa_run(store, "qa1", "openai-compatible:m")  # answers drawn at random: no preference to find
    out = write_report(["qa1"], out_dir=tmp_path / "out", store=store, n_resamples=50)
    claims = pd.read_csv(out.parent / "significance.csv")
    assert len(claims) == 20 and not claims.filter(like="survives_").any().any()
    section = (
        out.read_text(encoding="utf-8").split('<section id="significance">', 1)[1].split("</section>")[0]
    )
    assert "No claim survives any correction at α = 0.05." in section
    assert (
        'id="significance"' not in section and 'href="significance.csv"' in section
    )  # linked, no empty table
