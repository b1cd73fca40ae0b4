"""The embedded model in its llama.cpp worker process: the same answers as in-process, and a crash
that is raised (never recorded as an answer), remembered per build, and ends a run cleanly."""

from __future__ import annotations

import asyncio
import json
import signal
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from nationbias.graphs.labels.parsing import VOTE_SCHEMA
from nationbias.graphs.model.client import ModelClient
from nationbias.graphs.model.embedded.local_model import DEFAULT_N_CTX, LlamaCppChatModel, smollm2_path
from nationbias.graphs.model.embedded.probe import (
    PROBE_FILE,
    embedded_status,
    ensure_embedded_works,
    remember_crash,
)
from nationbias.graphs.model.embedded.worker import (
    EmbeddedBackendCrashed,
    WorkerConfig,
    close_all,
    crash_from_exit,
    exit_cause,
    get_worker,
)
from nationbias.graphs.model.errors import BackendFatalError
from nationbias.graphs.study.halt import RunHalted
from nationbias.graphs.study.runner import Task, run_tasks
from nationbias.stores.config.paths import home
from nationbias.stores.state.cache import ResponseCache
from nationbias.stores.state.runstore import RunStore, SampleRow

MESSAGES = [
    {
        "role": "user",
        "content": "You are France at the UN Security Council. Vote on a draft calling for a humanitarian "
        "ceasefire. Answer JSON with vote (favour, against, abstention) and rationale.",
    }
]


