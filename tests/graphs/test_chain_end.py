"""While a study runs, a LangChain run nobody listens to ends without a task; a listened-to run's
handlers still hear every end (graphs/study/chain_end.py)."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any

from langchain_core.callbacks import AsyncCallbackHandler
from langchain_core.callbacks.manager import AsyncCallbackManagerForChainRun
from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict

from nationbias.graphs.study.chain_end import SHIELDED_CHAIN_END, unshielded_chain_end
from nationbias.graphs.study.runner import Task, run_tasks
from nationbias.stores.state.runstore import RunStore, SampleRow


def _manager(handlers: list[Any]) -> AsyncCallbackManagerForChainRun:
    return AsyncCallbackManagerForChainRun(
        run_id=uuid.uuid4(), handlers=handlers, inheritable_handlers=handlers
    )


def _suspends(manager: AsyncCallbackManagerForChainRun) -> bool:
    """Whether ``on_chain_end`` gives the loop a turn (creates and awaits a task) before it returns."""

    async def probe() -> bool:
        step = manager.on_chain_end({"out": 1})
        try:
            step.send(None)
        except StopIteration:
            return False
        step.close()
        return True

    return asyncio.run(probe())


def test_a_run_without_handlers_ends_without_a_task_only_inside_the_context() -> None:
    assert _suspends(_manager([]))  # upstream: a task and a shield, even with nothing to run
    with unshielded_chain_end():
        assert not _suspends(_manager([]))
        with unshielded_chain_end():  # nested (two studies at once) share it
            assert not _suspends(_manager([]))
        assert not _suspends(_manager([]))
    assert AsyncCallbackManagerForChainRun.on_chain_end is SHIELDED_CHAIN_END
    assert _suspends(_manager([]))


class Ends(AsyncCallbackHandler):
    def __init__(self) -> None:
        self.ended: list[Any] = []

    async def on_chain_end(self, outputs: Any, **kwargs: Any) -> None:
        self.ended.append(outputs)


class State(TypedDict):
    n: int


async def _one(state: State) -> State:
    return {"n": state["n"] + 1}


def _graph() -> Any:
    graph = StateGraph(State)
    graph.add_node("one", _one)
    graph.add_edge(START, "one")
    graph.add_edge("one", END)
    return graph.compile()


def test_a_graph_in_a_study_gives_its_handlers_every_end_and_the_same_state(tmp_path: Path) -> None:
    graph = _graph()
    outside = Ends()
    expected = asyncio.run(graph.ainvoke({"n": 1}, {"callbacks": [outside]}))
    inside = Ends()
    states: list[Any] = []

    async def worker(task: Task) -> SampleRow:
        assert AsyncCallbackManagerForChainRun.on_chain_end is not SHIELDED_CHAIN_END  # the study's
        states.append(await graph.ainvoke({"n": 1}, {"callbacks": [inside]}))
        states.append(await graph.ainvoke({"n": 1}))  # and one without handlers
        return SampleRow(test="t", item=task.item, persona="", status="ok", messages=[], raw="x")

    async def main() -> None:
        store = RunStore(tmp_path / "runs.sqlite")
        store.create_run("r", {"test": "t"})
        await run_tasks(
            store=store, run_id="r", tasks=[Task(test="t", item="i")], worker=worker, show_progress=False
        )
        store.close()

    asyncio.run(main())
    assert states == [expected, expected] == [{"n": 2}, {"n": 2}]
    assert len(outside.ended) >= 2  # the graph's and its node's
    assert inside.ended == outside.ended
