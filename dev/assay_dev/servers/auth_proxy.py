"""A loopback reverse proxy that demands a bearer token: what an authenticated MLflow (or any HTTP service)
looks like from the runner, in front of a real server that has no authentication of its own.

Requests without `Authorization: Bearer <token>` get 401 and never reach the upstream; every request's
headers are recorded, so a test can show the token arrived — and arrived only where it should.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx

HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "te", "upgrade", "host", "content-length"}


class AuthProxy:
    def __init__(self, upstream: str, token: str) -> None:
        self.upstream = upstream.rstrip("/")
        self.token = token
        self.headers: list[dict[str, str]] = []
        self.rejected = 0
        self._lock = threading.Lock()
        self._client = httpx.Client(timeout=60)
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:  # quiet
                return

            def _forward(self) -> None:
                headers = {k.lower(): v for k, v in self.headers.items()}
                with proxy._lock:
                    proxy.headers.append(headers)
                length = int(headers.get("content-length", "0"))
                body = self.rfile.read(length) if length else b""
                if headers.get("authorization") != f"Bearer {proxy.token}":
                    with proxy._lock:
                        proxy.rejected += 1
                    self._send(401, b'{"error_code": "UNAUTHENTICATED"}', {})
                    return
                upstream = proxy._client.request(
                    self.command,
                    proxy.upstream + self.path,
                    content=body,
                    headers={k: v for k, v in headers.items() if k not in HOP_BY_HOP | {"authorization"}},
                )
                passed = {
                    k: v
                    for k, v in upstream.headers.items()
                    if k.lower() not in HOP_BY_HOP | {"content-encoding"}
                }
                self._send(upstream.status_code, upstream.content, passed)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _forward

            def _send(self, status: int, payload: bytes, headers: dict[str, str]) -> None:
                self.send_response(status)
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> AuthProxy:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._client.close()
