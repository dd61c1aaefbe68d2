"""What the loopback test servers share: a quiet HTTP/1.1 handler and a threaded server on a free port of
127.0.0.1, started and stopped as a context manager."""

from __future__ import annotations

import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Self


class QuietHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:  # a test's output is not a server log
        return

    def send(self, status: int, payload: bytes, headers: dict[str, str], content_type: str = "") -> None:
        self.send_response(status)
        if content_type:
            self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(payload)))
        for key, value in headers.items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(payload)


class _Server(ThreadingHTTPServer):
    def handle_error(self, request: object, client_address: object) -> None:
        """A client that went away before its reply was written (an agent killed at its timeout, a refused
        call it dropped) is no error of the server's; anything else is printed as the standard server does.
        The traceback would land in whichever test's captured standard error is open at that moment."""
        if isinstance(sys.exception(), ConnectionError):
            return
        super().handle_error(request, client_address)  # type: ignore[arg-type]


class LoopbackServer:
    """Serves `handler` on `host` (loopback) at a port the system picks; `url` is its address plus
    `prefix`."""

    def __init__(
        self, handler: type[BaseHTTPRequestHandler], prefix: str = "", host: str = "127.0.0.1"
    ) -> None:
        self._prefix = prefix
        self._server = _Server((host, 0), handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}{self._prefix}"

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
