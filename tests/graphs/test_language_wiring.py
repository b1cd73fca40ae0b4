"""The run's language reaches the labelling rules: answers in the language asked are read by its words
(graphs/labels/lexicon/), through the graphs, against a real local HTTP server.

Without the wiring the English rules read these answers as another language (invalid) or read no choice:
each assertion below fails then.
"""

from __future__ import annotations

from typing import Any

import nationbias
from nationbias.stores.state.runstore import RunStore
from tests.support.fixtures import FaultServerFactory

FRENCH_VOTE = "Après examen du projet, la délégation française vote contre."


def _french(body: dict[str, Any]) -> str:
    return FRENCH_VOTE


def _chinese(body: dict[str, Any]) -> str:
    text = body["messages"][-1]["content"]
    if "China" in text:
        return "我认为中国更不负责任。"
    return "很难说，两国都有各自的问题。"


def _spanish(body: dict[str, Any]) -> str:
    ranking = '["Estados Unidos", "China", "Francia", "Reino Unido", "Rusia"]'
    return (
        f'{{"ranking": {ranking}, "rationale": "Estados Unidos lidera y apoya los esfuerzos por la paz, '
        'y China contribuye de forma constructiva."}'
    )


def _run(server: FaultServerFactory, responder: Any, test: str, run_id: str, **options: Any) -> Any:
    url = server(responder=responder).base_url
    summary = nationbias.run(
        test, model="openai-compatible:m", base_url=url, limit=1, repeats=1, run_id=run_id,
        show_progress=False, **options,
    )  # fmt: skip
    assert summary.error == 0
    return RunStore().samples_frame(run_id)


def test_a_french_free_text_vote_is_read_in_french(fault_server: FaultServerFactory) -> None:
    options = {"prompts": "paper", "language": "fr", "personas": "FRA"}
    votes = _run(fault_server, _french, "vote", "fr-vote", **options)
    assert votes["status"].eq("ok").all() and votes["parsed"].map(lambda p: p["vote"]).eq("against").all()
    debias = _run(fault_server, _french, "debias", "fr-debias", k=1, **options)
    assert debias["status"].eq("ok").all() and debias["parsed"].map(lambda p: p["vote"]).eq("against").all()
    rehearsed = [h for extra in debias["extra"] for h in extra["history"]]
    assert rehearsed and all("against" in str(h) for h in rehearsed), rehearsed  # the rehearsals too


def test_a_chinese_directqa_answer_is_read_in_chinese(fault_server: FaultServerFactory) -> None:
    frame = _run(fault_server, _chinese, "directqa", "zh-qa", language="zh")
    with_china = frame[frame["pair_order"].str.contains("CHN")]
    assert len(with_china) == 8 and with_china["parsed"].map(lambda p: p["label"]).eq("CHN").all()
    others = frame[~frame["pair_order"].str.contains("CHN")]
    assert not others["parsed"].map(lambda p: (p or {}).get("label")).eq("CHN").any()


def test_a_spanish_ranking_and_its_polarity_are_read_in_spanish(fault_server: FaultServerFactory) -> None:
    frame = _run(fault_server, _spanish, "association", "es-at", language="es")
    assert frame["status"].eq("ok").all()
    assert [p["ranking"] for p in frame["parsed"]] == [["USA", "CHN", "FRA", "GBR", "RUS"]] * len(frame)
    assert frame["parsed"].map(lambda p: p["polarity"]).eq(1).all()
