"""A TCP server on 127.0.0.1 that accepts every connection and never answers: an endpoint behind a
load balancer with no healthy backend, as a model client meets it (the handshake succeeds, the
request is read by nobody, no byte comes back)."""

from __future__ import annotations

import socket
import threading
import time
from types import TracebackType


class SilentServer:
    """Accepts connections on a free loopback port and holds them open, unread, until stopped."""

    def __init__(self) -> None:
        self._sock = socket.socket()
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(64)
        self._sock.settimeout(0.1)
        self.port = int(self._sock.getsockname()[1])
        self.accepted = 0
        self.first_accept: float | None = None  # time.monotonic() of the first connection
        self._held: list[socket.socket] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="silent-server", daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self._held.append(conn)
            self.accepted += 1
            self.first_accept = self.first_accept or time.monotonic()

    def __enter__(self) -> SilentServer:
        self._thread.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._stop.set()
        self._thread.join(5)
        for conn in self._held:
            conn.close()
        self._sock.close()
