"""Markers by cost, derived from what a test uses, never set by hand (tests/conftest.py applies them).

A test is marked by what its own source, the test-side helpers it calls (followed through the test
modules and tests/support, transitively) and its fixtures name:

- ``embedded``: the embedded llama.cpp model (a ``local:smollm2`` spec, the worker, an in-process
  ``Llama``, ``llama_cpp.server``, the ``demo`` command, or a test named for the embedded model);
- ``browser``: Chromium through Playwright;
- ``subprocess``: a child process (the CLI, a fault server, git, uv);
- ``build``: the built wheel or a fresh clone synced with uv;
- ``slow``: a test that declares it needs more than the default time (a ``timeout`` marker of
  :data:`SLOW_TIMEOUT_S` seconds or more), a property test with many examples, a fit of the learned
  baseline (LightGBM; the ``report`` command fits it beside a vote run), the Assembly's dense (ONNX)
  index, a report on an Assembly run (its baselines' features over the whole record), the style
  audit (its cross-validated classifier over every draft) or a whole study (every bias test and the
  ablation).

The inner loop (README, docs/testing.md) deselects all five. :class:`CostGuard` keeps the rules honest: a
test the rules left unmarked that starts a child process or the embedded model fails, naming what it
started, so a test added later cannot slip into the inner loop with a cost nobody sees.
"""

from __future__ import annotations

import ast
import copy
import functools
import importlib
import inspect
import linecache
import multiprocessing.process
import re
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

COST_MARKERS: dict[str, str] = {
    "embedded": "starts the embedded llama.cpp model (worker, in-process Llama or llama_cpp.server)",
    "browser": "drives Chromium through Playwright",
    "subprocess": "runs a child process (the CLI, a fault server, git, uv)",
    "build": "builds the wheel or syncs a fresh clone",
    "slow": (
        "a long timeout, many property examples, a whole study, the learned baseline "
        "or the Assembly's dense index"
    ),
}
# What the inner loop leaves out: every cost marker.
INNER_LOOP = "not (" + " or ".join(COST_MARKERS) + ")"
SLOW_TIMEOUT_S = 120
TESTS = Path(__file__).resolve().parents[1]
# test-side code whose calls are followed: the tests and the benchmark harness they drive
FOLLOWED = (TESTS, TESTS.parent / "benchmarks")
MANY_EXAMPLES = 200

