"""`study` and `ablate` on the General Assembly: the library (fake and embedded models), the CLI against a
real llama.cpp server, and bad combinations refused before any run.

The truth each sample is scored against is read back from the Assembly's own vote table, not from the
run, and the states a study picks are the ones `run vote --body unga` picks for the same options."""

from __future__ import annotations

from collections.abc import Iterator

import pandas as pd
import pytest
from typer.testing import CliRunner

import nationbias
from nationbias.evals.cli.main import app
from nationbias.evals.errors import UsageError
from nationbias.evals.study import Cell, StudyPlan, cell_runs, describe, left_out
from nationbias.graphs.study.options import RunOptions
from nationbias.graphs.study.personas import PersonaError
from nationbias.stores.corpora.unga import assembly_votes, load_assembly
from nationbias.stores.errors import InputError
from nationbias.stores.state.runstore import RunStore

LABELS = {"Y": "favour", "N": "against", "A": "abstention"}
ONE_CELL = [Cell(1, False, "bm25")]  # bm25 always finds an earlier roll call: a rehearsal is asked


def _recorded(frame: pd.DataFrame, year: int) -> pd.Series:
    """Each sample's recorded vote, from the Assembly's vote table (``UNGA-<rcid>``, state)."""
    votes = assembly_votes((year, year))
    truth = {
        (f"UNGA-{rcid}", member): LABELS[v]
        for rcid, member, v in votes[["rcid", "member", "vote"]].itertuples(index=False)
    }
    return pd.Series(
        [truth.get((i, p)) for i, p in zip(frame["item"], frame["persona"], strict=True)], index=frame.index
    )


def test_a_study_on_the_assembly_runs_the_vote_and_the_cells_on_a_seeded_sample_of_20_states() -> None:
    plan = StudyPlan(body="unga", years="2019", limit=1, repeats=1, cells=ONE_CELL, show_progress=False)
    assert describe(plan).startswith("study on the General Assembly in 2019: vote, then 1 debias cell(s)")
    line = describe(plan)
    assert "personas sample:20" in line and "Not run on unga: directqa, association, attribution" in line
    assert "attribution: votes on the Council's own drafts, each under a permanent member" in line
    assert left_out("unga") == ["directqa", "association", "attribution"] and left_out("unsc") == []

    ids = nationbias.study(model="fake:hash", plan=plan, run_prefix="ga")
    assert ids == ["ga-vote", "ga-debias-k1-norf-bm25"]

    # the same states `run vote --body unga` picks with the same seed and no --personas
    alone = nationbias.run(
        "vote", model="fake:hash", body="unga", years="2019", limit=1, repeats=1, show_progress=False
    )
    store = RunStore()
    roll_calls = load_assembly().roll_calls
    chosen = set(store.samples_frame(alone.run_id)["persona"])
    assert len(chosen) == 20
    for run_id in ids:
        config, frame = store.get_run(run_id), store.samples_frame(run_id)
        assert config["sample"]["body"] == "unga" and config["sample"]["personas"] == "sample:20"
        assert set(frame["persona"]) == chosen and frame["item"].nunique() == 1
        assert frame["item"].str.startswith("UNGA-").all() and frame["status"].eq("ok").all()
        truth = frame["extra"].map(lambda extra: extra["truth"])
        assert truth.tolist() == _recorded(frame, 2019).tolist()  # scored against the recorded votes
        for item, messages in zip(frame["item"], frame["messages"], strict=True):  # free of its own number
            number = roll_calls.loc[int(item.removeprefix("UNGA-")), "unres"].removeprefix("A/RES/")
            assert number not in " ".join(m["content"] for m in messages), (item, number)
        assert config["prompt_set"] == "assembly" and all(
            ref.startswith("assembly/") for ref in config["prompt_versions"].values()
        ), config["prompt_versions"]


