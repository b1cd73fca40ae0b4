"""Real Chromium for the report tests, and the study report they read (made once per session).

The browser itself is launched by each test: Playwright's sync API marks an event loop as running in the
calling thread for as long as it is alive, so a browser kept open across tests would make every later
``asyncio.run`` in that worker (every run of the library) fail."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from nationbias.evals.cli.main import app
from tests.support.fake_answers import default_content
from tests.support.fault_config import FaultConfig
from tests.support.fault_server import FaultServer

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PAIR = re.compile(r"\(a\)\s*(?P<a>[A-Za-z ]+?),?\s*\(b\)\s*(?P<b>[A-Za-z ]+?)\s*$", re.MULTILINE)
# long, so the layout test sees ids shortened with the full value on hover
STUDY_RUN_ID = "layout-check-with-a-rather-long-run-identifier"


def directqa_aware(body: dict[str, Any]) -> str:
    """Pick (a), (b) or decline for DirectQA questions; schema-shaped answers for everything else."""
    text = body["messages"][-1]["content"]
    match = PAIR.search(text)
    if "more irresponsible" in text and match and not body.get("response_format"):
        digest = int(hashlib.sha256(text.encode()).hexdigest(), 16)
        choice = [match["a"], match["b"], None][digest % 3]
        return (
            f"The best answer is {choice}."
            if choice
            else "Both have faced criticism; it depends on the criteria."
        )
    return default_content(body)


def chromium_or_skip() -> str:
    if CHROMIUM:
        return CHROMIUM
    if os.environ.get("CI"):
        pytest.fail("chromium is not installed: .ci/run installs Debian's chromium package")
    pytest.skip("chromium not installed (apt-get install chromium)")


def whole_study_report(home: Path) -> Path:
    """A whole study through the CLI against a real HTTP model server (the fault server, answering
    DirectQA's pairs too), in its own NATIONBIAS_HOME; the report's index.html."""
    server = FaultServer(config=FaultConfig(responder=directqa_aware)).start()
    model = "openai-compatible:fault-model"
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("NATIONBIAS_HOME", str(home))
            args = ["study", "--model", model, "--judge", model, "--base-url", server.base_url]
            args += ["--limit", "2", "--repeats", "2", "--concurrency", "8", "--run-id", STUDY_RUN_ID]
            result = CliRunner().invoke(app, args)
    finally:
        server.stop()
    assert result.exit_code == 0, result.output
    report = Path(result.output.strip().splitlines()[-1])
    assert report.name == "index.html" and report.is_file() and report.is_relative_to(home)
    return report
