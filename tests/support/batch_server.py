"""A real OpenAI-compatible server with the Files + Batches endpoints, for batch-mode tests.

``/v1/chat/completions`` answers as the fault server does (tests/support/fake_answers.py), so a
run online against it and one in batch mode get identical answers. ``/v1/files`` takes uploads
(multipart, purpose=batch) and serves content; ``/v1/batches`` creates, reads and lists batches.
A batch completes ``delay_s`` after it is created; a ``fail_once`` fraction of its custom ids
(chosen by a hash of the prompt) fail the first time they are submitted (in the error file, status 500). Every
custom id ever submitted is counted, so a test can check that none was sent twice.
"""

from __future__ import annotations

import email.parser
import email.policy
import hashlib
import itertools
import json
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import uvicorn

from tests.support import asgi_wire as wire
from tests.support.asgi_wire import HOST, Receive, Scope, Send
from tests.support.fake_answers import default_content, prompt_key
from tests.support.fault_config import FaultConfig
from tests.support.fault_server import _completion


@dataclass
class BatchConfig:
    delay_s: float = 0.0  # a batch completes this long after it is created
    fail_once: float = 0.0  # fraction of custom ids whose first submission fails
    fail_times: int = 1  # ... or whose first N submissions fail
    offers_batches: bool = True  # False: /v1/files and /v1/batches answer 404 (a plain server)


@dataclass
class BatchState:
    files: dict[str, bytes] = field(default_factory=dict)
    batches: dict[str, dict[str, Any]] = field(default_factory=dict)
    submitted: Counter[str] = field(default_factory=Counter)  # custom id -> times submitted
    chat_calls: int = 0
    ids: itertools.count[int] = field(default_factory=itertools.count)


def completion(body: dict[str, Any]) -> dict[str, Any]:
    """The chat completion the server gives for ``body`` (online and in batches alike)."""
    return _completion(body, prompt_key(body.get("messages")), default_content(body), FaultConfig())


def _fails(body: dict[str, Any], fraction: float) -> bool:
    """Chosen by the prompt, not the custom id: an id is a cache key that holds the server's
    (random) port, so choosing by it made which lines fail, and whether any did, vary by run."""
    prompt = json.dumps(body.get("messages"), sort_keys=True).encode()
    return int(hashlib.sha256(prompt).hexdigest()[:8], 16) / 0xFFFFFFFF < fraction


def _multipart(headers: dict[str, str], raw: bytes) -> dict[str, bytes]:
    head = f"Content-Type: {headers.get('content-type', '')}\r\n\r\n".encode()
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + raw)
    parts = {}
    for part in message.iter_parts():  # type: ignore[attr-defined]
        name = part.get_param("name", header="content-disposition")
        parts[str(name)] = part.get_payload(decode=True) or b""
    return parts


