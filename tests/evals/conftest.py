"""Fixtures of the report tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.browser import whole_study_report


@pytest.fixture(scope="session")
def browser_study_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One whole study's report for the tests that only read it in Chromium (one xdist worker runs
    them all: tests/support/costs.py)."""
    return whole_study_report(tmp_path_factory.mktemp("browser-study") / "nbhome")
