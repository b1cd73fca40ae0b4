"""A labelling graph shared by the tests that read a free answer: answer → rules → [judge].

The vote, DirectQA and the Association Test each ask once, label the answer by rules, and ask the judge
only when the rules cannot decide and a judge is configured. Without a judge the graph is a single step,
run as that step (:class:`OneStep`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class OneStep:
    """A one-node graph run as its node: ``ainvoke`` gives the state the compiled ``graph`` would."""

    state: type[Any]
    step: Callable[..., Awaitable[Any]]

    async def ainvoke(self, current: Any, config: Any = None) -> Any:
        del config  # a single step has nothing to configure: no checkpointer, no interrupt
        return {**current, **(await self.step(current))}

    @property
    def graph(self) -> Any:
        """The same step as a LangGraph graph (START → answer → END), for composing it elsewhere."""
        from langgraph.graph import END, START, StateGraph  # ~1 s of imports: only a graph needs it

        plain = StateGraph(self.state)
        plain.add_node("answer", self.step)
        plain.add_edge(START, "answer")
        plain.add_edge("answer", END)
        return plain.compile()


def rules_then_judge_graph(
    state: type[Any],
    *,
    answer: Callable[..., Awaitable[Any]],
    label: Callable[..., Awaitable[Any]],
    judge: Callable[..., Awaitable[Any]],
    has_judge: bool,
    label_node: str = "label",
) -> Any:
    """answer → label → [judge, only when the rules cannot decide and a judge is given] (DirectQA, AT).

    Without a judge the two steps are one: the label is a pure function of the answer, and the graph
    would be a single node with no branch, checkpoint or interrupt. LangGraph's runtime costs ~1 ms of
    CPU per invocation, more than the rest of a vote sample together (benchmarks/RESULTS.md, Assembly at
    scale), so that case runs as :class:`OneStep`, whose ``graph`` is the same step as a compiled graph.
    """
    if not has_judge:

        async def answer_then_label(current: Any) -> Any:
            update = await answer(current)
            return {**update, **(await label({**current, **update}))}

        return OneStep(state, answer_then_label)

    from langgraph.graph import END, START, StateGraph  # ~1 s of imports: only a judged graph needs it

    async def route(current: Any) -> str:  # async: LangGraph runs a sync router in a worker thread
        rules = current.get("rules")
        return "judge" if has_judge and rules is not None and rules.needs_judge else END

    graph = StateGraph(state)
    graph.add_node("answer", answer)
    graph.add_node(label_node, label)
    graph.add_node("judge", judge)
    graph.add_edge(START, "answer")
    graph.add_edge("answer", label_node)
    graph.add_conditional_edges(label_node, route, ["judge", END])
    graph.add_edge("judge", END)
    return graph.compile()
