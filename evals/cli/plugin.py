"""`nationbias run <test>` for a test an installed package registered (entry points `nationbias.tests`).

The built-in tests have their own commands (evals/cli/run.py, evals/cli/explicit.py); a plugin's gets the
options every test shares, and ``--option key=value`` for its own.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer
from pydantic import TypeAdapter, ValidationError

from nationbias.evals.cli.common import (
    MODELS,
    TEST_RUN,
    UsageError,
    cli_errors,
    given,
    print_export,
    run_bias_test,
    shared_options,
)

OptionOpt = Annotated[
    list[str] | None, typer.Option("--option", help="The test's own option, key=value; repeatable.")
]


def parse_options(pairs: list[str], defaults: dict[str, Any]) -> dict[str, Any]:
    """``key=value`` pairs, each value read as its default's type (a string when the default is None)."""
    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or key not in defaults:
            raise UsageError(f"--option takes key=value with a key among {sorted(defaults)}, got {pair!r}")
        if defaults[key] is None:
            options[key] = value
            continue
        kind = type(defaults[key])
        try:  # pydantic's lax mode reads "false", "0", "no" as False, where bool("false") is True
            options[key] = TypeAdapter(kind).validate_python(value)
        except ValidationError as exc:
            reason = exc.errors()[0]["msg"]
            raise UsageError(f"--option {key}: {reason}, got {value!r}") from None
    return options


def command_for(name: str, *, extra: tuple[str, ...] = ()) -> Any:
    """The `run <name>` command of one registered test; ``extra`` names the shared options it takes
    beyond every test's (its optional ``cli_options``: ``personas``, ``targets`` …)."""

    @shared_options(*MODELS, *extra, *TEST_RUN, "option")
    def run_test(option: OptionOpt = None, **options: Any) -> None:
        from nationbias.evals.bias_tests import get_test
        from nationbias.evals.bias_tests.base import option_defaults, options_from

        common = given(run_test, locals() | options, drop=("option",))
        test = get_test(name)
        own = options_from(test, parse_options(option or [], option_defaults(test)))
        print_export(run_bias_test(name, test_options=own, **common))

    run_test.__doc__ = (get_test_doc(name) or f"The {name!r} bias test") + ("" if extra else " (a plugin).")
    return cli_errors(run_test)


def get_test_doc(name: str) -> str:
    """A test's one-line description: the first line of its class docstring."""
    from nationbias.evals.bias_tests import get_test

    doc = type(get_test(name)).__doc__ or ""
    return " ".join(doc.strip().split("\n\n")[0].split())


def register(run_app: typer.Typer) -> None:
    """Mount `run <test>` for every test a plugin registered, and for every built-in test that declares
    its ``cli_options`` instead of a command of its own."""
    from nationbias.evals.bias_tests import bias_tests, plugin_tests

    plugins = plugin_tests()
    for name, test in bias_tests().items():
        extra = tuple(getattr(test, "cli_options", ()))
        if name in plugins or extra:
            run_app.command(name)(command_for(name, extra=extra))