SOURCE_RULES: dict[str, tuple[str, ...]] = {
    "embedded": (
        # a local: spec handed to something that runs it (a bare string may be a label or a bad spec)
        r"[\"'](--model|--judge|-m|--translate-with)[\"'],\s*[\"']local:",
        r"\b(model|judge|translate_with)=[\"']local:",
        r"\b(from_spec|get_chat_model)\(\s*[\"']local:",
        r"ModelSpec\(\s*[\"']local[\"']",
        r"\bLlamaCppChatModel\b",
        r"\bget_worker\(",
        r"\bensure_embedded_works\(",  # the probe asks the worker
        r"\bLlama\(",
        r"llama_cpp\.server",
        r"[\"']demo[\"']",  # the demo command runs the embedded model whatever else is asked
        r"\bprovider_status\(",  # the provider table probes the embedded model's worker
    ),
    "browser": (r"\bsync_playwright\b", r"\basync_playwright\b", r"\bchromium\b"),
    "subprocess": (
        r"\bsubprocess\.(run|Popen|call|check_call|check_output)\b",
        r"\bPopen\(",
        r"\bcreate_subprocess_(exec|shell)\b",
        r"\bos\.(fork|spawn\w*|system)\(",
        r"\bmultiprocessing\b",  # a Process, a Pool: each child imports the library again
        r"\bProcessPoolExecutor\b",
    ),
    "build": (r"[\"']build[\"'],\s*[\"']--wheel[\"']", r"[\"']clone[\"']"),
    # fits of the learned baseline (LightGBM over every earlier draft), and the Assembly's dense index
    "slow": (
        r"[\"']learned[\"']",
        r"[\"']baselines[\"'],",  # the baselines command fits the learned one
        # the learned models themselves
        r"<uses nationbias\.evals\.baselines\.(precedent_model|assembly|assembly_explain)\.",
        # a whole study: every bias test, then the ablation's cells, then the report (its learned baseline)
        # (its model named, or its options spread from a list; a table of commands names no model)
        r"\[\s*[\"']study[\"'],\s*(?:[\"']--model|\*)",
        r"\bastudy\(",
        # the style audit: 200 logistic fits (5x10 CV, four prompt sets) over every draft of the record
        r"<uses nationbias\.evals\.style_audit\.style_audit>",
        # the `report` command scores the non-LLM baselines beside a vote run: the learned one is fitted
        # on every earlier draft (evals/page/study.py: write_study_report)
        r"\[\s*[\"']report[\"'],",
        r"<uses nationbias\.evals\.page\.study\.write_study_report>",
    ),
}
# marks earned by several things together, each anywhere in what the test reaches (its own source, a
# helper, a constant): every pattern of one group must be found
ALL_OF_RULES: dict[str, tuple[tuple[str, ...], ...]] = {
    "slow": (
        # the hybrid retriever on the Assembly: its dense (ONNX) index over every roll call
        (r"[\"']hybrid[\"']", r"[\"']unga[\"']"),
        # a report of an Assembly run: its anchor section builds the Assembly baselines' features over
        # every roll call of the record (evals/baselines/assembly.py: prepared_features)
        (r"<uses nationbias\.evals\.page\.writer\.write_report>", r"[\"']unga[\"']"),
    ),
}
FIXTURE_RULES: dict[str, set[str]] = {
    "llama_server": {"embedded", "subprocess"},
    "chromium_browser": {"browser"},
    "built_wheel": {"build", "subprocess"},
}
# the fixture that enforces these rules names them all: it costs nothing itself
RULE_FIXTURES = frozenset({"cost_guard"})
NAME_RULES: dict[str, str] = {"embedded": r"on_the_embedded_model"}


def _one_pattern(patterns: Iterable[str]) -> re.Pattern[str]:
    """A mark's patterns as one alternation (a search per mark, not per pattern)."""
    return re.compile("|".join(f"(?:{p})" for p in patterns))


@functools.cache
def _clue_patterns() -> dict[str, re.Pattern[str]]:
    """What one piece of code can show: a mark's pattern, a part of an all-of group, that it reads the
    Assembly, that it writes or scans the checkout's source."""
    return {
        **{f"mark:{mark}": _one_pattern(patterns) for mark, patterns in SOURCE_RULES.items()},
        **{f"part:{part}": re.compile(part) for g in ALL_OF_RULES.values() for group in g for part in group},
        ASSEMBLY_CLUE: ASSEMBLY,
        CHECKOUT_CLUE: CHECKOUT_SOURCE,
    }


def _clues(text: str) -> frozenset[str]:
    return frozenset(name for name, pattern in _clue_patterns().items() if pattern.search(text))


def _marks_of(clues: frozenset[str]) -> set[str]:
    marks = {mark for mark in SOURCE_RULES if f"mark:{mark}" in clues}
    return marks | {
        mark
        for mark, groups in ALL_OF_RULES.items()
        if any(all(f"part:{part}" in clues for part in group) for group in groups)
    }


def source_marks(text: str) -> set[str]:
    """The marks the source rules give one text (a parametrised case's arguments)."""
    return _marks_of(_clues(text))


def reachable_marks(roots: Iterable[Any]) -> set[str]:
    """The marks the source rules give ``roots`` with every test-side function, class and constant they
    reach."""
    return _marks_of(_reachable_clues(tuple(roots)))


