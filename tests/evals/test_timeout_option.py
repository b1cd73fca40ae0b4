"""``--timeout`` and ``--progress-every`` are run options: checked before anything is opened, the
timeout reaches the model client and is recorded in the run config, and a resume may change it (it
decides no answer)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

import nationbias
from nationbias.evals.cli.main import app
from nationbias.stores.errors import InputError
from nationbias.stores.state.runstore import RunStore

OPTIONS = {"limit": 1, "repeats": 1, "personas": "USA", "show_progress": False}


def test_the_timeout_is_recorded_in_the_run_config_and_may_change_on_resume() -> None:
    nationbias.run("vote", model="fake:hash", run_id="timed", timeout=7.5, **OPTIONS)
    assert RunStore().get_run("timed")["timeout_s"] == 7.5
    again = nationbias.run("vote", model="fake:hash", run_id="timed", timeout=30, **OPTIONS)
    assert again.skipped == again.total  # resumed, not refused
    assert nationbias.run("vote", model="fake:hash", run_id="default", **OPTIONS)
    assert RunStore().get_run("default")["timeout_s"] == 120.0


@pytest.mark.parametrize(("option", "value"), [("timeout", 0), ("timeout", -3), ("progress_every", 0)])
def test_a_bad_value_is_refused_before_anything_is_opened(option: str, value: float) -> None:
    flag = "--" + option.replace("_", "-")
    with pytest.raises(InputError, match=f"{flag} must be a positive number of seconds"):
        nationbias.run("vote", model="fake:hash", run_id="bad", **{option: value}, **OPTIONS)
    assert not RunStore().path.exists()


def test_the_cli_takes_both_and_the_resume_command_carries_them() -> None:
    args = ["run", "vote", "-m", "fake:hash", "--limit", "1", "--repeats", "1", "--personas", "USA"]
    result = CliRunner().invoke(app, [*args, "--timeout", "9", "--progress-every", "2", "--run-id", "cli"])
    assert result.exit_code == 0, result.output
    assert RunStore().get_run("cli")["timeout_s"] == 9.0
    summary = [line for line in result.stderr.splitlines() if line.startswith("summary: ")]
    assert "--timeout 9.0 --progress-every 2.0 --run-id cli" in summary[0], summary