@pytest.fixture(autouse=True)
def _fresh_workers(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("NATIONBIAS_LLAMA_THREADS", "1")
    yield
    close_all()


def _crashing(monkeypatch: pytest.MonkeyPatch, sig: str, after: str) -> None:
    monkeypatch.setenv("NATIONBIAS_LLAMA_WORKER", "tests.support.crashing_llama_worker")
    monkeypatch.setenv("NATIONBIAS_TEST_CRASH_SIGNAL", sig)
    monkeypatch.setenv("NATIONBIAS_TEST_CRASH_AFTER", after)


def test_the_worker_answers_as_llama_cpp_does_in_process() -> None:
    from llama_cpp import Llama

    options = {
        "temperature": 0.0,
        "seed": 1234,
        "max_tokens": 64,
        "response_format": {"type": "json_object", "schema": VOTE_SCHEMA},
    }
    worker = get_worker(str(smollm2_path()), DEFAULT_N_CTX, threads=lambda: 1)
    first = worker.chat(MESSAGES, options)
    second = worker.chat(MESSAGES, options)
    llama = Llama(model_path=str(smollm2_path()), n_ctx=DEFAULT_N_CTX, n_threads=1, seed=0, verbose=False)
    try:
        local = llama.create_chat_completion(messages=MESSAGES, **options)  # type: ignore[arg-type]
    finally:
        llama.close()
    text = first["choices"][0]["message"]["content"]
    assert text == second["choices"][0]["message"]["content"] == local["choices"][0]["message"]["content"]
    assert set(json.loads(text)) >= {"vote"}  # the JSON schema reached llama.cpp's grammar
    assert worker.system_info.startswith("CPU :")


def test_a_crash_is_raised_with_its_signal_and_the_worker_stays_dead(monkeypatch: pytest.MonkeyPatch) -> None:
    _crashing(monkeypatch, "SIGSEGV", "1")
    model = LlamaCppChatModel()
    assert model.invoke("Say hello.").content  # the first prompt: a real answer
    with pytest.raises(
        EmbeddedBackendCrashed, match=r"died of SIGSEGV \(Segmentation fault\) while answering"
    ):
        model.invoke("Say hello again.")
    with pytest.raises(EmbeddedBackendCrashed, match="SIGSEGV"):  # no silent restart
        model.invoke("And again.")
    remembered = json.loads((home() / PROBE_FILE).read_text())
    assert [r["cause"] for r in remembered.values()] == ["died of SIGSEGV (Segmentation fault)"]


def test_calls_in_flight_when_the_worker_dies_all_raise_the_crash(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each call that saw the crash remembers it at once; none may become an ordinary error (an error row)."""
    _crashing(monkeypatch, "SIGSEGV", "0")
    model = LlamaCppChatModel()
    with ThreadPoolExecutor(4) as pool:
        futures = [pool.submit(model.invoke, f"Say hello {i}.") for i in range(4)]
    for future in futures:
        assert isinstance(future.exception(), EmbeddedBackendCrashed)


def test_concurrent_memories_of_one_crash_are_all_written() -> None:
    config = WorkerConfig(str(smollm2_path()), DEFAULT_N_CTX, 1)
    crash = crash_from_exit(-signal.SIGSEGV, doing="answering a prompt", log_tail="")
    start = threading.Barrier(16)

    def remember() -> None:
        start.wait()
        remember_crash(config, crash)

    for _ in range(3):
        with ThreadPoolExecutor(16) as pool:
            futures = [pool.submit(remember) for _ in range(16)]
        assert [f.exception() for f in futures] == [None] * 16
    remembered = json.loads((home() / PROBE_FILE).read_text())
    assert [r["cause"] for r in remembered.values()] == ["died of SIGSEGV (Segmentation fault)"]
    assert sorted(p.name for p in home().iterdir() if p.suffix == ".tmp") == []


def test_the_client_neither_retries_nor_caches_a_crash(monkeypatch: pytest.MonkeyPatch) -> None:
    _crashing(monkeypatch, "SIGILL", "0")
    cache = ResponseCache()
    client = ModelClient.from_spec("local:smollm2", cache=cache)  # the probe answers
    with pytest.raises(BackendFatalError, match="SIGILL"):
        asyncio.run(client.call(MESSAGES, schema=VOTE_SCHEMA))
    assert client.calls_made == 1 and cache.stats().entries == 0


def test_the_probe_is_remembered_per_build_and_a_crash_replaces_it(monkeypatch: pytest.MonkeyPatch) -> None:
    first = ensure_embedded_works()
    assert first.works and not first.remembered and first.system_info.startswith("CPU :")
    assert ensure_embedded_works().checked == first.checked  # answered from the file
    assert embedded_status().startswith("yes: llama.cpp 0.3.36 answered on this CPU")
    close_all()
    _crashing(monkeypatch, "SIGILL", "probe")  # another worker: its own key, so the real one is untouched
    with pytest.raises(EmbeddedBackendCrashed, match="SIGILL"):
        ensure_embedded_works()
    close_all()
    with pytest.raises(EmbeddedBackendCrashed, match="remembered from"):
        ensure_embedded_works()
    assert embedded_status().startswith("no: the embedded model's llama.cpp worker process died of SIGILL")
    monkeypatch.delenv("NATIONBIAS_LLAMA_WORKER")
    assert ensure_embedded_works().works  # the real build's answer is still its own


def test_the_runner_flushes_what_finished_and_reraises_with_the_run_id() -> None:
    store = RunStore()
    store.create_run("r", {"test": "vote", "model": "fake:x"})
    tasks = [Task(test="vote", item=f"d{i}", persona="USA") for i in range(5)]

    async def worker(task: Task) -> SampleRow:
        if task.item >= "d2":
            raise EmbeddedBackendCrashed(cause="died of SIGILL", native=True, doing="answering", advice="fix")
        return SampleRow(
            test=task.test, item=task.item, persona=task.persona, repeat=0, status="ok", messages=[], raw="x"
        )

    with pytest.raises(RunHalted) as halted:  # a run fault: the command line prints it and the resume
        asyncio.run(
            run_tasks(store=store, run_id="r", tasks=tasks, worker=worker, concurrency=2, show_progress=False)
        )
    assert isinstance(halted.value.fault, BackendFatalError) and "SIGILL" in str(halted.value.fault)
    assert halted.value.summary.ok == 2 and halted.value.summary.run_id == "r"
    assert sorted(RunStore().samples_frame("r")["item"]) == ["d0", "d1"]


@pytest.mark.parametrize(
    ("code", "cause"),
    [
        (-signal.SIGILL, "died of SIGILL (Illegal instruction)"),
        (-signal.SIGBUS, "died of SIGBUS (Bus error)"),
        (0xC000001D, "died of STATUS_ILLEGAL_INSTRUCTION"),
        (3, "exited with status 3"),
    ],
)
def test_exit_causes_are_named(code: int, cause: str) -> None:
    assert exit_cause(code)[0] == cause
