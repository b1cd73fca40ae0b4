"""The README and docs/ say what the code does: the two set-up commands, every link, every path, every
imported name in a code block and every command-line flag they mention exist.

The README is what a newcomer reads in five minutes; the reference lives in docs/, one page per topic. A
page that names a module which has moved, or a flag that was renamed, sends its reader astray: these tests
fail on it, naming the page and the stale text.
"""

from __future__ import annotations

import ast
import importlib
import re
from functools import cache
from pathlib import Path

import pytest
import typer

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
PAGES = sorted((REPO / "docs").glob("*.md"))
DOCS = [README, *PAGES]

DEMO = "pip install uv && uv sync && uv run nationbias demo"
TESTS = "pip install uv && uv sync && uv run pytest -n 2 --dist loadgroup --durations=20"
INNER_LOOP = (
    'uv run pytest -n 2 --dist loadgroup -m "not (embedded or browser or subprocess or build or slow)"'
)

FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
# a repository path: one of the top folders, then a file or folder name (stops at <, `, space, quotes)
PATH = re.compile(
    r"(?<![\w/.-])((?:graphs|retrievers|prompts|stores|evals|nationbias|benchmarks|tests|docs|\.ci)/"
    r"[\w./*-]*)"
)
DOTTED = re.compile(r"`(nationbias(?:\.\w+)+)")
FLAG = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*)")
# flags of other tools the pages show (pytest, mutmut, uv, the benchmarks): not nationbias's
OTHER_TOOLS = {
    "--durations",
    "--max-children",
    "--reinstall-package",
    "--only",
    "--dist",
    "--compile-bytecode",
}
# declared outside typer's tree: `ablate`'s grid, read from its extra arguments (evals/cli/study.py), and a
# plugin test's own options, on a command that exists once a plugin is installed (evals/cli/plugin.py)
UNDECLARED = {"--k", "--reflexion", "--retriever", "--option"}
# docs/mutation.md records a mutation run by the module names of its day; its own author keeps it
PATHS_AS_RECORDED = {"mutation.md"}


def text(page: Path) -> str:
    return page.read_text(encoding="utf-8")


def blocks(page: Path, *langs: str) -> list[str]:
    return [body for lang, body in FENCE.findall(text(page)) if lang in langs]


def test_the_readme_gives_the_two_set_up_commands_and_the_inner_loop() -> None:
    commands = [line.strip() for body in blocks(README, "bash") for line in body.splitlines()]
    assert DEMO in commands and TESTS in commands and INNER_LOOP in commands
    # and, before them, the warning that the embedded model's output is plumbing, never a finding
    head = text(README).split("```", 1)[0]
    assert "proves the pipeline, never findings" in head


def test_ci_runs_the_readmes_test_command() -> None:
    """.ci/run installs with uv, then runs the README's test command word for word (after its own sync)."""
    ci = [line.strip() for line in text(REPO / ".ci" / "run").splitlines()]
    test_command = TESTS.split(" && ")[-1]
    assert ci[-1] == test_command, ci[-1]
    assert any(line.startswith("uv sync") for line in ci[:-1])


def test_every_page_is_linked_from_the_readme_and_every_link_resolves() -> None:
    linked = {(README.parent / target).resolve() for target in LINK.findall(text(README))}
    assert {page.resolve() for page in PAGES} <= linked, "a docs/ page the README does not link"
    broken = [
        f"{page.relative_to(REPO)} -> {target}"
        for page in DOCS
        for target in LINK.findall(text(page))
        if "://" not in target and not (page.parent / target).exists()
    ]
    assert not broken, broken


def test_every_repository_path_a_page_names_exists() -> None:
    missing = []
    for page in DOCS:
        if page.name in PATHS_AS_RECORDED:
            continue
        for raw in PATH.findall(text(page)):
            path = raw.rstrip(".,:;")
            found = any(REPO.glob(path)) if "*" in path else (REPO / path).exists()
            if not found:
                missing.append(f"{page.relative_to(REPO)}: {path}")
    assert not missing, missing


def test_every_dotted_name_a_page_names_imports() -> None:
    missing = []
    for page in DOCS:
        for dotted in set(DOTTED.findall(text(page))):
            mutant = re.fullmatch(r"(.+)\.x_(\w+?)__mutmut_\d*", dotted)  # mutmut's name for a mutant
            if not resolves(f"{mutant[1]}.{mutant[2]}" if mutant else dotted):
                missing.append(f"{page.relative_to(REPO)}: {dotted}")
    assert not missing, missing


@pytest.mark.parametrize("page", DOCS, ids=lambda p: p.name)
def test_every_python_block_parses_and_its_imports_exist(page: Path) -> None:
    flags = ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT  # a notebook may await at the top
    for body in blocks(page, "python"):
        tree = compile(body, str(page), "exec", flags=flags)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("nationbias"):
                for alias in node.names:
                    assert resolves(f"{node.module}.{alias.name}"), (
                        f"{page.name}: from {node.module} import {alias.name}"
                    )
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.startswith("nationbias"):
                        assert resolves(alias.name), f"{page.name}: import {alias.name}"


def test_every_flag_a_page_names_is_an_option_of_the_cli() -> None:
    known = cli_options() | UNDECLARED | OTHER_TOOLS
    unknown = sorted(
        {
            f"{page.relative_to(REPO)}: {flag}"
            for page in DOCS
            for flag in FLAG.findall(text(page))
            if flag not in known
        }
    )
    assert not unknown, unknown


def test_the_checks_catch_what_they_look_for() -> None:
    """The checks above would fail on a stale name: each finds one when there is one."""
    assert not resolves("nationbias.evals.metrics.weighted_f1")  # the module moved to evals/stats/
    assert resolves("nationbias.evals.stats.metrics")
    assert "--no-such-flag" not in cli_options() and "--max-cost" in cli_options()
    assert PATH.findall("see `evals/stats/metrics.py`, then `stores/data/**/*.gz`.") == [
        "evals/stats/metrics.py",
        "stores/data/**/*.gz",
    ]


@cache
def resolves(dotted: str) -> bool:
    """``a.b.c.Name`` names a module, or an attribute of the longest module prefix that imports."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attr in parts[cut:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


@cache
def cli_options() -> frozenset[str]:
    from nationbias.evals.cli.main import app

    def walk(command: object) -> set[str]:
        found = {
            opt
            for param in getattr(command, "params", ())
            for opt in (*param.opts, *param.secondary_opts)
            if opt.startswith("--")
        }
        for sub in (getattr(command, "commands", None) or {}).values():
            found |= walk(sub)
        return found

    return frozenset(walk(typer.main.get_command(app)) | {"--help"})