@functools.cache
def _source(obj: Any) -> str:
    """``obj``'s code; a function's without its decorators (a parametrize list is judged per case)."""
    found = _indexed_source(obj)
    if found is not None:
        return found
    try:
        text = textwrap.dedent(inspect.getsource(obj))
    except (OSError, TypeError):
        return ""
    if inspect.isfunction(obj):
        try:
            node = ast.parse(text).body[0]
        except (SyntaxError, IndexError):
            return text
        text = "\n".join(text.splitlines()[node.lineno - 1 :])
    return text


@dataclass(frozen=True)
class _FileIndex:
    """One test file's lines and definitions, parsed once for all its functions and classes (``inspect``
    tokenises each function's block again, and parses the whole file again for each class)."""

    lines: tuple[str, ...]
    tree: ast.Module
    functions: dict[int, ast.FunctionDef | ast.AsyncFunctionDef]  # by first line (a decorator's or the def's)
    classes: dict[str, ast.ClassDef]  # by qualified name, the first in the file as ``inspect`` finds it


@functools.cache
def _file_index(filename: str) -> _FileIndex | None:
    lines = tuple(linecache.getlines(filename))
    try:
        tree = ast.parse("".join(lines))
    except (SyntaxError, ValueError):
        return None
    functions: dict[int, ast.FunctionDef | ast.AsyncFunctionDef] = {}
    classes: dict[str, ast.ClassDef] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, ast.stmt | ast.excepthandler | ast.match_case):
                continue  # an expression holds no def or class statement
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                functions.setdefault(min([d.lineno for d in child.decorator_list] + [child.lineno]), child)
                visit(child, f"{prefix}{child.name}.<locals>.")
            elif isinstance(child, ast.ClassDef):
                classes.setdefault(prefix + child.name, child)
                visit(child, f"{prefix}{child.name}.")
            else:
                visit(child, prefix)

    visit(tree, "")
    return _FileIndex(lines, tree, functions, classes)


def _indexed(obj: Any) -> tuple[_FileIndex, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef] | None:
    """``obj``'s definition in its file's index, or None where the index cannot say (``inspect`` then)."""
    if not (inspect.isfunction(obj) or inspect.isclass(obj)):
        return None
    try:
        filename = inspect.getsourcefile(obj)
    except TypeError:
        return None
    index = _file_index(filename) if filename else None
    if index is None:
        return None
    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | None
    if inspect.isfunction(obj):
        node = index.functions.get(obj.__code__.co_firstlineno)
    else:
        node = index.classes.get(obj.__qualname__)
    if node is None or node.end_lineno is None or node.body[0].lineno == node.lineno:
        return None  # a one-line definition: inspect's own reading
    return index, node


def _indexed_source(obj: Any) -> str | None:
    """:func:`_source` from the file's index: the text ``inspect.getsource`` gives (the block, with the
    comments indented as its body that follow it), or None where the index cannot say."""
    found = _indexed(obj)
    if found is None:
        return None
    index, node = found
    start = min([d.lineno for d in node.decorator_list] + [node.lineno])
    end = node.end_lineno or node.lineno  # never None here: _indexed made sure
    for number in range(end + 1, len(index.lines) + 1):  # the comments at the body's indent that follow it
        line = index.lines[number - 1]
        stripped = line.lstrip()
        if not stripped or stripped.startswith("#"):
            if stripped and len(line) - len(stripped) >= node.body[0].col_offset:
                end = number
            continue
        break  # the next statement: the block has ended
    text = textwrap.dedent("".join(index.lines[start - 1 : end]))
    if inspect.isfunction(obj):  # without its decorators, as _source cuts them
        text = "\n".join(text.splitlines()[node.lineno - start :])
    return text


def _is_test_code(obj: Any) -> bool:
    """Defined under tests/ or benchmarks/ (whatever name pytest imported it by), not these rules."""
    try:
        filename = inspect.getsourcefile(obj) or ""
    except TypeError:
        return False
    return _is_test_file(filename)


@functools.cache
def _is_test_file(filename: str) -> bool:
    path = Path(filename).resolve()
    return any(path.is_relative_to(root) for root in FOLLOWED) and path != Path(__file__).resolve()


