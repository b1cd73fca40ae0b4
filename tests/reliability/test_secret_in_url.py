"""Secrets never reach a file or a message, and a key never goes to a host the user did not mean: a base URL
with user info (`http://user:SECRET@host/v1`) is refused before the run, by flag or variable, without the
secret in the message or any file; `--base-url` with `openai:` is refused with a pointer to
`openai-compatible:`, and an OPENAI_BASE_URL on another host is refused too."""

from __future__ import annotations

import secrets
from pathlib import Path

import pytest
from typer.testing import CliRunner

from nationbias.evals.cli.main import app
from nationbias.graphs.model.registry import shared_url
from tests.support.fixtures import FaultServerFactory
from tests.support.reliability import MODEL, files_under

SECRET = f"sk-test-SECRET{secrets.token_hex(8)}"
VOTE = ["run", "vote", "--limit", "1", "--repeats", "1", "--personas", "USA"]


def _one_line_error(result: object, *needles: str) -> str:
    assert getattr(result, "exit_code", None) == 2, getattr(result, "output", "")
    assert isinstance(getattr(result, "exception", None), SystemExit)
    lines = result.stderr.strip().splitlines()  # type: ignore[attr-defined]
    assert len(lines) == 1, lines
    for needle in needles:
        assert needle in lines[0], lines[0]
    return str(lines[0])


@pytest.mark.parametrize("where", ["flag", "variable"])
def test_a_base_url_with_user_info_is_refused_and_its_secret_never_stored_or_shown(
    fault_server: FaultServerFactory, isolated_home: Path, where: str
) -> None:
    server = fault_server()
    url = f"http://user:{SECRET}@127.0.0.1:{server.port}/v1"
    args = [*VOTE, "-m", MODEL, "--run-id", "userinfo"]
    if where == "flag":
        result = CliRunner().invoke(app, [*args, "--base-url", url])
        source = "--base-url"
    else:
        result = CliRunner(env={"NATIONBIAS_BASE_URL": url}).invoke(app, args)
        source = "NATIONBIAS_BASE_URL"
    line = _one_line_error(
        result, source, "user info", f"http://127.0.0.1:{server.port}/v1", "NATIONBIAS_API_KEY"
    )
    assert SECRET not in result.output and "user:" not in line
    assert server.count() == 0  # refused before the run
    leaked = [f for f in files_under(isolated_home) if SECRET.encode() in Path(f).read_bytes()]
    assert not leaked and not (isolated_home / "runs.sqlite").exists()


def test_base_url_with_openai_is_refused_with_a_pointer(
    fault_server: FaultServerFactory, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = fault_server()
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    result = CliRunner().invoke(
        app, [*VOTE, "-m", "openai:gpt-4o-mini", "--base-url", server.base_url, "--run-id", "oa"]
    )
    _one_line_error(result, "--base-url", "openai:", "openai-compatible:")
    assert server.count() == 0 and SECRET not in result.output
    assert not (isolated_home / "runs.sqlite").exists()


def test_openai_base_url_on_another_host_is_refused(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("OPENAI_BASE_URL", "https://proxy.example.invalid/v1")
    result = CliRunner().invoke(app, [*VOTE, "-m", "openai:gpt-4o-mini", "--run-id", "oa"])
    _one_line_error(result, "OPENAI_BASE_URL is https://proxy.example.invalid/v1", "openai-compatible:")
    assert SECRET not in result.output and not (isolated_home / "runs.sqlite").exists()


def test_a_shared_base_url_is_not_given_to_openai() -> None:
    """A judge inherits the model's --base-url only when its provider takes one."""
    url = "http://127.0.0.1:8000/v1"
    assert shared_url("openai:gpt-4o-mini", url) is None
    assert shared_url("openai-compatible:qwen", url) == url
