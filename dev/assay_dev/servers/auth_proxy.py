"""A loopback reverse proxy that demands a bearer token: what an authenticated MLflow (or any HTTP service)
looks like from the runner, in front of a real server that has no authentication of its own.

Requests without `Authorization: Bearer <token>` get 401 and never reach the upstream; every request's
headers are recorded, so a test can show the token arrived — and arrived only where it should.
"""

from __future__ import annotations

import threading

import httpx

from assay_dev.servers.loopback import LoopbackServer, QuietHandler

HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "te", "upgrade", "host", "content-length"}


class AuthProxy(LoopbackServer):
    def __init__(self, upstream: str, token: str) -> None:
        self.upstream = upstream.rstrip("/")
        self.token = token
        self.headers: list[dict[str, str]] = []
        self.rejected = 0
        self._lock = threading.Lock()
        self._client = httpx.Client(timeout=60)
        proxy = self

        class Handler(QuietHandler):
            def _forward(self) -> None:
                headers = {k.lower(): v for k, v in self.headers.items()}
                with proxy._lock:
                    proxy.headers.append(headers)
                length = int(headers.get("content-length", "0"))
                body = self.rfile.read(length) if length else b""
                if headers.get("authorization") != f"Bearer {proxy.token}":
                    with proxy._lock:
                        proxy.rejected += 1
                    self.send(401, b'{"error_code": "UNAUTHENTICATED"}', {})
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
                self.send(upstream.status_code, upstream.content, passed)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _forward

        super().__init__(Handler)

    def __exit__(self, *exc: object) -> None:
        super().__exit__(*exc)
        self._client.close()