@functools.cache
def _references(obj: Any) -> tuple[Any, ...]:
    return tuple(_referenced(obj, _syntax(obj)))


def _syntax(obj: Any) -> list[ast.AST]:
    """Every syntax node of :func:`_source`'s text, from the file's index where it has ``obj`` (the same
    nodes a parse of that text gives: a function's without its decorators), else by parsing the text."""
    found = _indexed(obj)
    if found is not None:
        node = found[1]
        if inspect.isfunction(obj):
            node = copy.copy(node)
            node.decorator_list = []
        return list(ast.walk(node))
    if inspect.ismodule(obj) and (filename := getattr(obj, "__file__", None)):
        index = _file_index(filename)
        if index is not None and "".join(index.lines) == _source(obj):
            return list(ast.walk(index.tree))
    try:
        return list(ast.walk(ast.parse(_source(obj))))
    except SyntaxError:
        return []


def _referenced(obj: Any, nodes: list[ast.AST]) -> Iterator[Any]:
    """Functions and classes of the test code that ``nodes`` name (``name`` or ``module.name``)."""
    module = sys.modules.get(getattr(obj, "__module__", "") or "")
    scope: dict[str, Any] = getattr(obj, "__globals__", None) or (vars(module) if module else {})
    scope = {**scope, **_local_imports(nodes)}
    for node in nodes:
        found: Any = None
        if isinstance(node, ast.Name) and node.id in scope:
            found = scope[node.id]
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            owner = scope.get(node.value.id)
            if inspect.ismodule(owner):  # a test module's helper, or a library module's function
                found = getattr(owner, node.attr, None)
        if inspect.isfunction(found):
            found = inspect.unwrap(found)  # a @contextmanager's own code, not contextlib's
        if (inspect.isfunction(found) or inspect.isclass(found)) and _is_test_code(found):
            yield found
        elif inspect.isfunction(found) or inspect.isclass(found):  # the library: named, not followed
            yield Constant(f"<uses {found.__module__}.{found.__qualname__}>")
        elif isinstance(node, ast.Name) and isinstance(found, str | list | tuple | dict):
            yield Constant(repr(found))  # a module constant: its value counts


def _local_imports(nodes: Iterable[ast.AST]) -> dict[str, Any]:
    """What a function imports in its own body (``import nationbias.evals.baselines.assembly as U``,
    ``from ... import f``): the names it binds, so ``U.run_predictions`` counts as what it uses."""
    bound: dict[str, Any] = {}
    for node in nodes:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:  # a bare `import a.b` binds `a`: its attributes are modules, not calls
                    bound[alias.asname] = _imported(alias.name)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            owner = _imported(node.module)
            for alias in node.names:
                value = getattr(owner, alias.name, None)
                if value is None:
                    value = _imported(f"{node.module}.{alias.name}")
                bound[alias.asname or alias.name] = value
    return {name: value for name, value in bound.items() if value is not None}


def _imported(name: str) -> Any:
    """The module ``name`` (imported now, as the test will), or None where it cannot be."""
    try:
        return importlib.import_module(name)
    except Exception:
        return None


@dataclass(frozen=True)
class Constant:
    """A module-level value a test names (``VOTE = ["run", "vote", "--model", ...]``)."""

    text: str


@functools.cache
def _own_clues(obj: Any) -> frozenset[str]:
    """One function's, class's or constant's clues, searched once however many tests reach it."""
    return _clues(obj.text if isinstance(obj, Constant) else _source(obj))


@functools.cache
def _reachable_clues(roots: tuple[Any, ...]) -> frozenset[str]:
    """The clues of ``roots`` and of everything test-side they reach, once per set of roots (the marks,
    the groups and the checkout rule)."""
    found: set[str] = set()
    for obj in _reachable(roots):
        found |= _own_clues(obj)
    return frozenset(found)


