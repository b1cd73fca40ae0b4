"""No code outside a bias test's own modules names a test: the framework reads what a test declares
(evals/bias_tests/base.py), so a plugin's test reaches every table and section a built-in one does."""

from __future__ import annotations

import ast
import os
from pathlib import Path

import nationbias
from nationbias.evals.bias_tests import bias_tests

PACKAGE = Path(nationbias.__file__).parent
NAME_CONSTANTS = {"VOTE", "DEBIAS", "DIRECTQA", "ASSOCIATION", "VOTE_TESTS"}  # stores/domain.py's
# The built-in tests' own modules beyond their registered objects' (evals/bias_tests/): their graphs and
# study functions, their answers' label rules, their `run` commands, and where the names are defined.
OWN = (
    "stores/domain.py",
    "graphs/vote.py",
    "graphs/debias.py",
    "graphs/directqa.py",
    "graphs/association.py",
    "graphs/study/simulate.py",
    "graphs/study/explicit.py",
    "graphs/labels/",
    "evals/bias_tests/",
    "evals/cli/run.py",
    "evals/cli/explicit.py",
)
CALLS = {"of", "get_test", "run_bias_test", "arun", "run", "partial", "command"}  # a test named by its caller


def _names_a_test(node: ast.AST, names: set[str]) -> bool:
    def named(value: ast.AST) -> bool:
        if isinstance(value, ast.Constant) and value.value in names:
            return True
        if isinstance(value, ast.Name) and value.id in NAME_CONSTANTS:
            return True
        return isinstance(value, ast.Tuple | ast.List | ast.Set) and any(named(e) for e in value.elts)

    if isinstance(node, ast.Compare):
        return any(named(side) for side in (node.left, *node.comparators))
    if isinstance(node, ast.Call):
        func = node.func
        called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        return called in CALLS and any(named(a) for a in node.args)
    if isinstance(node, ast.Dict):  # a table keyed by tests (one key of a test's name may be a column's)
        return sum(key is not None and named(key) for key in node.keys) >= 2
    if isinstance(node, ast.ImportFrom) and node.module == "nationbias.stores.domain":
        return any(alias.name in NAME_CONSTANTS for alias in node.names)
    return False


def naming(root: Path, names: set[str], own: tuple[str, ...]) -> list[str]:
    """Every ``path:line`` under ``root`` outside ``own`` that compares with, calls with or imports a
    test's name."""
    found = []
    files = (Path(d, f) for d, _, fs in os.walk(root, followlinks=True) for f in fs if f.endswith(".py"))
    for path in sorted(files):
        where = path.relative_to(root).as_posix()
        if where.startswith(own):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found += [f"{where}:{n.lineno}" for n in ast.walk(tree) if _names_a_test(n, names)]
    return found


def test_no_code_outside_a_tests_modules_names_a_test() -> None:
    names = set(bias_tests())
    assert {"vote", "debias", "directqa", "association"} <= names
    assert naming(PACKAGE.resolve(), names, OWN) == []


def test_the_check_finds_a_test_named_outside_its_modules(tmp_path: Path) -> None:
    """The scan above can fail: each way of naming a test is found."""
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "section.py").write_text(
        "from nationbias.stores.domain import VOTE\n"
        "if run.test == 'debias':\n    pass\n"
        "runs = ctx.of('vote', 'debias')\n"
        "ok = test in ('directqa', 'association')\n"
        "CLAIMS = {'vote': 1, 'debias': 1}\n"
        "column = frame['vote']\n",  # a column of the same name is not a test
        encoding="utf-8",
    )
    names = {"vote", "debias", "directqa", "association"}
    assert naming(tmp_path, names, ()) == [
        "evals/section.py:1",
        "evals/section.py:2",
        "evals/section.py:4",
        "evals/section.py:5",
        "evals/section.py:6",
    ]


def test_the_example_plugin_imports_only_the_public_module() -> None:
    """tests/support/plugins/toy_bias.py needs nothing of nationbias beyond the plugin module."""
    toy = Path(__file__).resolve().parents[1] / "support" / "plugins" / "toy_bias.py"
    modules = {
        node.module if isinstance(node, ast.ImportFrom) else alias.name
        for node in ast.walk(ast.parse(toy.read_text(encoding="utf-8")))
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    }
    assert {m for m in modules if m and m.startswith("nationbias")} == {"nationbias.evals.bias_tests.plugin"}
