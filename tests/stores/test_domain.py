"""The domain's facts have one home: no module of the package spells the P5, the vote labels, the
vote codes or the excluded nations out again (a copy is how two definitions drift apart)."""

from __future__ import annotations

import ast
from pathlib import Path

from nationbias.stores.domain import EXCLUDED_NATIONS, P5, P5_NAMES, VOTE_CODES, VOTES, slug

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("stores", "retrievers", "graphs", "prompts", "evals")
HOME = REPO / "stores" / "domain.py"


def _facts() -> dict[str, object]:
    lowered = frozenset(n.lower() for n in EXCLUDED_NATIONS)
    return {"P5": frozenset(P5), "VOTES": frozenset(VOTES), "EXCLUDED_NATIONS": lowered}


def _copies(tree: ast.AST) -> list[tuple[int, str]]:
    """Literal tuples, lists and sets whose strings are one of the facts; dicts equal to a mapping."""
    found = []
    facts = _facts()
    for node in ast.walk(tree):
        if isinstance(node, ast.Tuple | ast.List | ast.Set) and node.elts:
            values = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
            if len(values) == len(node.elts):
                for name, fact in facts.items():
                    if frozenset(v.lower() if name == "EXCLUDED_NATIONS" else v for v in values) == fact:
                        found.append((node.lineno, name))
        if isinstance(node, ast.Dict) and node.keys:
            try:
                value = ast.literal_eval(node)
            except ValueError:
                continue
            for name, mapping in (("VOTE_CODES", VOTE_CODES), ("P5_NAMES", P5_NAMES)):
                if value == mapping:
                    found.append((node.lineno, name))
    return found


def test_no_module_redefines_a_fact_of_the_domain() -> None:
    copies = [
        f"{path.relative_to(REPO)}:{line}: {name}"
        for package in PACKAGES
        for path in sorted((REPO / package).rglob("*.py"))
        if path != HOME
        for line, name in _copies(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert copies == [], "import these from nationbias.stores.domain instead"


def test_the_scan_finds_a_copy_when_there_is_one() -> None:
    source = (
        'A = ("favour", "against", "abstention")\nB = {"Y": "favour", "N": "against", "A": "abstention"}\n'
    )
    source += 'C = frozenset({"member states", "united nations"})\n'
    assert [name for _, name in _copies(ast.parse(source))] == ["VOTES", "VOTE_CODES", "EXCLUDED_NATIONS"]


def test_slug_keeps_what_a_file_name_and_a_run_id_allow() -> None:
    assert slug("local:smollm2/v1 (q4)") == "local-smollm2-v1--q4-"
    assert slug("a" * 150) == "a" * 100 and slug("x y", keep="", limit=2) == "x-"