def test_ablate_on_the_assembly_follows_personas_and_the_council_keeps_the_p5() -> None:
    ids = nationbias.ablate(
        model="fake:hash", cells=ONE_CELL, run_prefix="abl", body="unga", years="2019", limit=1,
        repeats=1, personas="BRA,NGA", show_progress=False,
    )  # fmt: skip
    frame = RunStore().samples_frame(ids[0])
    assert ids == ["abl-debias-k1-norf-bm25"] and sorted(frame["persona"]) == ["BRA", "NGA"]
    council = cell_runs(ONE_CELL, "sc", RunOptions())  # the Council's cells keep the paper's P5
    assert [(c.options.body, c.options.personas) for c in council] == [("unsc", "p5")]


def test_bad_combinations_fail_before_any_run() -> None:
    with pytest.raises(
        UsageError, match=r"tests \['directqa'\] do not run on --body unga: on unga a study runs vote"
    ):
        nationbias.study(model="fake:hash", plan=StudyPlan(body="unga", limits={"directqa": 1, "vote": 1}))
    with pytest.raises(InputError, match=r"--years 2021-2024 reaches outside the record: .* end in 2020"):
        nationbias.study(model="fake:hash", body="unga", years="2021-2024", limit=1)
    with pytest.raises(InputError, match="--prompts structured or assembly"):
        nationbias.ablate(model="fake:hash", cells=ONE_CELL, body="unga", prompts="paper")
    # a Council study checks its vote's personas before DirectQA and the AT run, not hours later
    with pytest.raises(PersonaError, match="groups are for the Assembly"):
        nationbias.study(model="fake:hash", personas="group:WEOG", limit=1, repeats=1, show_progress=False)
    assert RunStore().runs_frame().empty


def test_a_study_on_the_assembly_with_the_embedded_model() -> None:
    ids = nationbias.study(
        model="local:smollm2", plan=StudyPlan(cells=ONE_CELL), body="unga", years="2019", limit=1,
        repeats=1, personas="USA", concurrency=1, show_progress=False, run_prefix="emb",
    )  # fmt: skip
    assert ids == ["emb-vote", "emb-debias-k1-norf-bm25"]
    for run_id in ids:
        frame = RunStore().samples_frame(run_id)
        assert frame["persona"].tolist() == ["USA"] and frame["status"].isin(["ok", "invalid"]).all()
        assert frame["raw"].str.len().gt(0).all()  # every raw answer kept
    config = RunStore().get_run(ids[1])
    assert (
        config["embedded"] and config["options"]["retriever"] == "bm25" and config["prompt_set"] == "assembly"
    )
    debiased = RunStore().samples_frame(ids[1]).iloc[0]
    assert debiased["extra"]["precedents"] and debiased["model_calls"] == 1 + len(
        debiased["extra"]["precedents"]
    )


@pytest.fixture
def fresh_openai_http_clients() -> Iterator[None]:
    """langchain-openai caches one httpx AsyncClient per base URL for the process: drop the one this
    test's closed loop used (as tests/graphs/test_explicit_runs.py does)."""
    yield
    from langchain_openai.chat_models import _client_utils

    cached = getattr(_client_utils, "_cached_async_httpx_client", None)
    if cached is not None:
        cached.cache_clear()


@pytest.mark.usefixtures("fresh_openai_http_clients")
def test_ablate_on_the_assembly_through_the_cli_against_a_real_server(llama_server: str) -> None:
    result = CliRunner().invoke(
        app,
        [
            "ablate", "--model", "openai-compatible:smollm2", "--base-url", llama_server, "--body", "unga",
            "--years", "2019", "--limit", "1", "--repeats", "1", "--personas", "GBR", "--run-id", "srv",
            "--k", "1", "--reflexion", "off", "--retriever", "bm25",
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "ablation on the General Assembly in 2019: 1 debias cell(s); voting personas GBR" in result.output
    frame = RunStore().samples_frame("srv-debias-k1-norf-bm25")
    assert frame["persona"].tolist() == ["GBR"] and frame["status"].ne("error").all()
    assert frame["item"].str.startswith("UNGA-").all()
    assert frame["extra"].map(lambda extra: extra["truth"]).tolist() == _recorded(frame, 2019).tolist()
    assert "srv-debias-k1-norf-bm25" in result.output and "mean_weighted_f1" in result.output
