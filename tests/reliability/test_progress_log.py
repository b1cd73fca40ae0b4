"""Progress in a log file: a real `nationbias` process whose stderr is a file (not a terminal) writes a
plain progress line at least every ``--progress-every`` seconds, and at 25/50/75 %, each with
done/total, ok, invalid, error, calls per second, the time left and the spend."""

from __future__ import annotations

import re
import subprocess
import time
from itertools import pairwise
from pathlib import Path

import pytest

from tests.support.reliability import MODEL, REPO, cli_command, cli_env, fault_server_process

EVERY_S = 0.5  # the period is what is checked: a short one checks it as well, in a shorter run
SLACK_S = 2.0  # a loaded machine's scheduling, on top of the period
LINE = re.compile(
    r"^progress vote · openai-compatible:fault-model: (\d+)/20 \((\d+)%\) · ok \d+ · invalid \d+ · error \d+"
    r" · [\d.]+ calls/s · ETA (\?|\d+:\d\d:\d\d) · spent \$\d+\.\d{4}$"
)


@pytest.mark.timeout(180)
def test_a_run_writing_to_a_file_prints_a_progress_line_every_period(tmp_path: Path) -> None:
    log = tmp_path / "run.log"
    args = ["run", "vote", "-m", MODEL, "--limit", "4", "--repeats", "1", "--concurrency", "2"]
    args += ["--progress-every", str(EVERY_S), "--price-in", "1", "--price-out", "1", "--run-id", "logged"]
    arrivals: list[tuple[float, str]] = []
    with fault_server_process("--latency", "0.2") as server, log.open("w") as out:
        process = subprocess.Popen(
            cli_command(*args), env=cli_env(tmp_path / "home", server.base_url), cwd=REPO,
            stdout=out, stderr=subprocess.STDOUT, text=True,
        )  # fmt: skip
        seen = 0
        while True:
            ended = process.poll() is not None
            lines = [line for line in log.read_text().splitlines() if line.startswith("progress ")]
            arrivals += [(time.monotonic(), line) for line in lines[seen:]]
            seen = len(lines)
            if ended:
                break
            time.sleep(0.05)
    output = log.read_text()
    assert process.returncode == 0, output[-3000:]
    assert len(arrivals) >= 4, output  # 20 calls of 0.2 s on 2 lanes: about 2 s of run
    for _, line in arrivals:
        assert LINE.match(line), line
    gaps = [later - earlier for (earlier, _), (later, _) in pairwise(arrivals)]
    assert max(gaps) <= EVERY_S + SLACK_S, gaps
    percents = [int(LINE.match(line).group(2)) for _, line in arrivals]  # type: ignore[union-attr]
    for mark in (25, 50, 75):
        assert mark in percents, percents
    assert arrivals[-1][1].startswith("progress vote · openai-compatible:fault-model: 20/20 (100%) · ok 20")
