"""The bias-test registry: the four built-in tests, in the report's order, each one whole object."""

from __future__ import annotations

import pytest

from nationbias.evals.bias_tests import BiasTest, UnknownTestError, bias_test, bias_tests, get_test
from nationbias.evals.results import RESULT_TABLES


def test_the_builtin_tests_in_the_papers_order() -> None:
    assert list(bias_tests())[:4] == ["vote", "debias", "directqa", "association"]
    for name, test in bias_tests().items():
        assert isinstance(test, BiasTest) and test.name == name
        assert RESULT_TABLES[name] == (*test.tables, "significance", "metadata")
        shown = {test.agreement_table, test.invalid_table} - {None}
        assert shown <= set(test.tables), name
    assert get_test("vote").sections == get_test("debias").sections  # written once in the report


def test_an_unknown_name_and_an_incomplete_test_fail() -> None:
    with pytest.raises(UnknownTestError, match="unknown test 'nope': choose from vote, debias"):
        get_test("nope")

    class Half:  # no arun, no result_tables
        name = "half"

    with pytest.raises(TypeError, match="does not build a BiasTest"):
        bias_test(Half)
    assert "half" not in bias_tests()
