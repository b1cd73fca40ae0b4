"""The import contracts, read from the code by grimp (every import: at module level, inside functions and
under ``TYPE_CHECKING``): no circle, layers one way, the library never imports the CLI, and no private name
imported from another module."""

from __future__ import annotations

import ast
import os
from pathlib import Path

import grimp
import pytest
from grimp import Layer

import nationbias

PACKAGE = Path(nationbias.__file__).parent
CLI = "nationbias.evals.cli"


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("nationbias", cache_dir=None)


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in edges[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_circles_are_found() -> None:
    """The check itself: a circle of three is one component, a chain is none."""
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_no_import_circle(graph: grimp.ImportGraph) -> None:
    modules = set(graph.modules)
    edges = {m: graph.find_modules_directly_imported_by(m) & modules for m in modules}
    assert circles(edges) == []


def test_layers_run_one_way(graph: grimp.ImportGraph) -> None:
    """evals -> graphs -> retrievers -> stores & prompts: never the other way."""
    illegal = graph.find_illegal_dependencies_for_layers(
        layers=(
            Layer("evals"),
            Layer("graphs"),
            Layer("retrievers"),
            Layer("stores", "prompts", independent=False),
        ),
        containers={"nationbias"},
    )
    assert sorted(f"{d.importer} -> {d.imported}" for d in illegal) == []


def test_the_library_never_imports_the_cli(graph: grimp.ImportGraph) -> None:
    cli = {m for m in graph.modules if m == CLI or m.startswith(CLI + ".")}
    assert len(cli) > 5  # the CLI package is there to be kept out
    wrong = sorted(
        f"{m} -> {i}"
        for m in set(graph.modules) - cli
        for i in graph.find_modules_directly_imported_by(m) & cli
    )
    assert wrong == []


def private_imports(source: str, *, where: str) -> list[str]:
    """``from nationbias.x import _y``: a private name taken from another module."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("nationbias"):
            for alias in node.names:
                if alias.name.startswith("_") and not alias.name.startswith("__"):
                    found.append(f"{where}:{node.lineno}: from {node.module} import {alias.name}")
    return found


def test_private_imports_are_found() -> None:
    code = "from nationbias.graphs.model.fake import _fill\nfrom nationbias.evals import api\n"
    assert private_imports(code, where="x.py") == ["x.py:1: from nationbias.graphs.model.fake import _fill"]


def test_no_private_name_is_imported_from_another_module() -> None:
    files = sorted(  # through the links nationbias/<folder> to the card's folders
        Path(d, f) for d, _, names in os.walk(PACKAGE, followlinks=True) for f in names if f.endswith(".py")
    )
    assert len(files) > 150
    found = [f for p in files for f in private_imports(p.read_text(), where=str(p.relative_to(PACKAGE)))]
    assert found == []


# Inside the layers: each folder's __init__ docstring says what it may import; these are the rules that
# keep the lower folders lower (a model client never runs a study, a table never renders a page).
GRAPH_MODULES = ("vote", "debias", "directqa", "association", "history", "translate")
FORBIDDEN = {
    "nationbias.graphs.model": (
        "nationbias.graphs.study",
        "nationbias.graphs.labels",
        "nationbias.graphs.vote",
        "nationbias.graphs.debias",
        "nationbias.graphs.directqa",
        "nationbias.graphs.association",
        "nationbias.graphs.augment",
        "nationbias.graphs.history",
    ),
    "nationbias.graphs.labels": ("nationbias.graphs.study",),
    "nationbias.evals.stats": (
        "nationbias.evals.tables",
        "nationbias.evals.report",
        "nationbias.evals.bias_tests",
    ),
    "nationbias.evals.tables": (
        "nationbias.evals.report",
        "nationbias.evals.bias_tests",
        "nationbias.evals.api",
    ),
    "nationbias.evals.baselines": (
        "nationbias.evals.report",
        "nationbias.evals.bias_tests",
        "nationbias.evals.api",
    ),
    "nationbias.evals.report": (
        "nationbias.evals.api",
        "nationbias.evals.study",
        "nationbias.evals.page",
        "nationbias.evals.bias_tests",
        "nationbias.evals.results",
    ),
    # A test's graph and its text preparation are run by graphs/study/, never the other way; a bias test
    # is read by the report's page and the result tables, never the other way.
    **{f"nationbias.graphs.{name}": ("nationbias.graphs.study",) for name in GRAPH_MODULES},
    "nationbias.evals.bias_tests": (
        "nationbias.evals.results",
        "nationbias.evals.page",
    ),
}


def test_lower_folders_do_not_import_higher_ones(graph: grimp.ImportGraph) -> None:
    def inside(module: str, package: str) -> bool:
        return module == package or module.startswith(package + ".")

    wrong = sorted(
        f"{m} -> {i}"
        for package, forbidden in FORBIDDEN.items()
        for m in graph.modules
        if inside(m, package)
        for i in graph.find_modules_directly_imported_by(m)
        if any(inside(i, f) for f in forbidden)
    )
    assert wrong == []


# The order inside each folder, top first: a module may import its own layer's group and any layer below,
# never one above, nor another group of its own layer (a layer's groups are independent). Each group is
# the modules and packages it names, with everything beneath them; a module of the folder in no group
# fails the test, so a new one is placed where its concept lives.
InnerLayers = tuple[tuple[tuple[str, ...], ...], ...]
INNER_LAYERS: dict[str, InnerLayers] = {
    # the corpora read their text through the leak guard; a prompt's text is built from the corpora; run
    # state sits beside them and reads only what the user set; the three shared modules import nothing here
    "nationbias.stores": (
        (("text",), ("state",)),
        (("corpora",),),
        (("guard",),),
        (("config",),),
        (("domain",), ("records",), ("errors",)),
    ),
    # a run over many records (augment) uses the study runner; the runner runs the tests' graphs; debias
    # drives the vote graph; the graphs read answers (labels) and call the model
    "nationbias.graphs": (
        (("augment",), ("attribution",)),
        (("study",),),
        (("debias",),),
        (("vote",), ("association",), ("directqa",), ("history",)),
        (("translate",), ("labels",), ("progress",), ("terminal_text",)),
        (("model",), ("debias_options",)),
    ),
    # the report's page (evals/page/) and the result tables read the registry of tests; a test's sections
    # are built from the report's parts, tables and statistics below it
    "nationbias.evals": (
        (("cli",),),
        (("study",),),
        (("api",),),
        (
            ("batch_mode",),
            (
                "page",
                "page.study",
                "page.writer",
                "page.sections",
                "page.first_screen",
                "page.languages",
                "page.refusals",
                "page.scope_line",
            ),
        ),
        (("page.significance",),),
        (("results",),),
        (("bias_tests",),),
        (("report",),),
        (("baselines",), ("style_audit",), ("batch_cost",)),
        (("tables",),),
        (("stats",),),
        (("inputs",),),
        (("errors",),),
    ),
}


def place(module: str, container: str, layers: InnerLayers) -> tuple[int, int] | None:
    """(layer, group) of ``module`` by its longest named prefix; None for the folder's own ``__init__``."""
    if module == container:
        return None
    name = module[len(container) + 1 :]
    best: tuple[int, int, int] | None = None
    for li, layer in enumerate(layers):
        for gi, group in enumerate(layer):
            for prefix in group:
                named = name == prefix or name.startswith(prefix + ".")
                if named and (best is None or len(prefix) > best[2]):
                    best = (li, gi, len(prefix))
    if best is None:
        raise AssertionError(f"{module} is in no layer of {container}: add it to INNER_LAYERS")
    return best[0], best[1]


def inner_violations(edges: dict[str, set[str]], container: str, layers: InnerLayers) -> list[str]:
    """Imports inside ``container`` that run up a layer or across the groups of one layer."""
    inside = {m for m in edges if m == container or m.startswith(container + ".")}
    wrong = []
    for m in sorted(inside):
        at = place(m, container, layers)
        for i in sorted(edges[m] & inside):
            to = place(i, container, layers)
            if at is None or to is None:
                continue
            if to[0] < at[0] or (to[0] == at[0] and to[1] != at[1]):
                wrong.append(f"{m} -> {i}")
    return wrong


def test_inner_violations_are_found() -> None:
    """The check itself: up a layer and across a layer's groups are wrong, down and within a group not."""
    layers: InnerLayers = ((("a",), ("b",)), (("c",),))
    edges = {
        "p": set(),
        "p.a": {"p.c", "p.a.x"},
        "p.a.x": {"p.b"},
        "p.b": set(),
        "p.c": {"p.a"},
    }
    assert inner_violations(edges, "p", layers) == ["p.a.x -> p.b", "p.c -> p.a"]
    with pytest.raises(AssertionError, match=r"p\.d is in no layer"):
        inner_violations({**edges, "p.d": set()}, "p", layers)


@pytest.mark.parametrize("container", sorted(INNER_LAYERS))
def test_inside_each_folder_layers_run_one_way(graph: grimp.ImportGraph, container: str) -> None:
    modules = {m for m in graph.modules if m == container or m.startswith(container + ".")}
    assert len(modules) > 20
    edges = {m: graph.find_modules_directly_imported_by(m) for m in modules}
    assert inner_violations(edges, container, INNER_LAYERS[container]) == []