def _reachable(roots: Iterable[Any]) -> Iterator[Any]:
    """``roots`` and every test-side function, class or named constant they reach."""
    seen: set[int] = set()
    stack = list(roots)
    while stack:
        obj = stack.pop()
        if isinstance(obj, Constant):
            yield obj
            continue
        obj = inspect.unwrap(obj)
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        yield obj
        stack.extend(_references(obj))


def _fixture_functions(item: pytest.Item) -> list[Callable[..., Any]]:
    info = getattr(item, "_fixtureinfo", None)
    defs = getattr(info, "name2fixturedefs", {}) if info is not None else {}
    return [
        fixturedefs[-1].func
        for name, fixturedefs in defs.items()
        if fixturedefs and name not in RULE_FIXTURES
    ]


def cost_marks(item: pytest.Item) -> set[str]:
    """The cost markers ``item`` earns from its fixtures, its name, its source and what that calls."""
    function = getattr(item, "function", None)
    if function is None:
        return set()
    marks: set[str] = set()
    for fixture in getattr(item, "fixturenames", ()):
        marks |= FIXTURE_RULES.get(fixture, set())
    for mark, pattern in NAME_RULES.items():
        if re.search(pattern, item.name):
            marks.add(mark)
    marks |= reachable_marks((function, *_fixture_functions(item)))
    callspec = getattr(item, "callspec", None)
    if callspec is not None:  # a parametrised test's arguments are part of what it uses
        params = repr(callspec.params)
        marks |= source_marks(params)
        if re.search(r"[\"']local:", params):  # a local: spec as an argument reaches the embedded model
            marks.add("embedded")
        if re.search(r"[\"']study[\"']", params):  # the study command as an argument
            marks.add("slow")
    timeout = item.get_closest_marker("timeout")
    if timeout is not None and timeout.args and float(timeout.args[0]) >= SLOW_TIMEOUT_S:
        marks.add("slow")
    settings = getattr(function, "_hypothesis_internal_use_settings", None)
    if settings is not None and getattr(settings, "max_examples", 0) >= MANY_EXAMPLES:
        marks.add("slow")
    return marks


# what libraries run to learn about the machine (platform.processor() runs `uname -p`, ctypes.util
# asks ldconfig or the compiler): instant, not a cost
SYSTEM_PROBES = frozenset({"uname", "ldconfig", "gcc", "cc", "ld", "objdump", "lscpu", "getconf"})


@dataclass
class CostGuard:
    """Records the costs an unmarked test really incurs; the test fails at teardown naming them."""

    started: list[str] = field(default_factory=list)

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        original = subprocess.Popen.__init__
        guard = self

        def watched(popen: subprocess.Popen[Any], args: Any, *rest: Any, **kwargs: Any) -> None:
            command = [str(a) for a in args] if isinstance(args, list | tuple) else str(args).split()
            if command and Path(command[0]).name not in SYSTEM_PROBES:
                guard.started.append(" ".join(command))
            original(popen, args, *rest, **kwargs)

        monkeypatch.setattr(subprocess.Popen, "__init__", watched)

        started = multiprocessing.process.BaseProcess.start  # spawn and forkserver bypass Popen

        def start(process: multiprocessing.process.BaseProcess) -> None:
            guard.started.append(f"multiprocessing {process.name}")
            started(process)

        monkeypatch.setattr(multiprocessing.process.BaseProcess, "start", start)

    def verdict(self, nodeid: str) -> str | None:
        if not self.started:
            return None
        what = "; ".join(sorted(set(self.started)))[:600]
        embedded = "nationbias.graphs.model.embedded.llama_worker" in what or "llama_cpp" in what
        return (
            f"{nodeid} started {'the embedded model' if embedded else 'a child process'} ({what}) but the "
            "cost rules (tests/support/costs.py) did not mark it: use a fake: model for graph logic, "
            "or let the test say what it uses (a local:smollm2 spec, subprocess, a cost fixture)"
        )


# session fixtures that start a process or make a whole study: every test that uses one runs in the
# same xdist worker
SHARED_SESSION_FIXTURES = ("llama_server", "browser_study_report", "strategies", "embedded_directqa")
# the embedded model's shared DirectQA run goes where the llama.cpp server is (the judge test uses both)
SAME_GROUP = {"embedded_directqa": "llama_server"}

