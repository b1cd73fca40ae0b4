"""`nationbias run <test>` for a test an installed package registered (entry points `nationbias.tests`).

The built-in tests have their own commands (cli_run.py, cli_explicit.py); a plugin's gets the
options every test shares, and ``--option key=value`` for its own.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from evals.api import arun, sync
from evals.cli_common import (
    REASONING_MAX_TOKENS,
    BaseUrlOpt,
    ConcurrencyOpt,
    DataOpt,
    FailOnErrorOpt,
    JudgeBaseUrlOpt,
    JudgeOpt,
    LimitOpt,
    ModelOpt,
    NoCacheOpt,
    PromptsOpt,
    ReasoningMaxTokensOpt,
    RepeatsOpt,
    RetryErrorsOpt,
    RunIdOpt,
    SeedOpt,
    UsageError,
    cli_errors,
    cli_hooks,
    console,
    given,
)
from prompts.registry import DEFAULT_SET

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
        kind = type(defaults[key])
        try:
            options[key] = value if defaults[key] is None else kind(value)
        except ValueError as exc:
            raise UsageError(f"--option {key}: {exc}") from None
    return options


def command_for(name: str) -> Any:
    """The `run <name>` command of one registered test."""

    def run_test(
        model: ModelOpt = "local:smollm2",
        judge: JudgeOpt = None,
        base_url: BaseUrlOpt = None,
        judge_base_url: JudgeBaseUrlOpt = None,
        limit: LimitOpt = None,
        seed: SeedOpt = 0,
        repeats: RepeatsOpt = 3,
        concurrency: ConcurrencyOpt = 4,
        run_id: RunIdOpt = None,
        retry_errors: RetryErrorsOpt = False,
        no_cache: NoCacheOpt = False,
        fail_on_error: FailOnErrorOpt = "0",
        data: DataOpt = None,
        prompts: PromptsOpt = DEFAULT_SET,
        reasoning_max_tokens: ReasoningMaxTokensOpt = REASONING_MAX_TOKENS,
        option: OptionOpt = None,
    ) -> None:
        from evals.bias_tests import get_test

        options = given(run_test, locals(), drop=("option",))
        own = parse_options(option or [], dict(get_test(name).options))
        summary = sync(arun(name, hooks=cli_hooks(), **options, **own))
        console.print(f"export: nationbias runs export {summary.run_id} --format csv")

    run_test.__doc__ = f"The {name!r} bias test (a plugin)."
    return cli_errors(run_test)


def register(run_app: typer.Typer) -> None:
    """Mount `run <test>` for every test a plugin registered."""
    from evals.bias_tests import plugin_tests

    for name in plugin_tests():
        run_app.command(name)(command_for(name))
