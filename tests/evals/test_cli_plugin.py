"""A plugin test's ``--option key=value`` pairs, each read as its default's type."""

from __future__ import annotations

import pytest

from nationbias.evals.cli.common import UsageError
from nationbias.evals.cli.plugin import parse_options

DEFAULTS = {"strict": True, "rounds": 2, "share": 0.5, "label": None, "name": "x"}


@pytest.mark.parametrize(
    ("pair", "expected"),
    [
        ("strict=false", False),
        ("strict=no", False),
        ("strict=0", False),
        ("strict=true", True),
        ("rounds=5", 5),
        ("share=0.25", 0.25),
        ("label=anything", "anything"),
        ("name=y", "y"),
    ],
)
def test_a_value_is_read_as_its_defaults_type(pair: str, expected: object) -> None:
    key = pair.partition("=")[0]
    value = parse_options([pair], DEFAULTS)[key]
    assert value == expected
    assert type(value) is type(expected)


@pytest.mark.parametrize(
    ("pair", "named"),
    [
        ("strict=maybe", "--option strict"),
        ("rounds=two", "--option rounds"),
        ("rounds=2.5", "--option rounds"),
        ("unknown=1", "a key among"),
        ("strict", "key=value"),
    ],
)
def test_a_bad_pair_is_one_line_naming_the_option(pair: str, named: str) -> None:
    with pytest.raises(UsageError) as caught:
        parse_options([pair], DEFAULTS)
    message = str(caught.value)
    assert named in message and "\n" not in message
    assert repr(pair.partition("=")[2]) in message or "key" in message