# tests that read the General Assembly: the process builds its records, their offline fields (about
# 10 s of CPU for 6,202 roll calls, kept per process by stores/corpora/augment.py) and the loaded votes once,
# so these run in one xdist worker rather than each worker paying for them
ASSEMBLY = re.compile(r"[\"']unga[\"']|\bassembly_(corpus|votes|precedents)\(|\bload_assembly\(")
ASSEMBLY_GROUP = "assembly"
ASSEMBLY_CLUE = "group:assembly"


@functools.cache
def _reads_the_assembly(roots: tuple[Any, ...]) -> bool:
    return ASSEMBLY_CLUE in _reachable_clues(roots)


# tests that write a module into the checkout for a moment (the editable install's probe) and tests that
# read every module of it (a scan of the source, grimp's import graph): one worker, so no scan meets a
# probe that is gone before it is read
CHECKOUT_SOURCE = re.compile(r"\brglob\(\"\*\.py\"\)|\bgrimp\.build_graph\(|\bprobe\.write_text\(")
CHECKOUT_GROUP = "checkout-source"
CHECKOUT_CLUE = "group:checkout-source"


@functools.cache
def _touches_checkout_source(roots: tuple[Any, ...]) -> bool:
    return CHECKOUT_CLUE in _reachable_clues(roots)


def shared_group(item: pytest.Item) -> str | None:
    """The xdist group of ``item``: a shared server's or index's name, else the checkout's source when it
    writes or scans it, else its module when it uses a module- or class-scoped fixture (an index, a
    report, a fitted baseline built once for the module; the Assembly's group when that module reads the
    Assembly), else the Assembly's group when it reads the Assembly."""
    names = set(getattr(item, "fixturenames", ()))
    for fixture in SHARED_SESSION_FIXTURES:
        if fixture in names:
            return SAME_GROUP.get(fixture, fixture)
    function = getattr(item, "function", None)
    if function is not None and _touches_checkout_source((function, *_fixture_functions(item))):
        return CHECKOUT_GROUP
    info = getattr(item, "_fixtureinfo", None)
    defs = getattr(info, "name2fixturedefs", {}) if info is not None else {}
    module = getattr(item, "module", None)
    if any(
        fixturedefs and fixturedefs[-1].scope in ("module", "class", "package")
        for fixturedefs in defs.values()
    ):  # the whole module in one group: the Assembly's when any of it reads the Assembly
        return (
            ASSEMBLY_GROUP
            if module is not None and _reads_the_assembly((module,))
            else item.nodeid.split("::")[0]
        )
    if function is not None and _reads_the_assembly((function, *_fixture_functions(item))):
        return ASSEMBLY_GROUP
    return None


def name_the_groups(items: Iterable[pytest.Item]) -> None:
    """Put each item's ``xdist_group`` into its node id (``path::test@group``), as pytest-xdist means to.

    xdist's worker does it by writing ``item._nodeid``; since pytest 9.2 a node keeps its id as a
    structured ``_id`` and that write changes nothing, so every group was silently ignored and each
    worker built the shared indexes, reports and fitted baselines again (pytest-dev/pytest-xdist#1386,
    open). Here the id is set the way pytest 9.2 keeps it; where xdist already named the group (an
    older pytest, a fixed xdist) nothing changes. xdist's scheduler reads the group after the last ``@``.
    """
    try:
        from _pytest.nodeid import NodeId
    except ImportError:  # pytest before 9.2: xdist's own write works
        return
    for item in items:
        marks = item.iter_markers("xdist_group")
        names = sorted({str(m.args[0] if m.args else m.kwargs.get("name", "default")) for m in marks})
        suffix = "@" + "_".join(names)
        if names and not item.nodeid.endswith(suffix):
            item._id = NodeId.parse(item.nodeid + suffix)  # type: ignore[attr-defined]