class BatchApp:
    def __init__(self, config: BatchConfig) -> None:
        self.config = config
        self.state = BatchState()
        self.lock = threading.Lock()

    def _new_id(self, prefix: str) -> str:
        return f"{prefix}-{next(self.state.ids)}"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        method, path = scope["method"], scope["path"].rstrip("/")
        raw = await wire.read_body(receive)
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        if (method, path) == ("POST", "/v1/chat/completions"):
            with self.lock:
                self.state.chat_calls += 1
            return await wire.send_json(send, 200, completion(json.loads(raw)))
        if not self.config.offers_batches or not path.startswith(("/v1/files", "/v1/batches")):
            return await wire.send_json(send, 404, wire.error(f"no route {path}", "not_found"))
        with self.lock:
            status, payload = self._route(method, path, headers, raw, scope.get("query_string", b""))
        if isinstance(payload, bytes):
            return await wire.send_bytes(send, status, payload)
        await wire.send_json(send, status, payload)

    def _route(
        self, method: str, path: str, headers: dict[str, str], raw: bytes, query: bytes
    ) -> tuple[int, Any]:
        parts = path.split("/")[2:]  # files | batches, [id], [content]
        if parts == ["files"] and method == "POST":
            form = _multipart(headers, raw)
            if form.get("purpose") != b"batch" or "file" not in form:
                return 400, wire.error("purpose=batch and a file are required", "invalid_request")
            file_id = self._new_id("file")
            self.state.files[file_id] = form["file"]
            return 200, {"id": file_id, "object": "file", "bytes": len(form["file"]), "purpose": "batch"}
        if parts[:1] == ["files"] and len(parts) == 3 and parts[2] == "content":
            content = self.state.files.get(parts[1])
            return (200, content) if content is not None else (404, wire.error("no file", "not_found"))
        if parts == ["batches"] and method == "POST":
            return self._create(json.loads(raw))
        if parts == ["batches"] and method == "GET":
            data = [self._refresh(b) for b in reversed(self.state.batches.values())]
            return 200, {"object": "list", "data": data, "has_more": False}
        if parts[:1] == ["batches"] and len(parts) == 2 and parts[1] in self.state.batches:
            return 200, self._refresh(self.state.batches[parts[1]])
        return 404, wire.error(f"no route {method} {path}", "not_found")

    def _create(self, body: dict[str, Any]) -> tuple[int, Any]:
        content = self.state.files.get(body.get("input_file_id", ""))
        if content is None or body.get("endpoint") != "/v1/chat/completions":
            return 400, wire.error("unknown input_file_id or endpoint", "invalid_request")
        requests = []
        for number, line in enumerate(content.decode().splitlines(), start=1):
            if not line.strip():
                continue
            try:
                request = json.loads(line)
                assert request["method"] == "POST" and request["url"] == "/v1/chat/completions"
                assert isinstance(request["custom_id"], str) and isinstance(request["body"], dict)
            except (ValueError, KeyError, AssertionError, TypeError):
                return 400, wire.error(f"input line {number} is not a batch request", "invalid_request")
            requests.append(request)
        batch_id = self._new_id("batch")
        for request in requests:
            self.state.submitted[request["custom_id"]] += 1
        self.state.batches[batch_id] = {
            "id": batch_id,
            "object": "batch",
            "endpoint": body["endpoint"],
            "input_file_id": body["input_file_id"],
            "completion_window": body.get("completion_window"),
            "status": "in_progress",
            "output_file_id": None,
            "error_file_id": None,
            "created_at": time.time(),
            "metadata": body.get("metadata") or {},
            "request_counts": {"total": len(requests), "completed": 0, "failed": 0},
            "_requests": requests,
        }
        return 200, self._refresh(self.state.batches[batch_id])

    def _refresh(self, batch: dict[str, Any]) -> dict[str, Any]:
        """Complete the batch once its delay is over: write its output and error files."""
        if batch["status"] == "in_progress" and time.time() - batch["created_at"] >= self.config.delay_s:
            out, errors = [], []
            for request in batch["_requests"]:
                cid = request["custom_id"]
                line = {"id": self._new_id("req"), "custom_id": cid, "error": None}
                if self.state.submitted[cid] <= self.config.fail_times and _fails(
                    request["body"], self.config.fail_once
                ):
                    body = wire.error("the server had an error", "server_error")
                    errors.append({**line, "response": {"status_code": 500, "request_id": "r", "body": body}})
                else:
                    reply = completion(request["body"])
                    out.append({**line, "response": {"status_code": 200, "request_id": "r", "body": reply}})
            for key, lines in (("output_file_id", out), ("error_file_id", errors)):
                if lines:
                    file_id = self._new_id("file")
                    self.state.files[file_id] = "".join(json.dumps(x) + "\n" for x in lines).encode()
                    batch[key] = file_id
            batch["request_counts"] = {
                "total": len(out) + len(errors),
                "completed": len(out),
                "failed": len(errors),
            }
            batch["status"] = "completed"
        return {k: v for k, v in batch.items() if not k.startswith("_")}


class BatchServer:
    """The batch server on a free loopback port, served by uvicorn in a daemon thread."""

    def __init__(self, config: BatchConfig | None = None) -> None:
        self.app = BatchApp(config or BatchConfig())
        self.port = 0
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        return f"http://{HOST}:{self.port}/v1"

    @property
    def submitted(self) -> Counter[str]:
        return self.app.state.submitted

    def start(self) -> BatchServer:
        wire.quiet_uvicorn()
        sock = wire.bind(0)
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(self.app, log_level="warning", access_log=False, lifespan="off")
        self._server = wire.PromptServer(config)
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [sock]}, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("batch server did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(10)


def main() -> None:
    """``python -m tests.support.batch_server --port P --delay S``: serve until killed (subprocess tests)."""
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--delay", type=float, default=0.0)
    parser.add_argument("--fail-once", type=float, default=0.0)
    args = parser.parse_args()
    app = BatchApp(BatchConfig(delay_s=args.delay, fail_once=args.fail_once))
    uvicorn.run(app, host=HOST, port=args.port, log_level="warning", access_log=False, lifespan="off")


if __name__ == "__main__":
    main()
